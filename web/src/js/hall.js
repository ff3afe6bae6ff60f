// The hall view: every clock of a hall live, from the broker over MQTT on WebSockets
// (MQTT.js, shipped in vendor/mqtt). The topics are the hall's: goclock/v1/<hall>/<clock>/
// online (retained), state (retained), event, and arbiter and result once the network
// firmware publishes them. A message that cannot be read is counted and skipped: nothing a
// clock or anyone on the broker sends can stop this page.
//
// hall.html?broker=ws://host:9001/&hall=club-open connects at once (a hall's screen).

import mqtt from "../vendor/mqtt/mqtt.js";
import { left, used } from "./timefmt.js";

const $ = (id) => document.getElementById(id);
const ROOT = "goclock/v1";
const NAME = /^[a-z0-9_-]{1,32}$/;
const clocks = new Map(); // name -> {online, state, at (ms when the state came)}
let client = null;
let unreadable = 0;
window.goclockHall = { clocks, get unreadable() { return unreadable; } };

function say(text, bad = false) {
  $("hall-status").textContent = text;
  $("hall-status").className = bad ? "bad" : "";
}

function entry(name) {
  if (!clocks.has(name)) clocks.set(name, { online: null, state: null, at: 0 });
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
  li.className = "table-card" + (c.online === false ? " offline" : "");
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
  who.textContent = [st.table != null ? name : "", st.round != null ? `round ${st.round}` : "", players].filter(Boolean).join(" · ") || "no game details yet";
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
  li.append(h, who, row, state);
  return li;
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

function onMessage(topic, payload) {
  const parts = topic.split("/");
  const name = parts[3];
  const leaf = parts.slice(4).join("/");
  if (!NAME.test(name || "")) return;
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
    if (msg.state === "ended" && was && was !== "ended") addResult(name, "game over");
  } else if (leaf === "event") {
    const line = eventLine(name, msg);
    if (line) addEvent(name, ...line);
    if (msg.event === "timeout") addResult(name, `${SIDE[msg.side]} ran out of time (game ${msg.game ?? "?"})`);
    if (msg.event === "forfeit") addResult(name, `${SIDE[msg.side]} forfeits: ${msg.reason}`);
  } else if (leaf === "arbiter") {
    addEvent(name, "the arbiter is called" + (msg.reason ? `: ${msg.reason}` : ""), true);
  } else if (leaf === "result") {
    addResult(name, msg.result ? String(msg.result) : JSON.stringify(msg));
  }
  render();
}

function watch(url, hall) {
  if (client) client.end(true);
  clocks.clear();
  render();
  say(`Connecting to ${url}…`);
  client = mqtt.connect(url, {
    clientId: "goclock-hall-" + Math.random().toString(16).slice(2, 10),
    clean: true,
    reconnectPeriod: 2000,
    connectTimeout: 10_000,
  });
  client.on("connect", () => {
    const topics = ["online", "state", "event", "arbiter", "result"].map((l) => `${ROOT}/${hall}/+/${l}`);
    client.subscribe(topics, { qos: 1 }, (err) => {
      if (err) say("The broker refused the subscription: " + err.message, true);
      else {
        say(`Watching hall ${hall} on ${url}.`);
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
    watch($("broker").value.trim(), hall);
  });
  if (q.get("broker") && q.get("hall")) watch(q.get("broker"), q.get("hall"));
  setInterval(() => clocks.size && render(), 500); // the running clocks count down
}

main();
