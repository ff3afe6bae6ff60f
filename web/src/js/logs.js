// The logs page: list a clock's games, pull one (resumable: the bytes pulled so far are
// kept, and a pull goes on from there), check its checksum chain with the firmware's own
// logline.verify, chart it, and download it. JSON, CSV and the timed SGF are made by the
// host tool itself when `goclock web` served the page (POST /export runs `goclock logs
// export` and `goclock logs sgf`: the same bytes, and the log's whole verdict); elsewhere
// the page says how to make them from the log as pulled.

import { firmware } from "./firmware.js";
import { bridgeInfo } from "./link/clocklink.js";
import { connectPanel } from "./link/connect.js";
import { drawChart } from "./records/chart.js";
import { GameRecord } from "./records/gamerecord.js";

const $ = (id) => document.getElementById(id);
const CHUNK = 512; // logs.get's largest length
let link = null;
const partial = new Map(); // game -> bytes pulled so far (a cut pull resumes from there)
let current = null; // {name, bytes, record}
let api = null; // this run's token of goclock web's exports, when it served the page
const served = bridgeInfo().then((info) => (api = info.api_token || null));

function b64(bytes) {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/** An export by the host tool (goclock web): {ok, data (bytes), warnings} or {ok: false, error}. */
async function hostExport(format, sgf = null) {
  const r = await fetch("export", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Goclock-Token": api },
    body: JSON.stringify({ format, log: b64(current.bytes), sgf: sgf && b64(sgf), force: $("force").checked }),
  });
  if (!r.ok) return { ok: false, error: `goclock web answered ${r.status}` };
  const out = await r.json();
  if (out.ok) out.data = b64bytes(out.data);
  return out;
}

function chainText(chain) {
  // The firmware's own check of the chain; the sequence checks are the host tool's.
  if (chain.ok) return `the checksum chain is intact, ${chain.records} records`;
  if (chain.torn) return `CUT SHORT: the last record is incomplete; ${chain.records} good records`;
  const at = chain.errors.slice(0, 3).map((e) => `line ${e[0]}: ${e[1]}`).join("; ");
  return `ALTERED: the checksum chain is broken at ${at}`;
}

function b64bytes(s) {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function concat(a, b) {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

function download(name, data, type) {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

async function list() {
  const r = await link.request("logs.list");
  const body = $("games").tBodies[0];
  body.replaceChildren();
  if (!r.ok) {
    $("pull-status").textContent = "The clock refused logs.list: " + r.error;
    return;
  }
  for (const g of r.logs) {
    const tr = body.insertRow();
    tr.insertCell().textContent = `game ${g.game}`;
    tr.insertCell().textContent = `${g.size} bytes`;
    tr.insertCell().textContent = g.records;
    const b = document.createElement("button");
    b.type = "button";
    b.className = "plain-btn";
    b.textContent = partial.has(g.game) ? "Resume pull" : "Pull";
    b.id = `pull-${g.game}`;
    b.addEventListener("click", () => pull(g.game).catch((e) => failed(g.game, e)));
    tr.insertCell().append(b);
  }
  if (!r.logs.length) $("pull-status").textContent = "No game logs on the clock yet.";
  $("games-panel").hidden = false;
}

function failed(game, e) {
  const have = (partial.get(game) || new Uint8Array()).length;
  $("pull-status").textContent = `The pull of game ${game} stopped at ${have} bytes (${e.message}): connect again and resume it.`;
  $("pull-status").className = "bad";
}

async function pull(game) {
  const bar = $("pull-progress");
  bar.hidden = false;
  let data = partial.get(game) || new Uint8Array();
  $("pull-status").className = "";
  for (;;) {
    const r = await link.request("logs.get", { game, offset: data.length, length: CHUNK });
    if (!r.ok) throw new Error(r.error);
    data = concat(data, b64bytes(r.data));
    partial.set(game, data);
    bar.max = Math.max(r.size, 1);
    bar.value = data.length;
    $("pull-status").textContent = `Pulling game ${game}: ${data.length} of ${r.size} bytes`;
    if (r.eof) break;
  }
  partial.delete(game);
  $("pull-status").textContent = `Game ${game} pulled: ${data.length} bytes.`;
  await show(`game-${game}.log`, data);
}

async function show(name, bytes) {
  const fw = await firmware();
  const chain = fw.verifyLog(bytes);
  const record = new GameRecord(bytes, chain, name);
  current = { name, bytes, record };
  $("game-h").textContent = record.game != null ? `Game ${record.game}` : name;
  let text = "Checked by the clock's own code: " + chainText(chain) + ".";
  let ok = chain.ok;
  await served;
  if (api) {
    // The whole verdict (the chain and the sequence) as goclock says it.
    const r = await hostExport("json");
    if (r.ok) {
      const v = JSON.parse(new TextDecoder().decode(r.data)).verified;
      text = (v.ok ? "Verified by goclock: " : "goclock says: ") + v.verdict;
      ok = v.ok;
    } else {
      text += " goclock: " + r.error;
      ok = false;
    }
  }
  $("verdict").textContent = text;
  $("verdict").className = ok ? "good" : "bad";
  $("sgf-status").textContent = "";
  $("game-panel").hidden = false;
  $("chart-key").textContent = drawChart($("chart"), record);
  document.body.dataset.game = String(record.game);
}

function stem() {
  return current.record.game != null ? `game-${current.record.game}` : current.name.replace(/\.[^.]*$/, "");
}

async function exportTo(format, name, type, sgfFile = null) {
  if (!current) return;
  const out = $("sgf-status");
  const r = await hostExport(format, sgfFile ? new Uint8Array(await sgfFile.arrayBuffer()) : null);
  if (!r.ok) {
    out.textContent = "Not exported: " + r.error;
    out.className = "bad";
    return;
  }
  download(name, r.data, type);
  out.textContent = `${name} written by goclock.` + (r.warnings.length ? " Note: " + r.warnings.join(" ") : "");
  out.className = r.warnings.length ? "" : "good";
}

function mergeInto(file) {
  const base = file.name.replace(/\.sgf$/i, "");
  return exportTo("sgf", `${base}-timed.sgf`, "application/x-go-sgf", file);
}

function wire() {
  $("dl-json").addEventListener("click", () => exportTo("json", stem() + ".json", "application/json"));
  $("dl-csv").addEventListener("click", () => exportTo("csv", stem() + ".csv", "text/csv"));
  $("dl-sgf").addEventListener("click", () => exportTo("sgf", stem() + ".sgf", "application/x-go-sgf"));
  $("dl-log").addEventListener("click", () => download(current.name, current.bytes, "text/plain"));
  served.then(() => {
    if (api) return;
    for (const id of ["dl-json", "dl-csv", "dl-sgf", "sgf-file", "force"]) $(id).disabled = true;
    $("sgf-drop").hidden = true;
    $("export-note").hidden = false;
  });
  $("sgf-file").addEventListener("change", (e) => e.target.files[0] && mergeInto(e.target.files[0]));
  $("open-file").addEventListener("change", async (e) => {
    const f = e.target.files[0];
    if (f) await show(f.name, new Uint8Array(await f.arrayBuffer()));
  });
  const drop = $("sgf-drop");
  drop.addEventListener("dragover", (e) => {
    e.preventDefault();
    drop.classList.add("over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    const f = e.dataTransfer.files[0];
    if (f) mergeInto(f);
  });
  drop.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") $("sgf-file").click();
  });
}

wire();
firmware().catch(() => {});
connectPanel({
  onConnect: async (l) => {
    link = l;
    await list();
    document.body.dataset.ready = "1";
  },
  onDisconnect: () => {
    link = null;
    delete document.body.dataset.ready;
  },
});
