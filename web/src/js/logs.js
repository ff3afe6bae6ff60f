// The logs page: list a clock's games, pull one (resumable: the bytes pulled so far are
// kept, and a pull goes on from there), check it with the firmware's own logline.verify,
// chart it, and download it as JSON, CSV or a timed SGF — the same bytes as
// `goclock logs export` and `goclock logs sgf` give (records/*.js).

import { firmware } from "./firmware.js";
import { connectPanel } from "./link/connect.js";
import { drawChart } from "./records/chart.js";
import { GameRecord, check, exportCsv, exportJson } from "./records/gamerecord.js";
import { mergeSgf } from "./records/sgf.js";

const $ = (id) => document.getElementById(id);
const CHUNK = 512; // logs.get's largest length
let link = null;
const partial = new Map(); // game -> bytes pulled so far (a cut pull resumes from there)
let current = null; // {name, bytes, record}

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
  const verdict = check(record);
  $("game-h").textContent = record.game != null ? `Game ${record.game}` : name;
  $("verdict").textContent = (verdict.ok ? "Verified by the clock's own checker: " : "") + verdict.verdict;
  $("verdict").className = verdict.ok ? "good" : "bad";
  $("sgf-status").textContent = "";
  $("game-panel").hidden = false;
  $("chart-key").textContent = drawChart($("chart"), record);
  document.body.dataset.game = String(record.game);
}

async function mergeInto(file) {
  if (!current) return;
  const out = $("sgf-status");
  try {
    const r = mergeSgf(current.record, new Uint8Array(await file.arrayBuffer()));
    const stem = file.name.replace(/\.sgf$/i, "");
    download(`${stem}-timed.sgf`, r.bytes, "application/x-go-sgf");
    out.textContent = `Times of ${r.timed} move${r.timed === 1 ? "" : "s"} written into ${stem}-timed.sgf.` + (r.mismatch ? " Note: " + r.mismatch : "");
    out.className = r.mismatch ? "" : "good";
  } catch (e) {
    out.textContent = "Not merged: " + e.message;
    out.className = "bad";
  }
}

function wire() {
  const stem = () => (current.record.game != null ? `game-${current.record.game}` : current.name.replace(/\.[^.]*$/, ""));
  $("dl-json").addEventListener("click", () => download(stem() + ".json", exportJson(current.record), "application/json"));
  $("dl-csv").addEventListener("click", () => download(stem() + ".csv", exportCsv(current.record), "text/csv"));
  $("dl-log").addEventListener("click", () => download(current.name, current.bytes, "text/plain"));
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
