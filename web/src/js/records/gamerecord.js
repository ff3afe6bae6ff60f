// A game log read in the page: its records (the lines the firmware's own
// storage/logline.py vouched for, in the page's MicroPython: firmware.js) and its moves, as
// host/goclock/records/gamerecord.py reads them, for the chart (chart.js; the tests compare
// its data with `goclock logs report --plot`'s). The exports and the log's full verdict are
// the host tool's own (`goclock web` runs them: host/goclock/web/exports.py).

export const SIDES = ["black", "white"];
export const LEFT_FIELDS = ["main_ms", "periods", "period_ms", "moves", "points", "spent_ms", "flagged"];
const isInt = (x) => typeof x === "number" && Number.isInteger(x);
const TAIL = 16; // ,"c":"xxxxxxxx"} less the closing brace: what the chain adds to a record

/** The records of the good lines, in order, as the chain check (`chain`) found them, and
 * their numbers: records are numbered from 1 in the file's order, the lines the chain
 * refuses counted too (gamerecord.py's entries), progress marks not. */
function goodRecords(bytes, chain) {
  const text = new TextDecoder().decode(bytes);
  const lines = text.split("\n");
  if (lines.length && !lines[lines.length - 1]) lines.pop();
  const bad = new Set(chain.errors.map((e) => e[0]));
  const records = [];
  const numbers = [];
  let number = 0;
  lines.forEach((raw, i) => {
    let b = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    const record = b.replace(/^\.+/, ""); // progress marks may begin a record's line
    if (b && !record) return; // a line of progress marks
    b = record;
    number++;
    if (bad.has(i + 1)) return;
    // The chain vouched for this line: its record is the text before the checksum.
    const enc = new TextEncoder().encode(b);
    b = new TextDecoder().decode(enc.subarray(0, enc.length - TAIL)) + "}";
    records.push(JSON.parse(b));
    numbers.push(number);
  });
  if (records.length !== chain.records) throw new Error("the records read differ from the chain's");
  return [records, numbers];
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
    [this.records, this.numbers] = goodRecords(bytes, chain);
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
    // Moves keep the clock's numbers (each press carries its own), and a timeout ruled a
    // pass is a move too: from it on, the clock's number plus the passes before.
    const moves = [];
    const numbered = this.records.some((r) => r.event === "press" && isInt(r.move));
    let passes = 0;
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
      const last = moves.length ? moves[moves.length - 1].n : null;
      let move;
      if (kind === "press" && SIDES.includes(rec.side)) {
        move = { side: rec.side, t, used_ms: rec.used_ms ?? null };
        const nested = rec.left;
        const source = nested && typeof nested === "object" && !Array.isArray(nested) ? nested : rec;
        move.left = {};
        for (const k of LEFT_FIELDS) if (k in source) move.left[k] = source[k];
        move.n = numbered && isInt(rec.move) ? rec.move + passes : (last ?? 0) + 1;
      } else if (kind === "ruling" && rec.ruling === "timeout_pass" && SIDES.includes(rec.side)) {
        let usedMs = null;
        if (isInt(start) && isInt(flagT)) usedMs = flagT - start - paused;
        move = { side: rec.side, t, used_ms: usedMs, pass: true };
        move.left = this._leftAfterPass(rec.side);
        passes++;
        move.n = (last ?? this._firstNumber() - 1) + 1;
      } else return;
      [start, paused, pausedAt, flagT] = [t, 0, null, null];
      move.record = this.numbers[i];
      moves.push(move);
    });
    return moves;
  }

  _firstNumber() {
    const p = this.records.find((r) => r.event === "press" && isInt(r.move));
    return p ? p.move : 1;
  }

  _leftAfterPass(side) {
    const tc = this.time_control || {};
    const own = tc[side] || {};
    const period = "period" in own ? own.period : tc.period ?? null;
    const left = { main_ms: 0, periods: 1, flagged: false };
    if (typeof period === "number") left.period_ms = Math.round(period * 1000);
    return left;
  }
}
