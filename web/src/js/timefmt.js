// Times as the clock shows them (the lead's rounding rule, README "Rounding"): a time LEFT
// rounded UP to the whole second (0:00 only when it is gone), a time USED rounded DOWN.
// The one JavaScript helper for it (goclockfw/timetext.py is Python's): every page writes
// times through these.

function hms(s) {
  const h = Math.floor(s / 3600);
  const m = Math.floor(s / 60) % 60;
  const sec = s % 60;
  const mm = h ? String(m).padStart(2, "0") : String(m);
  return (h ? h + ":" : "") + mm + ":" + String(sec).padStart(2, "0");
}

/** A time left (ms) as [h:]m:ss, rounded up. */
export function left(ms) {
  if (ms == null) return "";
  return hms(Math.max(0, Math.ceil(ms / 1000)));
}

/** A time used or counted up (ms) as [h:]m:ss, rounded down (a sign kept below 0). */
export function used(ms) {
  if (ms == null) return "";
  if (ms < 0) return "-" + used(-ms);
  return hms(Math.floor(ms / 1000));
}
