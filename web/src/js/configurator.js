// The configurator: a clock's info and status live, its time control (checked by the
// firmware's own code in this page, then by the clock), settings, and the arbiter's
// actions. Everything goes through ClockLink (link/clocklink.js): the same protocol on
// USB, through goclock web and to the simulated clock.

import { firmware } from "./firmware.js";
import { connectPanel } from "./link/connect.js";
import { isJsonForm, readNotation } from "./link/notation.js";
import { left, used } from "./timefmt.js";

const $ = (id) => document.getElementById(id);
let link = null;
let presets = [];

function result(id, reply, okText) {
  const el = $(id);
  el.textContent = reply.ok ? okText : "Refused by the clock: " + reply.error;
  el.className = reply.ok ? "good" : "bad";
  return reply.ok;
}

function log(dir, line) {
  const ol = $("console");
  const li = document.createElement("li");
  li.className = dir;
  li.textContent = (dir === "out" ? "→ " : "← ") + line;
  ol.append(li);
  while (ol.children.length > 200) ol.firstChild.remove();
  ol.scrollTop = ol.scrollHeight;
}

function sideText(s, tc) {
  // What the side has, in the clock's terms: main time, then its overtime.
  if (!s) return ["", ""];
  if ("spent_ms" in s) return [used(s.spent_ms), "untimed: its thinking time so far"];
  const type = tc && tc.type;
  const sub = [];
  let time = left(s.main_ms);
  if (s.main_ms === 0 && "period_ms" in s) {
    time = left(s.period_ms);
    if (type === "canadian") sub.push(`${s.moves} moves to play in this block`);
    else if ("periods" in s) sub.push(`${type === "ing" ? "overtime" : "byo-yomi"}: ${s.periods} period${s.periods === 1 ? "" : "s"} left`);
  } else if ("periods" in s) {
    sub.push(`then ${s.periods} × ${left(s.period_ms)}`);
  } else if ("moves" in s) {
    sub.push(`then ${s.moves} moves in ${left(s.period_ms)}`);
  }
  if ("points" in s && s.points) sub.push(`${s.points} penalty points`);
  if (s.absent) sub.push("absent (marked late)");
  if (s.flagged) sub.push("FLAGGED");
  return [time, sub.join("; ")];
}

let lastStatus = null;
function showStatus(st) {
  lastStatus = st;
  for (const side of ["black", "white"]) {
    const box = $(side);
    const [time, sub] = sideText(st[side], st.time_control);
    box.querySelector('[data-k="time"]').textContent = time;
    box.querySelector('[data-k="sub"]').textContent = sub;
    box.classList.toggle("turn", st.turn === side && st.state === "running");
    box.classList.toggle("flagged", !!(st[side] && st[side].flagged));
  }
  const words = { idle: "Idle: the next press starts the game", running: "Running", paused: "Paused", ended: "The game has ended" };
  const turn = st.turn ? `; ${st.turn === "black" ? "Black" : "White"} to move` : "";
  const moves = st.moves != null ? `; ${st.moves} move${st.moves === 1 ? "" : "s"}` : "";
  const game = st.game != null ? `; game ${st.game}` : "";
  $("state").textContent = (words[st.state] || st.state) + turn + moves + game + ".";
}

async function describe(tc) {
  try {
    return (await firmware()).describe(tc);
  } catch {
    return "";
  }
}

async function refresh() {
  const st = await link.request("status");
  if (st.ok) {
    showStatus(st);
    const text = await describe(st.time_control);
    $("tc-now").textContent = "On the clock now: " + (text || JSON.stringify(st.time_control));
  }
}

async function loadConfig() {
  const info = link.info;
  const dl = $("info");
  dl.replaceChildren();
  const rows = [
    ["Firmware", info.version],
    ["Board", info.board],
    ["Protocol", info.protocol],
    ["Voice packs", (info.voices || []).join(", ") || "none"],
    ["Free flash", info.flash_free != null ? Math.round(info.flash_free / 1024) + " KB" : ""],
    ["Battery", info.battery_mv != null ? info.battery_mv + " mV" : "not wired"],
  ];
  for (const [k, v] of rows) {
    const dt = document.createElement("dt");
    dt.textContent = k;
    const dd = document.createElement("dd");
    dd.textContent = String(v);
    dl.append(dt, dd);
  }
  const cfg = await link.request("config.get");
  if (cfg.ok) {
    const c = cfg.config;
    $("volume").value = c.volume;
    const voice = $("voice");
    voice.replaceChildren();
    for (const v of new Set([...(info.voices || []), c.voice])) voice.add(new Option(v, v, false, v === c.voice));
    $("buttons-left").value = (c.buttons && c.buttons.left) || "black";
    $("tc-json").value = JSON.stringify(c.time_control);
    showGameInfo(c.game_info);
    check();
  }
  const pr = await link.request("presets.get");
  presets = pr.ok ? pr.presets : [];
  const sel = $("tc-preset");
  const reset = $("reset-preset");
  sel.length = 1;
  reset.length = 1;
  for (const [i, p] of presets.entries()) {
    const text = await describe(p.time_control);
    sel.add(new Option(`${i + 1}. ${p.name}${text ? " — " + text : ""}`, String(i)));
    reset.add(new Option(`preset ${i + 1}: ${p.name}`, String(i + 1)));
  }
}

// The game's details: the config's game_info, every field null when not known. The
// clock checks them (storage/netconfig.py); its message is shown as it gives it.
const INFO_TEXT = ["event", "black", "white"];
const INFO_INT = ["round", "table", "handicap"];

function showGameInfo(info) {
  for (const k of [...INFO_TEXT, ...INFO_INT]) {
    const v = info ? info[k] : null;
    $("gi-" + k).value = v == null ? "" : String(v);
  }
}

function gameInfoFromPage() {
  // Numbers as typed (a browser's number field gives "" for what is not a number: such a
  // field is sent as text so that the clock refuses it in its own words).
  const info = {};
  for (const k of INFO_TEXT) info[k] = $("gi-" + k).value.trim() || null;
  for (const k of INFO_INT) {
    const el = $("gi-" + k);
    const v = el.value.trim();
    if (v !== "") info[k] = Number(v);
    else info[k] = el.validity && el.validity.badInput ? "not a number" : null;
  }
  return info;
}

let checking = 0;
/** The time control typed: the JSON form as it is, a notation read by goclock web. */
async function typedTimeControl() {
  const text = $("tc-json").value;
  if (isJsonForm(text)) return { ok: true, json: text, note: "" };
  const r = await readNotation(text);
  if (!r.ok) return r;
  return { ok: true, json: JSON.stringify(r.time_control), note: `“${text.trim()}” reads as ${r.text}. ` };
}

async function check() {
  const n = ++checking;
  const out = $("tc-check");
  let fw;
  try {
    fw = await firmware();
  } catch (e) {
    out.textContent = "The firmware's check could not load: " + e.message + " (the clock still checks it).";
    return null;
  }
  const typed = await typedTimeControl();
  if (n !== checking) return null;
  if (!typed.ok) {
    out.className = "check bad";
    out.textContent = typed.error;
    return typed;
  }
  const r = fw.checkTimeControl(typed.json);
  out.className = "check " + (r.ok ? "good" : "bad");
  out.textContent = typed.note + (r.ok ? `The firmware accepts it: ${r.text}` : `The firmware refuses it: ${r.error}`);
  return r;
}

function numberOrNull(id) {
  const v = $(id).value.trim();
  return v === "" ? null : Number(v);
}

function wire() {
  $("tc-json").addEventListener("input", check);
  $("tc-preset").addEventListener("change", (e) => {
    const p = presets[Number(e.target.value)];
    if (p) {
      $("tc-json").value = JSON.stringify(p.time_control);
      check();
    }
  });
  $("tc-set").addEventListener("click", async () => {
    // The firmware in the page has said what it thinks; the clock decides (its message
    // is shown as it gives it).
    let tc;
    const typed = await typedTimeControl();
    try {
      if (!typed.ok) throw new Error(typed.error);
      tc = JSON.parse(typed.json);
    } catch (e) {
      $("tc-result").textContent = (isJsonForm($("tc-json").value) ? "Not JSON: " : "") + e.message;
      $("tc-result").className = "bad";
      return;
    }
    const r = await link.request("config.set", { config: { time_control: tc } });
    if (result("tc-result", r, "Set: the clock's next reset starts it.")) refresh();
  });
  $("settings-set").addEventListener("click", async () => {
    const config = {
      volume: Number($("volume").value),
      voice: $("voice").value,
      buttons: { left: $("buttons-left").value },
    };
    const r = await link.request("config.set", { config });
    result("settings-result", r, "Saved on the clock.");
  });
  $("gi-set").addEventListener("click", async () => {
    const r = await link.request("config.set", { config: { game_info: gameInfoFromPage() } });
    if (result("gi-result", r, "Saved on the clock: in the next game's first record.")) {
      if (r.config && r.config.game_info) showGameInfo(r.config.game_info);
    }
  });
  const action = (id, cmd, args, text) =>
    $(id).addEventListener("click", async () => {
      const r = await link.request(cmd, typeof args === "function" ? args() : args);
      if (r.ok && "accepted" in r && !r.accepted) {
        $("arb-result").textContent = "Not taken: " + r.reason;
        $("arb-result").className = "bad";
      } else result("arb-result", r, typeof text === "function" ? text(r) : text);
      refresh();
    });
  action("pause", "pause", {}, "Paused.");
  action("resume", "resume", {}, "Resumed.");
  action("press-black", "press", { side: "black" }, "Black pressed.");
  action("press-white", "press", { side: "white" }, "White pressed.");
  action(
    "adj-set",
    "time.set",
    () => {
      const args = { side: $("adj-side").value };
      for (const [id, k] of [["adj-main", "main"], ["adj-periods", "periods"], ["adj-period", "period"], ["adj-moves", "moves"]]) {
        const v = numberOrNull(id);
        if (v !== null) args[k] = v;
      }
      return args;
    },
    "Adjusted (and logged).",
  );
  $("reset").addEventListener("click", async () => {
    const preset = $("reset-preset").value;
    const what = preset ? `preset ${preset}` : "the configured time control";
    const st = lastStatus && lastStatus.state;
    const game = st === "paused" || st === "running" ? " The game on the clock ends (its log is kept)." : "";
    if (!confirm(`Reset the clock to ${what}?${game}`)) {
      $("arb-result").textContent = "Reset cancelled.";
      $("arb-result").className = "";
      return;
    }
    const r = await link.request("reset", preset ? { preset: Number(preset) } : {});
    if (result("arb-result", r, "Reset: " + what + ".")) refresh();
  });
}

function main() {
  wire();
  firmware().catch(() => {}); // start loading the firmware's checks now
  window.goclockPage = connectPanel({
    onLog: log,
    onConnect: async (l) => {
      link = l;
      window.goclockLink = l;
      $("connected").hidden = false;
      // The clock sends a status line after every change and once a second while a
      // clock runs: that is all the live view needs.
      link.onevent = (ev) => ev.event === "status" && showStatus(ev);
      await loadConfig();
      await refresh();
      await link.request("watch", { on: true });
      document.body.dataset.ready = "1";
    },
    onDisconnect: () => {
      link = null;
      delete document.body.dataset.ready;
    },
  });
}

main();
