"""One format for everything the clock reports: protocol event lines, game-log records and
`goclock simulate` output are the same JSON object, built here.

    {"event":"press","t":65000,"side":"black","used_ms":65000,"move":1,"main_ms":0,...}

Fields, in this order: `event` (the kind), `t` (game time in ms), `side` (when the event
has one), the kind's value field (VALUE_FIELDS), then what the kind carries beside it:
the move's number for a press (`move`, from 1), `late_ms` for an arrival, the side's
status after the event for STATUS_KINDS (main_ms, flagged, then periods, moves,
period_ms, points, spent_ms as the time control has them), and any extra fields the caller adds. The game log appends its checksum (storage/logline.py). The table
of kinds is in docs/protocol.md.

`EventWriter` writes one object into a buffer it keeps, digit by digit and through a small
cache of encoded strings, so a press or a call allocates nothing once the cache is warm;
the bytes are the same on CPython and MicroPython (no dict ordering, no json spacing).
"""

import json

from goclockfw.bytesops import slices
from goclockfw.core.timecontrol import SIDE_NAMES

# The field that carries each kind's value; "value" for a kind not listed.
VALUE_FIELDS = {
    "press": "used_ms",
    "call": "phrase",
    "period": "left",
    "ruling": "ruling",
    "forfeit": "reason",
    "arrive": "charged_ms",
    "block": "moves",
    "ignored": "reason",
    "end": "reason",
    "penalty": "points",
}
# Kinds that carry the side's status as the event leaves it.
STATUS_KINDS = ("press", "adjust", "block")
# Status fields, in the order they are written (a time control has only some of them):
# `points` is an Ing side's penalty so far, `spent_ms` an untimed side's clock's total.
STATUS_FIELDS = ("main_ms", "flagged", "periods", "moves", "period_ms", "points", "spent_ms")

_HEX = b"0123456789abcdef"
_ALL = slices[0:]  # made once: `line[0:]` would build a slice object each time


def _json_str(s):
    e = s.encode()
    for b in e:
        if b < 0x20 or b == 0x22 or b == 0x5C:
            return json.dumps(s).encode()
    return b'"' + e + b'"'


class EventWriter:
    """Builds event objects in one buffer (`line`) that keeps its allocation."""

    def __init__(self, size=256):
        self.line = bytearray(size)
        self._enc = {}  # str -> its JSON bytes

    # ----- pieces ---------------------------------------------------------

    def put_str(self, s):
        b = self._enc.get(s)
        if b is None:
            b = _json_str(s)
            if len(self._enc) < 64:
                self._enc[s] = b
        self.line.extend(b)

    def put_int(self, n):
        line = self.line
        if n < 0:
            line.append(45)
            n = -n
        i = len(line)
        while True:
            line.append(48 + n % 10)
            n //= 10
            if not n:
                break
        j = len(line) - 1
        while i < j:  # the digits came out backwards
            a = line[i]
            line[i] = line[j]
            line[j] = a
            i += 1
            j -= 1

    def put_hex32(self, c):
        for shift in (28, 24, 20, 16, 12, 8, 4, 0):
            self.line.append(_HEX[(c >> shift) & 15])

    def put_value(self, v):
        if v is None:
            self.line.extend(b"null")
        elif v is True:
            self.line.extend(b"true")
        elif v is False:
            self.line.extend(b"false")
        elif isinstance(v, int):
            self.put_int(v)
        elif isinstance(v, str):
            self.put_str(v)
        elif isinstance(v, float) and v - v != 0:
            # inf/nan have no JSON form (x - x is 0 only for a finite x; no float constant,
            # which a 32-bit port could not even hold)
            self.line.extend(b"null")
        elif isinstance(v, dict):
            # Keys sorted: the same bytes on every interpreter (dict order differs).
            self.line.append(123)  # "{"
            first = True
            for k in sorted(v):
                if not first:
                    self.line.append(44)
                first = False
                self.put_str(k if isinstance(k, str) else str(k))
                self.line.append(58)
                self.put_value(v[k])
            self.line.append(125)
        elif isinstance(v, (list, tuple)):
            self.line.append(91)  # "["
            for i in range(len(v)):
                if i:
                    self.line.append(44)
                self.put_value(v[i])
            self.line.append(93)
        else:
            self.line.extend(json.dumps(v).encode())

    def field(self, key, v):
        """`,"key":value` after what is written so far."""
        self.line.append(44)  # ","
        self.put_str(key)
        self.line.append(58)  # ":"
        self.put_value(v)

    def status(self, key, st):
        """A side's status dict (STATUS_FIELDS order) under `key`, or flat when key is None."""
        if key is not None:
            self.line.append(44)
            self.put_str(key)
            self.line.extend(b":{")
        first = True
        for k in STATUS_FIELDS:
            if k in st:
                if key is not None and first:
                    self.put_str(k)
                    self.line.append(58)
                    self.put_value(st[k])
                else:
                    self.field(k, st[k])
                first = False
        if key is not None:
            self.line.append(125)

    # ----- whole events ------------------------------------------------------

    def begin(self, kind, t, side=None):
        """Start an event: `{"event":kind,"t":t[,"side":...]` (no closing brace yet)."""
        line = self.line
        line[_ALL] = b""  # empties it, keeping the allocation
        line.extend(b'{"event":')
        self.put_str(kind)
        line.extend(b',"t":')
        self.put_int(t)
        if side is not None and 0 <= side <= 1:
            line.extend(b',"side":')
            self.put_str(SIDE_NAMES[side])

    def end(self):
        self.line.append(125)  # "}"

    def event(self, kind, t, side=None, value=None, extra=None):
        """A whole event: the value under its field, then `extra` (a dict, or a list of
        (key, value) pairs to keep their order on every interpreter)."""
        self.begin(kind, t, side)
        if value is not None:
            self.field(VALUE_FIELDS.get(kind, "value"), value)
        if extra:
            if isinstance(extra, dict):
                for k in extra:
                    self.field(k, extra[k])
            else:
                for k, v in extra:
                    self.field(k, v)
        self.end()
        return self.line

    def clock_event(self, clock, kind, side, t, tick, value, extra=None):
        """A clock listener call (kind, side, tick, value) as an event at game time `t`:
        with the side's status for STATUS_KINDS and the lateness for an arrival."""
        self.begin(kind, t, side)
        if value is not None:
            self.field(VALUE_FIELDS.get(kind, "value"), value)
        if kind == "press":
            self.field("move", clock.moves_made)  # numbered from 1: a replayed move shows
        elif kind == "arrive":
            self.field("late_ms", clock.last_late_ms)
        if kind in STATUS_KINDS:
            self.status(None, clock.status_into(side, tick))
        if extra:
            for k, v in extra:
                self.field(k, v)
        self.end()
        return self.line
