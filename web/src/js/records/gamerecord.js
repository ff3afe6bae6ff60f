// A game log read in the page, made sense of as `goclock` does on the host: the moves,
// the checks of its sequence, the verdict, and the exports. The checksum chain is checked
// by the firmware's own storage/logline.py (in the page's MicroPython: firmware.js); the
// rest is host Python (host/goclock/records/gamerecord.py and verify.py, cli/logs.py's
// export) written again here, and tests/web/test_logs.py proves that every export gives
// the same bytes as `goclock logs export` for the same logs. Change both together.

import { pyDumps } from "./pyjson.js";

export const SIDES = ["black", "white"];
export const LEFT_FIELDS = ["main_ms", "periods", "period_ms", "moves", "points", "spent_ms", "flagged"];
const isInt = (x) => typeof x === "number" && Number.isInteger(x);
const TAIL = 16; // ,"c":"xxxxxxxx"} less the closing brace: what the chain adds to a record

/** ui.clock_text: 12:34, or 0:09.5 below ten seconds. */
export function clockText(ms) {
  if (ms == null) return "-";
  const sign = ms < 0 ? "-" : "";
  ms = Math.abs(Math.trunc(ms));
  let s = Math.floor(ms / 1000);
  const rest = ms % 1000;
  const h = Math.floor(s / 3600);
  s %= 3600;
  const m = Math.floor(s / 60);
  s %= 60;
  const p2 = (n) => String(n).padStart(2, "0");
  let text = h ? `${h}:${p2(m)}:${p2(s)}` : `${m}:${p2(s)}`;
  if (!h && !m && s < 10) text += "." + Math.floor(rest / 100);
  return sign + text;
}

/** The records of the good lines, in order, as the chain check (`chain`) found them. */
function goodRecords(bytes, chain) {
  const text = new TextDecoder().decode(bytes);
  const lines = text.split("\n");
  if (lines.length && !lines[lines.length - 1]) lines.pop();
  const bad = new Set(chain.errors.map((e) => e[0]));
  const out = [];
  lines.forEach((raw, i) => {
    let b = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (b && !b.replace(/\./g, "")) return; // a line of progress marks
    if (bad.has(i + 1)) return;
    // The chain vouched for this line: its record is the text before the checksum.
    const enc = new TextEncoder().encode(b);
    b = new TextDecoder().decode(enc.subarray(0, enc.length - TAIL)) + "}";
    out.push(JSON.parse(b));
  });
  if (out.length !== chain.records) throw new Error("the records read differ from the chain's");
  return out;
}

export class GameRecord {
  /** `chain` is the firmware's verify of `bytes` (firmware.js verifyLog). */
  constructor(bytes, chain, name = "game log") {
    this.name = name;
    this.size = bytes.length;
    this.ok = chain.ok;
    this.errors = chain.errors;
    this.torn = chain.torn;
    this.cut = chain.cut;
    this.records = goodRecords(bytes, chain);
    let head = this.records.find((r) => r.event === "game") || null;
    if (head === null && this.cut) {
      const cut = this.records.find((r) => r.event === "cut");
      const snap = this.records.find((r) => r.event === "snapshot") || {};
      const clock = snap.clock && typeof snap.clock === "object" && !Array.isArray(snap.clock) ? snap.clock : {};
      head = { game: cut.game ?? null, time_control: clock.time_control ?? null };
    }
    head = head || {};
    this.game = head.game ?? null;
    this.time_control = head.time_control ?? null;
    this.ended = this.records.some((r) => r.event === "end");
    this.moves = this._moves();
  }

  _moves() {
    const moves = [];
    let first = 0;
    if (this.cut) {
      const m = this.records.filter((r) => r.event === "press").map((r) => r.move).find((m) => isInt(m) && m > 0);
      first = m !== undefined ? m - 1 : 0;
    }
    let start = null;
    let paused = 0;
    let pausedAt = null;
    let flagT = null;
    this.records.forEach((rec, i) => {
      const kind = rec.event;
      const t = rec.t ?? null;
      if (kind === "start") {
        [start, paused, flagT] = [t, 0, null];
        return;
      }
      if (kind === "pause") {
        pausedAt = t;
        return;
      }
      if (kind === "resume") {
        if (pausedAt !== null && isInt(t)) paused += t - pausedAt;
        pausedAt = null;
        return;
      }
      if (kind === "timeout") {
        flagT = t;
        return;
      }
      let move;
      if (kind === "press" && SIDES.includes(rec.side)) {
        move = { side: rec.side, t, used_ms: rec.used_ms ?? null };
        const nested = rec.left;
        const source = nested && typeof nested === "object" && !Array.isArray(nested) ? nested : rec;
        move.left = {};
        for (const k of LEFT_FIELDS) if (k in source) move.left[k] = source[k];
      } else if (kind === "ruling" && rec.ruling === "timeout_pass" && SIDES.includes(rec.side)) {
        let usedMs = null;
        if (isInt(start) && isInt(flagT)) usedMs = flagT - start - paused;
        move = { side: rec.side, t, used_ms: usedMs, pass: true };
        move.left = this._leftAfterPass(rec.side);
      } else return;
      [start, paused, pausedAt, flagT] = [t, 0, null, null];
      move.n = first + moves.length + 1;
      move.record = i + 1;
      moves.push(move);
    });
    return moves;
  }

  _leftAfterPass(side) {
    const tc = this.time_control || {};
    const own = tc[side] || {};
    const period = "period" in own ? own.period : tc.period ?? null;
    const left = { main_ms: 0, periods: 1, flagged: false };
    if (typeof period === "number") left.period_ms = Math.round(period * 1000);
    return left;
  }

  get verdict() {
    const n = this.records.length;
    if (this.errors.length && !this.torn) {
      const first = this.errors.slice(0, 3).map((e) => `line ${e[0]}: ${e[1]}`).join("; ");
      const more = this.errors.length > 3 ? ` (and ${this.errors.length - 3} more)` : "";
      return `ALTERED: the checksum chain is broken at ${first}${more}`;
    }
    if (this.torn) {
      return (
        "CUT SHORT: the last record is incomplete (power lost or the line dropped while " +
        `it was written); ${n} good records`
      );
    }
    let whole = `intact, ${n} records`;
    if (this.cut) {
      const first = this.moves.length ? this.moves[0].n : null;
      whole =
        `intact from ${first ? "move " + first : "its first line"} on, ${n} records: the clock gave up the first ` +
        `${this.cut === 1 ? "part" : this.cut + " parts"} of the log for want of flash`;
    }
    if (!this.ended) return whole + ", no end record yet (the game is still on, or was cut off)";
    return whole;
  }
}

function recordLines(record) {
  const bad = new Set(record.errors.map((e) => e[0]));
  const total = record.records.length + record.errors.length;
  const out = [];
  for (let n = 1; n <= total; n++) if (!bad.has(n)) out.push(n);
  return out;
}

/** verify.problems: [[line, message]] of the game's sequence. */
export function problems(record) {
  const found = [];
  const lines = recordLines(record);
  let lastT = null;
  let lastMove = 0;
  let lastMoveLine = null;
  if (record.cut && record.moves.length) lastMove = record.moves[0].n - 1;
  let resumedAt = null;
  const numbered = record.records.some((r) => r.event === "press" && "move" in r);
  lines.forEach((line, i) => {
    const rec = record.records[i];
    if (rec === undefined) return;
    const t = rec.t;
    if (!isInt(t)) found.push([line, "no game time (t)"]);
    else if (rec.event === "log" && rec.notice === "power_resume") {
      lastT = t;
      resumedAt = line;
    } else {
      if (lastT !== null && t < lastT) found.push([line, `time goes back from ${clockText(lastT)} to ${clockText(t)}`]);
      lastT = t;
    }
    if (rec.event !== "press" || !numbered) return;
    const move = rec.move;
    if (!isInt(move)) {
      found.push([line, "a press without its move number"]);
      return;
    }
    const after = resumedAt ? ` (after the power resume at line ${resumedAt})` : "";
    if (move === lastMove) {
      found.push([line, `move ${move} again, first at line ${lastMoveLine}: a replayed move${after}`]);
    } else if (move > lastMove + 1) {
      const gone =
        move === lastMove + 2 ? `move ${lastMove + 1} is missing` : `moves ${lastMove + 1} to ${move - 1} are missing`;
      found.push([line, `move ${move} after move ${lastMove}: ${gone}${after}`]);
    } else if (move < lastMove) {
      found.push([line, `move ${move} after move ${lastMove}: out of order${after}`]);
    }
    if (move > lastMove) [lastMove, lastMoveLine] = [move, line];
  });
  return found;
}

/** verify.Check: the chain and the sequence together. */
export function check(record) {
  const probs = problems(record);
  let verdict = record.verdict;
  if (probs.length) {
    let shown = probs.slice(0, 3).map((p) => `line ${p[0]}: ${p[1]}`).join("; ");
    if (probs.length > 3) shown += ` (and ${probs.length - 3} more)`;
    const text = `INCONSISTENT: ${shown}`;
    verdict = record.ok ? text : `${record.verdict}; ${text}`;
  }
  return { ok: record.ok && !probs.length, torn: record.torn, errors: record.errors, problems: probs, verdict };
}

/** `goclock logs export --format json`, byte for byte. */
export function exportJson(record) {
  const obj = {
    game: record.game,
    verified: check(record),
    time_control: record.time_control,
    moves: record.moves,
    records: record.records,
  };
  return JSON.stringify(obj, null, 1) + "\n";
}

function csvField(v) {
  if (v === null || v === undefined) return "";
  let s = typeof v === "boolean" ? (v ? "True" : "False") : String(v);
  if (/[",\r\n]/.test(s)) s = '"' + s.replace(/"/g, '""') + '"';
  return s;
}

/** `goclock logs export --format csv`, byte for byte. */
export function exportCsv(record) {
  const leftCols = LEFT_FIELDS.filter((f) => f !== "flagged");
  const fields = ["record", "t_ms", "event", "side", "move", "used_ms", ...leftCols, "phrase", "other"];
  const rows = [fields.join(",")];
  const moves = new Map(record.moves.map((m) => [m.record, m]));
  record.records.forEach((rec, idx) => {
    const i = idx + 1;
    const row = { record: i, t_ms: rec.t ?? null, event: rec.event ?? null, side: "side" in rec ? rec.side : "" };
    const move = moves.get(i);
    if (move) {
      row.move = move.n;
      for (const [k, v] of Object.entries(move.left)) if (leftCols.includes(k)) row[k] = v;
    }
    for (const key of ["used_ms", "phrase"]) if (key in rec) row[key] = rec[key];
    const shown = ["event", "t", "side", "used_ms", "phrase", ...(move ? ["left"] : [])];
    const other = {};
    let any = false;
    for (const [k, v] of Object.entries(rec)) {
      if (!shown.includes(k)) {
        other[k] = v;
        any = true;
      }
    }
    row.other = any ? pyDumps(other, { sortKeys: true }) : "";
    const cells = fields.map((f) => csvField(row[f]));
    if (cells.length === 1 && cells[0] === "") cells[0] = '""';
    rows.push(cells.join(","));
  });
  return rows.join("\n") + "\n";
}
