// A game's times written into its SGF, as `goclock logs sgf --merge` does: the host's
// records/sgfmerge.py (what goes where) and the way sgfmill reads and writes a game (its
// parse tree, properties sorted with FF first, lines wrapped at 79 bytes) written again
// here; tests/web/test_logs.py proves the same bytes for the same log and SGF. Property
// values are kept as their raw bytes (a "binary" string: one char per byte), so any
// encoding passes through as sgfmill passes it.

const COLOUR = { b: "black", w: "white" };
const OVERTIME_COUNT = { byoyomi: "periods", ing: "periods", canadian: "moves" };

export class SgfError extends Error {}

function tokenise(s) {
  const start = /\(\s*;/.exec(s);
  if (!start) return [];
  const re = /\s*(?:\[((?:[^\\\]]|\\[\s\S])*)\]|([A-Za-z]{1,64})|([;()]))/y;
  re.lastIndex = start.index;
  const out = [];
  let depth = 0;
  for (;;) {
    const m = re.exec(s);
    if (!m) break;
    if (m[1] !== undefined) out.push(["V", m[1]]);
    else if (m[2] !== undefined) out.push(["I", m[2].replace(/[a-z]/g, "")]);
    else {
      out.push(["D", m[3]]);
      if (m[3] === "(") depth++;
      else if (m[3] === ")" && --depth === 0) break;
    }
  }
  return out;
}

function parseCoarse(s) {
  const tokens = tokenise(s);
  if (!tokens.length) throw new SgfError("no SGF data found");
  const stack = [];
  let tree = null;
  let seq = null;
  let props = null;
  let variation = null;
  let i = 0;
  const next = () => {
    if (i >= tokens.length) throw new SgfError("unexpected end of SGF data");
    return tokens[i++];
  };
  for (;;) {
    const [type, tok] = next();
    if (type === "V") throw new SgfError("unexpected value");
    if (type === "D") {
      if (tok === ";") {
        if (seq === null) throw new SgfError("unexpected node");
        props = new Map();
        seq.push(props);
      } else {
        if (seq !== null) {
          if (!seq.length) throw new SgfError("empty sequence");
          tree.sequence = seq;
          seq = null;
        }
        if (tok === "(") {
          stack.push(tree);
          tree = { sequence: [], children: [] };
          seq = [];
        } else {
          variation = tree;
          tree = stack.pop();
          if (tree === null) break;
          tree.children.push(variation);
        }
        props = null;
      }
    } else {
      const values = [];
      while (i < tokens.length && tokens[i][0] === "V") values.push(tokens[i++][1]);
      if (i >= tokens.length) throw new SgfError("unexpected end of SGF data");
      if (!values.length) throw new SgfError("property with no values");
      if (props === null) throw new SgfError("property value outside a node");
      if (props.has(tok)) props.get(tok).push(...values);
      else props.set(tok, values);
    }
  }
  return variation;
}

/** The node tree (each {props, children}) of the first game in `s`. */
function toNodes(coarse) {
  const build = (tree, parent) => {
    let last = parent;
    for (const props of tree.sequence) {
      const node = { props, children: [] };
      if (last) last.children.push(node);
      else parent = node;
      last = node;
    }
    for (const child of tree.children) build(child, last);
    return parent;
  };
  return build(coarse, null);
}

function serialise(root, wrap = 79) {
  const pieces = [];
  const todo = [root];
  while (todo.length) {
    let node = todo.pop();
    if (node === null) {
      pieces.push(")");
      continue;
    }
    pieces.push("(");
    for (;;) {
      pieces.push(";");
      const keys = [...node.props.keys()].sort((a, b) => {
        const fa = a === "FF" ? 0 : 1;
        const fb = b === "FF" ? 0 : 1;
        return fa - fb || (a < b ? -1 : a > b ? 1 : 0);
      });
      for (const k of keys) pieces.push(k + node.props.get(k).map((v) => "[" + v + "]").join(""));
      if (node.children.length !== 1) break;
      node = node.children[0];
    }
    todo.push(null);
    for (let c = node.children.length - 1; c >= 0; c--) todo.push(node.children[c]);
  }
  pieces.push("\n");
  const lines = [];
  let line = "";
  for (const p of pieces) {
    if (line.length + p.length > wrap) {
      lines.push(line);
      line = "";
    }
    line += p;
  }
  if (line) lines.push(line);
  return lines.join("\n");
}

function seconds(ms) {
  return (ms / 1000).toFixed(3).replace(/0+$/, "").replace(/\.$/, "");
}

function pySecondsText(v) {
  return Number.isInteger(v) ? String(v) : String(v);
}

/** sgfroot.root_properties: [TM, OT] texts (null: the root should not have it). */
export function rootProperties(tc) {
  const kind = tc.type;
  if (kind === "untimed") return [null, null];
  const tm = pySecondsText(tc.main ?? 0);
  let ot = null;
  if (kind === "byoyomi" && tc.periods) ot = `${tc.periods}x${pySecondsText(tc.period)} byo-yomi`;
  else if (kind === "canadian") ot = `${tc.moves}/${pySecondsText(tc.period)} Canadian`;
  else if (kind === "fischer") ot = `${pySecondsText(tc.increment)} fischer`;
  else if (kind === "delay" && (tc.mode ?? "bronstein") === "bronstein" && !tc.main) ot = `${pySecondsText(tc.delay)} simple`;
  else if (kind === "delay") ot = `${pySecondsText(tc.delay)} ${tc.mode ?? "bronstein"} delay`;
  else if (kind === "ing") ot = `${tc.periods}x${pySecondsText(tc.period ?? 0)} Ing, ${tc.penalty ?? 2} points`;
  else if (kind === "hourglass") ot = "hourglass";
  return [tm, ot];
}

export function timeProperties(type, left) {
  const main = left.main_ms;
  if (main) return [seconds(main), null];
  const count = OVERTIME_COUNT[type];
  if (count && count in left) return [seconds(left.period_ms ?? 0), left[count]];
  if ("period_ms" in left) return [seconds(left.period_ms), null];
  return [seconds(main || 0), null];
}

const escapeText = (s) => s.replace(/([\\\]])/g, "\\$1");

/** Bytes of the SGF `sgfBytes` with the times of `record` (a GameRecord), and the summary. */
export function mergeSgf(record, sgfBytes) {
  if (record.moves.length && !record.moves.every((m) => Object.keys(m.left).length)) {
    throw new SgfError(`${record.name}: the press records carry no time left, so there is nothing to write as BL/WL`);
  }
  const text = Array.from(sgfBytes, (b) => String.fromCharCode(b)).join("");
  const root = toNodes(parseCoarse(text));
  const tc = record.time_control || {};
  if (tc.type) {
    const [tm, ot] = rootProperties(tc);
    if (tm !== null) root.props.set("TM", [tm]);
    else root.props.delete("TM");
    if (ot !== null) root.props.set("OT", [escapeText(ot)]);
    else root.props.delete("OT");
  }
  const main = [];
  for (let n = root; n; n = n.children[0]) main.push(n);
  const moveOf = (n) => (n.props.has("B") ? "b" : n.props.has("W") ? "w" : null);
  let nodes = main.filter((n) => moveOf(n) !== null);
  const moves = record.moves;
  const skip = moves.length ? moves[0].n - 1 : 0;
  nodes = nodes.slice(skip);
  let timed = 0;
  const both = Math.min(nodes.length, moves.length);
  for (let k = 0; k < both; k++) {
    const colour = COLOUR[moveOf(nodes[k])];
    const move = moves[k];
    if (colour !== move.side) {
      const cap = (s) => s[0].toUpperCase() + s.slice(1);
      throw new SgfError(
        `move ${k + skip + 1} is ${cap(colour)}'s in the SGF but ${cap(move.side)}'s on the clock: they are not the same game ` +
          "(or a move is missing from one of them); nothing written",
      );
    }
    if (tc.type === "untimed") continue;
    const [leftText, count] = timeProperties(tc.type, move.left);
    const letter = colour === "black" ? "B" : "W";
    nodes[k].props.set(letter + "L", [leftText]);
    if (count !== null) nodes[k].props.set("O" + letter, [String(Math.trunc(count))]);
    timed++;
  }
  let mismatch = null;
  if (nodes.length !== moves.length) {
    mismatch = `the SGF has ${nodes.length + skip} moves and the clock log ${moves.length + skip}: times written on the first ${both + skip} only`;
  } else if (tc.type === "untimed" && both) {
    mismatch =
      "an untimed game: SGF has no property for the time a move took, so no BL/WL were written (goclock logs export has every move's time)";
  }
  const out = serialise(root);
  const bytes = new Uint8Array(out.length);
  for (let i = 0; i < out.length; i++) bytes[i] = out.charCodeAt(i);
  return { bytes, timed, mismatch, sgf_moves: nodes.length + skip, log_moves: moves.length + skip };
}
