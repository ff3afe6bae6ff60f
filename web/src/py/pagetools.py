"""The firmware's own checks, for the web pages (MicroPython WebAssembly, js/firmware.js).

Every function takes and returns JSON text, so the page never copies a rule: a time
control is read with the clock's strict JSON reader and checked by the clock's
`timecontrol.parse`, a game log by the clock's `logline.verify`. This file is the page's,
not the clock's; the modules it imports are the firmware's, unchanged (firmware.json).
"""

import json

from goclockfw.app import tctext
from goclockfw.core import timecontrol
from goclockfw.protocol import strictjson
from goclockfw.storage import logline


def check_time_control(text):
    """{"ok": true, "time_control": normalised, "text": "byo 1h+5x30s"} or {"error": ...}."""
    try:
        obj = strictjson.loads(text)
    except ValueError as exc:
        return json.dumps({"error": "bad JSON: %s" % exc})
    try:
        tc = timecontrol.parse(obj).to_json()
    except timecontrol.ConfigError as exc:
        return json.dumps({"error": str(exc)})
    return json.dumps({"ok": True, "time_control": tc, "text": tctext.text(tc)})


def describe(text):
    """The notation of a time control already checked (presets, the stored config)."""
    try:
        return tctext.text(json.loads(text))
    except Exception:  # a form this firmware cannot write: the page shows the JSON
        return ""


def verify_log(hexdata):
    """The chain check of a log's bytes (hex): ok, errors [[line, message]], torn, cut."""
    import binascii

    out = logline.verify_bytes(binascii.unhexlify(hexdata))
    return json.dumps(
        {
            "ok": out["ok"],
            "errors": [list(e) for e in out["errors"]],
            "torn": out["torn"],
            "cut": out["cut"],
            "records": len(out["records"]),
        }
    )
