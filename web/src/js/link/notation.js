// goclock's time-control notation ("byo 30m+3x30s", "fischer 5m+10s") read by the host
// tool's own parser: `goclock web` answers POST /notation (host/goclock/web/tcnotation.py)
// with the JSON form or the same refusal `goclock config set` gives. There is no
// JavaScript copy of the notation's rules; a page served elsewhere takes the JSON form.
import { bridgeInfo } from "./clocklink.js";

let token; // this run's API token of goclock web; null when another server served the page

/** True when the text is the JSON form, which the page reads itself. */
export function isJsonForm(text) {
  return text.trim().startsWith("{");
}

/** {ok, time_control, text} or {ok: false, error} for a notation string. */
export async function readNotation(text) {
  if (token === undefined) token = (await bridgeInfo()).api_token || null;
  if (!token) {
    return {
      ok: false,
      error:
        "goclock's notation is read by `goclock web`, which did not serve this page: " +
        "type the JSON form or pick a preset",
    };
  }
  let r;
  try {
    r = await fetch("notation", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Goclock-Token": token },
      body: JSON.stringify({ text }),
    });
  } catch (e) {
    return { ok: false, error: "goclock web did not answer: " + e.message };
  }
  if (!r.ok) return { ok: false, error: `goclock web answered ${r.status}` };
  return r.json();
}
