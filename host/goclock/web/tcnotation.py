"""The configurator's notation, read by the host tool's own parser (POST /notation).

`goclock config set byo 30m+3x30s` and the page must read a notation the same way, with
the same words when it is wrong ("unknown time control 'fisher' — did you mean fischer?").
That parser is CPython's (fractions, difflib, look-behind patterns MicroPython's `re` lacks),
so the page asks the server that served it; the JSON it gets back is then checked again by
the firmware's own timecontrol in the page, and by the clock when it is set. A page served
by a plain static server takes the JSON form and the clock's presets only, and says so.
"""

from ..errors import GoclockError
from ..timecontrol import notation

MAX_TEXT = 200  # far longer than any notation; a longer text is not one


def read(text):
    """{"ok": True, "time_control": …, "text": the notation as goclock writes it} or
    {"ok": False, "error": …}."""
    if not isinstance(text, str) or not text.strip():
        return {"ok": False, "error": "no time control given"}
    if len(text) > MAX_TEXT:
        return {"ok": False, "error": "a time control is at most %d characters" % MAX_TEXT}
    try:
        tc = notation.parse(text)
    except GoclockError as exc:
        return {"ok": False, "error": str(exc)}
    return {"ok": True, "time_control": tc, "text": notation.format(tc)}
