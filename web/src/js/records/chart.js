// The chart of a game an arbiter can read in a dispute, drawn as SVG in the logs page (and
// the same chart by `goclock logs report --plot`: host/goclock/records/chart.py, which
// takes the same data from the same log):
//   - top: each side's MAIN time left after each of its moves, Black in near-black with
//     filled dots, White in orange with open squares; minutes:seconds on the axis
//     (rounded up, as a time left is shown), whole move numbers below;
//   - bottom, once a side is in overtime: what was left of the period (or the Canadian
//     block) at each move, as a bar, with the periods (or moves) left above it: overtime
//     never joins the main-time line, so a side in byo-yomi never seems to gain time;
//   - marks between moves: P pause, A adjustment, L lateness (late, arrive), R ruling,
//     F the flag (red), X a forfeit.

import { left as leftText } from "../timefmt.js";

export const COLOURS = { black: "#111111", white: "#e06c00" };
const MARKS = { pause: "P", adjust: "A", late: "L", arrive: "L", ruling: "R", timeout: "F", forfeit: "X" };
const OVERTIME = { byoyomi: "periods", ing: "periods", canadian: "moves" };

/** What the chart shows, from a GameRecord (chart.py's chart_data gives the same). */
export function chartData(record) {
  const tc = record.time_control || {};
  const type = tc.type || null;
  const untimed = type === "untimed";
  const main = { black: [], white: [] };
  const over = { black: [], white: [] };
  for (const side of ["black", "white"]) {
    const own = tc[side] || {};
    const start = own.main ?? tc.main;
    if (!untimed && typeof start === "number") main[side].push([0, Math.round(start * 1000)]);
    else if (untimed) main[side].push([0, 0]);
  }
  const byRecord = new Map();
  for (const m of record.moves) {
    byRecord.set(m.record, m);
    const l = m.left || {};
    if (untimed) {
      if ("spent_ms" in l) main[m.side].push([m.n, l.spent_ms]);
      continue;
    }
    const count = OVERTIME[type];
    const inOvertime = !l.main_ms && "period_ms" in l && (count ? count in l : true);
    if (inOvertime) {
      const pts = main[m.side];
      if (!pts.length || pts[pts.length - 1][1] !== 0) pts.push([m.n, 0]);
      over[m.side].push([m.n, l.period_ms, count ? l[count] ?? null : null]);
    } else if ("main_ms" in l) {
      main[m.side].push([m.n, l.main_ms]);
    }
  }
  const marks = [];
  let done = record.moves.length ? record.moves[0].n - 1 : 0;
  record.records.forEach((rec, i) => {
    const m = byRecord.get(record.numbers[i]);
    if (m) {
      done = m.n;
      if (m.pass) marks.push([m.n, "R", "ruling", m.side]); // a timeout ruled a pass: a move
      return;
    }
    const letter = MARKS[rec.event];
    if (letter) marks.push([done + 0.5, letter, rec.event, rec.side ?? null]);
  });
  const lastMove = record.moves.length ? record.moves[record.moves.length - 1].n : 1;
  // The x axis runs half a move past the last move and the last mark.
  const end = Math.max(lastMove, ...marks.map((m) => m[0])) + 0.5;
  return { type, untimed, main, over, marks, last: lastMove, end };
}

function niceStep(maxMs) {
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200].map((s) => s * 1000);
  return steps.find((s) => maxMs / s <= 6) || 14_400_000;
}

function moveStep(last) {
  return [1, 2, 5, 10, 20, 25, 50, 100].find((s) => last / s <= 15) || 200;
}

const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;");

/** Draw the chart into `el`; returns its key in words (for the page and screen readers). */
export function drawChart(el, record) {
  const d = chartData(record);
  const hasOver = d.over.black.length + d.over.white.length > 0;
  const W = 820;
  const L = 64;
  const R = 16;
  const topH = 240;
  const botH = hasOver ? 120 : 0;
  const H = 30 + topH + (hasOver ? 60 + botH : 0) + 40;
  const x0 = L;
  const x1 = W - R;
  const xs = (n) => x0 + ((x1 - x0) * n) / d.end;
  const parts = [];
  const text = (x, y, s, attrs = "") => parts.push(`<text x="${x}" y="${y}" ${attrs}>${esc(s)}</text>`);
  const line = (a, b, c, e, attrs) => parts.push(`<line x1="${a}" y1="${b}" x2="${c}" y2="${e}" ${attrs}/>`);

  // The main time panel.
  const maxMain = Math.max(1000, ...["black", "white"].flatMap((s) => d.main[s].map((p) => p[1])));
  const yStep = niceStep(maxMain);
  const yMax = Math.ceil(maxMain / yStep) * yStep;
  const top = 30;
  const ys = (ms) => top + topH - (topH * ms) / yMax;
  text(x0, 18, d.untimed ? "Time used so far (untimed)" : "Main time left after each move", 'font-weight="bold"');
  for (let v = 0; v <= yMax; v += yStep) {
    line(x0, ys(v), x1, ys(v), 'stroke="#ddd"');
    text(x0 - 6, ys(v) + 4, d.untimed ? leftText(v) : leftText(v), 'text-anchor="end" font-size="12"');
  }
  const mStep = moveStep(d.last);
  const ticks = (y) => {
    for (let n = 0; n <= d.last; n += mStep) {
      line(xs(n), y, xs(n), y + 4, 'stroke="#555"');
      text(xs(n), y + 16, n, 'text-anchor="middle" font-size="12"');
    }
  };
  line(x0, top + topH, x1, top + topH, 'stroke="#555"');
  ticks(top + topH);
  for (const side of ["black", "white"]) {
    const pts = d.main[side];
    if (!pts.length) continue;
    const c = COLOURS[side];
    parts.push(
      `<polyline fill="none" stroke="${c}" stroke-width="2.5" data-side="${side}" points="${pts
        .map((p) => `${xs(p[0]).toFixed(1)},${ys(p[1]).toFixed(1)}`)
        .join(" ")}"/>`,
    );
    for (const [n, ms] of pts) {
      if (side === "black") parts.push(`<circle cx="${xs(n).toFixed(1)}" cy="${ys(ms).toFixed(1)}" r="3.5" fill="${c}"/>`);
      else parts.push(`<rect x="${(xs(n) - 3.5).toFixed(1)}" y="${(ys(ms) - 3.5).toFixed(1)}" width="7" height="7" fill="#fff" stroke="${c}" stroke-width="2"/>`);
    }
  }
  // Marks between moves, across the main panel.
  const stacked = new Map(); // marks at the same place: their letters one below the other
  for (const [x, letter, kind] of d.marks) {
    const k = (stacked.get(x) ?? -1) + 1;
    stacked.set(x, k);
    const colour = letter === "F" || letter === "X" ? "#c00000" : "#6a5acd";
    line(xs(x), top, xs(x), top + topH, `stroke="${colour}" stroke-dasharray="3 3" data-mark="${kind}"`);
    text(xs(x) + 3, top + 12 + 14 * k, letter, `font-size="12" font-weight="bold" fill="${colour}"`);
  }

  if (hasOver) {
    const bt = top + topH + 60;
    const maxOver = Math.max(1000, ...["black", "white"].flatMap((s) => d.over[s].map((p) => p[1])));
    const oStep = niceStep(maxOver);
    const oMax = Math.ceil(maxOver / oStep) * oStep;
    const yo = (ms) => bt + botH - (botH * ms) / oMax;
    const what = d.type === "canadian" ? "block" : "period";
    text(x0, bt - 14, `Overtime: left of the ${what} at each move (${d.type === "canadian" ? "moves" : "periods"} left above)`, 'font-weight="bold"');
    for (let v = 0; v <= oMax; v += oStep) {
      line(x0, yo(v), x1, yo(v), 'stroke="#ddd"');
      text(x0 - 6, yo(v) + 4, leftText(v), 'text-anchor="end" font-size="12"');
    }
    line(x0, bt + botH, x1, bt + botH, 'stroke="#555"');
    ticks(bt + botH);
    const bw = Math.max(3, Math.min(14, ((x1 - x0) / d.end) * 0.6));
    for (const side of ["black", "white"]) {
      const c = COLOURS[side];
      for (const [n, ms, count] of d.over[side]) {
        const fill = side === "black" ? c : "#fff";
        parts.push(
          `<rect data-over="${side}" x="${(xs(n) - bw / 2).toFixed(1)}" y="${yo(ms).toFixed(1)}" width="${bw.toFixed(1)}" height="${(bt + botH - yo(ms)).toFixed(1)}" fill="${fill}" stroke="${c}" stroke-width="2"/>`,
        );
        if (count != null) text(xs(n), yo(ms) - 4, count, `text-anchor="middle" font-size="11" fill="${c}"`);
      }
    }
  }
  text((x0 + x1) / 2, H - 6, "move", 'text-anchor="middle" font-size="12"');
  // The legend, top right.
  const lx = x1 - 120;
  parts.push(`<circle cx="${lx + 6}" cy="14" r="4" fill="${COLOURS.black}"/>`);
  text(lx + 14, 18, "Black", 'font-size="12"');
  parts.push(`<rect x="${lx + 62}" y="10" width="8" height="8" fill="#fff" stroke="${COLOURS.white}" stroke-width="2"/>`);
  text(lx + 76, 18, "White", 'font-size="12"');
  el.innerHTML = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" role="img" font-family="system-ui, sans-serif">${parts.join("")}</svg>`;
  const kinds = [...new Set(d.marks.map((m) => m[1]))];
  const names = { P: "P pause", A: "A time adjusted", L: "L lateness", R: "R ruling", F: "F the flag fell", X: "X forfeit" };
  return (
    "Black: dark line with dots; White: orange line with open squares." +
    (hasOver ? " Overtime is drawn apart, below: it never joins the main time." : "") +
    (kinds.length ? " Marks: " + kinds.map((k) => names[k]).join(", ") + "." : "")
  );
}
