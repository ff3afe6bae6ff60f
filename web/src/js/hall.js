// The hall view: every clock of a hall live, from the broker over MQTT on WebSockets
// (MQTT.js, shipped in vendor/mqtt). The topics are docs/hall.md's, as the firmware
// publishes them under goclock/v1/<hall>/<clock>/: online and state (retained), event,
// log/<game> (slices of the game's log: the result records come from there), arbiter
// (retained: a player's call until it is answered), reply (to what this page sends on
// cmd: arbiter.ack, when the page has an arbiter login). A message that cannot be read is
// counted and skipped: nothing a clock or anyone on the broker sends can stop this page.
//
// hall.html?broker=ws://host:9001/&hall=club-open connects at once (a hall's screen).

import mqtt from "../vendor/mqtt/mqtt.js";
import { left, used } from "./timefmt.js";

const $ = (id) => document.getElementById(id);
const ROOT = "goclock/v1";
const NAME = /^[a-z0-9_-]{1,32}$/;
// name -> {online, state, at (ms when the state came), call (the arbiter topic's message
// while calling, else null), acking (an ack sent, no reply yet), note (the last reply's
// refusal), results (game -> {rec, result, by}: the last result record of each game)}
const clocks = new Map();
let client = null;
let hallName = "";
let arbiter = false; // the page has an arbiter login: it may send arbiter.ack
let unreadable = 0;
let nextId = 1;
const asked = new Map(); // request id -> clock name
window.goclockHall = { clocks, get unreadable() { return unreadable; } };

function say(text, bad = false) {
  $("hall-status").textContent = text;
  $("hall-status").className = bad ? "bad" : "";
}

function entry(name) {
  if (!clocks.has(name)) {
    clocks.set(name, { online: null, state: null, at: 0, call: null, acking: false, note: "", results: new Map() });
  }
  return clocks.get(name);
}

function sideTime(s, running, elapsed) {
  // What the side has now: its main time, else what is left of its period (or block);
  // the side to move counted down from the state's moment, as its clock runs.
  if (!s) return ["", ""];
  if ("spent_ms" in s) return [used(s.spent_ms + (running ? elapsed : 0)), "thinking time"];
  const run = running ? elapsed : 0;
  if (s.main_ms > 0 || !("period_ms" in s)) {
    const sub = "periods" in s ? `+ ${s.periods} × ${left(s.period_ms)}` : "moves" in s ? `+ ${s.moves} in ${left(s.period_ms)}` : "";
    return [left(Math.max(0, s.main_ms - run)), sub];
  }
  const sub = "periods" in s ? `byo-yomi, ${s.periods} left` : "moves" in s ? `${s.moves} moves to play` : "";
  return [left(Math.max(0, s.period_ms - run)), sub];
}

function card(name, c) {
  const st = c.state || {};
  const li = document.createElement("li");
  li.className = "table-card" + (c.online === false ? " offline" : "") + (c.call ? " calling" : "");
  li.dataset.clock = name;
  const h = document.createElement("h3");
  const title = st.table != null ? `Table ${st.table}` : name;
  h.textContent = title;
  const pill = document.createElement("span");
  pill.className = "pill" + (c.online === false ? " off" : "");
  pill.textContent = c.online === false ? "offline" : c.online ? "online" : "";
  h.append(pill);
  const who = document.createElement("p");
  who.className = "who";
  const players = [st.black_name, st.white_name].some((x) => x) ? `${st.black_name || "?"} (B) – ${st.white_name || "?"} (W)` : "";
  const handicap = st.handicap ? `handicap ${st.handicap}` : "";
  who.textContent = [st.table != null ? name : "", st.event || "", st.round != null ? `round ${st.round}` : "", players, handicap].filter(Boolean).join(" · ") || "no game details yet";
  const row = document.createElement("div");
  row.className = "clocks";
  const running = st.state === "running";
  const elapsed = running ? Date.now() - c.at : 0;
  for (const side of ["black", "white"]) {
    const s = st[side];
    const box = document.createElement("div");
    box.className = "clock" + (st.turn === side && running ? " turn" : "") + (s && s.flagged ? " flagged" : "");
    box.dataset.side = side;
    const [t, sub] = sideTime(s, running && st.turn === side, elapsed);
    box.innerHTML = `<div class="sub">${side === "black" ? "Black" : "White"}</div><div class="t"></div><div class="sub"></div>`;
    box.children[1].textContent = t || "–";
    box.children[2].textContent = (s && s.flagged ? "FLAGGED " : "") + sub;
    row.append(box);
  }
  const state = document.createElement("p");
  state.className = "state";
  const words = { idle: "waiting to start", running: "playing", paused: "paused", ended: "game over" };
  state.textContent = st.state
    ? `${words[st.state] || st.state}${st.moves != null ? `, ${st.moves} move${st.moves === 1 ? "" : "s"}` : ""}${st.game != null ? `, game ${st.game}` : ""}`
    : "no state yet";
  li.append(h, who);
  if (c.call) li.append(callBox(name, c));
  li.append(row, state);
  const res = lastResult(c, st.game);
  if (res) {
    const p = document.createElement("p");
    p.className = "result";
    p.textContent = `Result: ${res.result}` + (res.by ? ` (by ${res.by})` : "");
    li.append(p);
  }
  return li;
}

function callBox(name, c) {
  // A player's call, shown until the clock says it is answered (the retained topic).
  const box = document.createElement("div");
  box.className = "call";
  box.setAttribute("role", "alert");
  const since = c.call.since_utc != null ? ` since ${new Date(c.call.since_utc).toLocaleTimeString()}` : "";
  const what = document.createElement("span");
  what.textContent = `The arbiter is called${since}`;
  box.append(what);
  if (arbiter) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "plain-btn";
    b.dataset.ack = name;
    b.disabled = c.acking;
    b.textContent = c.acking ? "Acknowledging…" : "Acknowledge";
    box.append(b);
  } else {
    const ro = document.createElement("span");
    ro.className = "note";
    ro.textContent = "read-only: answer at the board, or log in as the arbiter";
    box.append(ro);
  }
  if (c.note) {
    const n = document.createElement("span");
    n.className = "note";
    n.textContent = c.note;
    box.append(n);
  }
  return box;
}

function lastResult(c, game) {
  if (game != null && c.results.has(game)) return c.results.get(game);
  return null;
}

function render() {
  const list = $("tables");
  const names = [...clocks.keys()].sort((a, b) => {
    const ta = clocks.get(a).state?.table;
    const tb = clocks.get(b).state?.table;
    if (ta != null && tb != null && ta !== tb) return String(ta).localeCompare(String(tb), undefined, { numeric: true });
    return a.localeCompare(b, undefined, { numeric: true });
  });
  list.replaceChildren(...names.map((n) => card(n, clocks.get(n))));
}

const SIDE = { black: "Black", white: "White" };
function eventLine(name, ev) {
  const who = SIDE[ev.side] || "";
  switch (ev.event) {
    case "call":
      return [`${who}: ${ev.phrase}`, false];
    case "timeout":
      return [`${who}'s time is up`, true];
    case "start":
      return ["the game started", false];
    case "pause":
      return ["paused", false];
    case "resume":
      return ["resumed", false];
    case "adjust":
      return [`${who}'s time adjusted by the arbiter`, true];
    case "late":
      return [`${who} marked late`, true];
    case "arrive":
      return [`${who} arrived`, false];
    case "ruling":
      return [`ruling for ${who}: ${ev.ruling}`, true];
    case "forfeit":
      return [`${who} forfeits (${ev.reason})`, true];
    case "byoyomi":
      return [`${who} in byo-yomi`, false];
    case "press":
      return null; // every move would drown the calls
    default:
      return [`${who ? who + ": " : ""}${ev.event}`, false];
  }
}

function addEvent(name, text, alert) {
  const ol = $("events");
  const li = document.createElement("li");
  li.className = alert ? "alert" : "";
  li.textContent = `${new Date().toLocaleTimeString()} ${name}: ${text}`;
  ol.prepend(li);
  while (ol.children.length > 200) ol.lastChild.remove();
}

function addResult(name, text) {
  const li = document.createElement("li");
  li.textContent = `${name}: ${text}`;
  $("results").append(li);
}

function takeSlice(name, game, payload) {
  // One slice of a game's log: "<rec> <offset>\n" then progress marks and one record
  // line (docs/hall.md). Only result records matter here; a resend (a rec already seen)
  // changes nothing, and the highest rec's result is the one that counts.
  const text = new TextDecoder().decode(payload);
  const nl = text.indexOf("\n");
  const head = nl < 0 ? [] : text.slice(0, nl).split(" ");
  const rec = Number(head[0]);
  if (head.length !== 2 || !Number.isInteger(rec) || rec < 1 || !/^\d+$/.test(game)) {
    unreadable++;
    return false;
  }
  // Progress marks: lines of dots, or dots before a record on its line.
  const lines = text
    .slice(nl + 1)
    .split("\n")
    .map((l) => l.replace(/^\.+/, ""))
    .filter((l) => l);
  const line = lines[lines.length - 1];
  if (!line) return false;
  let r;
  try {
    r = JSON.parse(line);
  } catch {
    unreadable++;
    return false;
  }
  if (!r || r.event !== "result" || typeof r.result !== "string") return false;
  const c = entry(name);
  const g = Number(game);
  const had = c.results.get(g);
  if (had && had.rec >= rec) return false;
  c.results.set(g, { rec, result: r.result, by: r.by || null });
  addResult(name, `${r.result} (game ${g}${r.by ? ", by " + r.by : ""})`);
  return true;
}

function onArbiter(name, c, msg) {
  if (msg.calling === true) {
    if (!c.call) addEvent(name, "a player calls the arbiter", true);
    c.call = msg;
  } else if (msg.calling === false) {
    if (c.call) addEvent(name, `the call is answered${msg.by ? " (" + msg.by + ")" : ""}`, false);
    c.call = null;
    c.acking = false;
    c.note = "";
  } else unreadable++;
}

function onReply(name, c, msg) {
  if (asked.get(msg.id) !== name) return; // another page's, or not an answer to this one
  asked.delete(msg.id);
  c.acking = false;
  c.note = msg.ok ? "" : `Refused by the clock: ${msg.error}`;
}

function acknowledge(name) {
  const c = clocks.get(name);
  if (!client || !arbiter || !c || !c.call || c.acking) return;
  const id = nextId++;
  asked.set(id, name);
  c.acking = true;
  c.note = "";
  client.publish(`${ROOT}/${hallName}/${name}/cmd`, JSON.stringify({ id, cmd: "arbiter.ack" }), { qos: 1 }, (err) => {
    if (err) {
      c.acking = false;
      c.note = "Not sent: " + err.message;
      render();
    }
  });
  render();
}

function onMessage(topic, payload) {
  const parts = topic.split("/");
  const name = parts[3];
  const leaf = parts.slice(4).join("/");
  if (!NAME.test(name || "")) return;
  if (parts[4] === "log" && parts.length === 6) {
    if (takeSlice(name, parts[5], payload)) render();
    return;
  }
  let msg;
  try {
    msg = JSON.parse(new TextDecoder().decode(payload));
    if (!msg || typeof msg !== "object") throw new Error("not an object");
  } catch {
    unreadable++;
    return;
  }
  const c = entry(name);
  if (leaf === "online") c.online = msg.online === true;
  else if (leaf === "state") {
    const was = c.state && c.state.state;
    c.state = msg;
    c.at = Date.now();
    if (msg.state === "ended" && was && was !== "ended") addEvent(name, "game over", false);
  } else if (leaf === "event") {
    const line = eventLine(name, msg);
    if (line) addEvent(name, ...line);
  } else if (leaf === "arbiter") onArbiter(name, c, msg);
  else if (leaf === "reply") onReply(name, c, msg);
  render();
}

function watch(url, hall, user, password) {
  if (client) client.end(true);
  clocks.clear();
  asked.clear();
  hallName = hall;
  arbiter = !!user;
  render();
  say(`Connecting to ${url}…`);
  const opts = {
    clientId: "goclock-hall-" + Math.random().toString(16).slice(2, 10),
    clean: true,
    reconnectPeriod: 2000,
    connectTimeout: 10_000,
  };
  if (user) {
    opts.username = user;
    if (password) opts.password = password;
  }
  client = mqtt.connect(url, opts);
  client.on("connect", () => {
    const leaves = ["online", "state", "event", "log/+", "arbiter"];
    if (arbiter) leaves.push("reply");
    const topics = leaves.map((l) => `${ROOT}/${hall}/+/${l}`);
    client.subscribe(topics, { qos: 1 }, (err) => {
      if (err) say("The broker refused the subscription: " + err.message, true);
      else {
        say(`Watching hall ${hall} on ${url}` + (arbiter ? ` as the arbiter (${user}).` : " (read-only)."));
        document.body.dataset.watching = "1";
      }
    });
  });
  client.on("reconnect", () => say(`The broker at ${url} is not answering: trying again…`, true));
  client.on("error", (e) => say(`Broker error: ${e.message}`, true));
  client.on("message", onMessage);
}

function main() {
  const q = new URLSearchParams(location.search);
  $("broker").value = q.get("broker") || `ws://${location.hostname || "127.0.0.1"}:9001/`;
  $("hall").value = q.get("hall") || "";
  $("hall-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const hall = $("hall").value.trim();
    if (!NAME.test(hall)) {
      say("A hall's name is 1 to 32 of a-z 0-9 _ -.", true);
      return;
    }
    watch($("broker").value.trim(), hall, $("arb-user").value.trim(), $("arb-password").value);
  });
  $("tables").addEventListener("click", (e) => {
    const b = e.target.closest("button[data-ack]");
    if (b) acknowledge(b.dataset.ack);
  });
  // A hall's screen opens read-only from its address; a password never goes in one.
  if (q.get("broker") && q.get("hall")) watch(q.get("broker"), q.get("hall"));
  setInterval(() => clocks.size && render(), 500); // the running clocks count down
}

main();
