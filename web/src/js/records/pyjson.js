// Python's json.dumps(obj, ensure_ascii=False[, sort_keys=True]) in its default, compact-less
// form (", " and ": "), for exports that must match the host tool's bytes. Strings are
// escaped as Python escapes them with ensure_ascii=False, which is what JSON.stringify does.

export function pyDumps(v, { sortKeys = false } = {}) {
  if (v === null || v === undefined) return "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : v > 0 ? "Infinity" : v < 0 ? "-Infinity" : "NaN";
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return "[" + v.map((x) => pyDumps(x, { sortKeys })).join(", ") + "]";
  let keys = Object.keys(v);
  if (sortKeys) keys = keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return "{" + keys.map((k) => JSON.stringify(k) + ": " + pyDumps(v[k], { sortKeys })).join(", ") + "}";
}
