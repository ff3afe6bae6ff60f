"""The hall's payloads, as pure functions (the lead's hall contract, docs/hall.md once it
lands): topic names, the state message, log slices, and which commands the hall may send.

No I/O here: hall.py publishes what these build, and the tests check them directly.
"""

import re

from goclockfw.net.hall import ALLOWED as _FIRMWARE_ALLOWED
from goclockfw.net.hall import NOT_ALLOWED
from goclockfw.protocol import strictjson
from goclockfw.storage import logline

from ..link.client import MAX_REQUEST

NAME = re.compile(r"^[a-z0-9_-]{1,32}$")
VERSION_ROOT = "goclock/v1"

# What the hall may ask over MQTT (everything else is refused) and the refusal's words: the
# firmware's own (net/hall.py), so the bridge publishing for a clock without Wi-Fi refuses
# exactly what a clock on Wi-Fi refuses (the import opens nothing and loads no socket).
# `log.resend` is the hall's word to the publisher itself, which the clock's MQTT client
# answers before its whitelist (net/hall.py) and the bridge answers in its place.
ALLOWED = frozenset(_FIRMWARE_ALLOWED) | {"log.resend"}

TIME_FIELDS = ("main_ms", "period_ms", "spent_ms")
ASSIGNMENT = ("event", "round", "table", "black_name", "white_name", "handicap")


def check_name(what, value):
    if not isinstance(value, str) or not NAME.match(value):
        raise ValueError("the %s name must be 1-32 of a-z 0-9 _ - (got %r)" % (what, value))
    return value


def root(hall, clock):
    return "%s/%s/%s" % (VERSION_ROOT, check_name("hall", hall), check_name("clock", clock))


def topic(hall, clock, leaf):
    return root(hall, clock) + "/" + leaf


def shape(status):
    """A status without its running times: what counts as a change of state."""
    out = {}
    for k, v in status.items():
        if k in ("black", "white") and isinstance(v, dict):
            v = {f: x for f, x in v.items() if f not in TIME_FIELDS}
        if k not in ("event", "id", "ok"):
            out[k] = v
    return out


def state_payload(status, assignment, t, utc, seq):
    """The retained state: the status fields, the assignment, `t`, `utc` and `seq`."""
    msg = {
        k: status.get(k)
        for k in ("state", "turn", "black", "white", "time_control", "game", "moves")
    }
    for k in ASSIGNMENT:
        msg[k] = (assignment or {}).get(k)
    msg["t"] = t
    msg["utc"] = utc
    msg["seq"] = seq
    return msg


def assignment_of(config):
    """The game's details from the clock's config (`game_info`, when the firmware has it)."""
    info = (config or {}).get("game_info")
    if not isinstance(info, dict):
        return {}
    return {
        "event": info.get("event"),
        "round": info.get("round"),
        "table": info.get("table"),
        "black_name": info.get("black"),
        "white_name": info.get("white"),
        "handicap": info.get("handicap"),
    }


def is_record(line):
    """A record line of a served log (bytes, newline included), not a line of progress
    marks alone (marks may begin a record's line)."""
    return logline.after_marks(line).startswith(b"{")


def slices(data, offset, rec):
    """Cut served log bytes into the hall's slices: each ends with a record line and holds
    the marks before it. `data` starts at byte `offset` of the served log, after record
    number `rec`. Returns ([(rec, offset, bytes)], bytes used): what follows the last whole
    record line is left for later."""
    out = []
    start = 0
    pos = 0
    while True:
        end = data.find(b"\n", pos)
        if end < 0:
            break
        line = data[pos : end + 1]
        pos = end + 1
        if is_record(line):
            rec += 1
            out.append((rec, offset + start, bytes(data[start:pos])))
            start = pos
    return out, start


def slice_payload(rec, offset, body):
    return b"%d %d\n" % (rec, offset) + body


def check_cmd(payload):
    """A hall command's payload -> (request dict, None) or (None, the error reply)."""
    if len(payload) > MAX_REQUEST:
        return None, {"id": None, "ok": False, "error": "request over %d bytes" % MAX_REQUEST}
    try:
        req = strictjson.loads(bytes(payload))
    except ValueError as exc:
        return None, {"id": None, "ok": False, "error": "bad JSON: %s" % exc}
    if not isinstance(req, dict):
        return None, {"id": None, "ok": False, "error": "a request must be a JSON object"}
    rid = req.get("id")
    if not (rid is None or type(rid) is int or isinstance(rid, str)):
        return None, {"id": None, "ok": False, "error": "'id' must be an integer or a string"}
    cmd = req.get("cmd")
    if not isinstance(cmd, str):
        return None, {"id": rid, "ok": False, "error": "missing 'cmd'"}
    if cmd not in ALLOWED:
        return None, {"id": rid, "ok": False, "error": NOT_ALLOWED}
    return req, None


def reset_refusal(req, state):
    """Over the network a reset never ends a game by surprise: a paused game needs
    `"confirm": true` (there is nobody to ask), a running one is refused by the clock."""
    if state == "paused" and req.get("confirm") is not True:
        return {
            "id": req.get("id"),
            "ok": False,
            "error": 'a game is paused on the clock: resetting it needs "confirm": true',
        }
    return None
