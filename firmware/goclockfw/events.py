"""One format for everything the clock reports: protocol event lines, game-log records and
`goclock simulate` output are the same JSON object, built here.

    {"event":"press","t":65000,"side":"black","used_ms":65000,"move":1,"main_ms":0,...}

Fields, in this order: `event` (the kind), `t` (game time in ms), `side` (when the event
has one), the kind's value field (VALUE_FIELDS), then what the kind carries beside it:
the move's number for a press (`move`, from 1), `late_ms` for an arrival, the side's
status after the event for STATUS_KINDS (main_ms, flagged, then periods, moves,
period_ms, points, spent_ms as the time control has them), and any extra fields the caller adds. The game log appends its checksum (storage/logline.py). The table
of kinds is in docs/protocol.md.

`EventWriter` writes one object into a buffer it keeps (`buf`, the line is its first `n`
bytes), so a press or a call allocates nothing: the bytes are the same on CPython and
MicroPython (no dict ordering, no json spacing). A clock event is written from a
*template*: the line of its shape (kind, side, the fields its time control gives) with a
marker byte where each number goes (jsontext.py), made once per shape and filled in by
one viper call, so the press's record costs a few list stores, not a field at a time.
Anything else (values of other types, extra fields) is written field by field.
"""

import json

from goclockfw.bytesops import copy
from goclockfw.core.gameclock import STATUS_FIELDS as STATUS_FIELDS  # the format's own
from goclockfw.core.timecontrol import SIDE_NAMES
from goclockfw.jsontext import BOOL, INT, TEXT, put_int, render

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
# Kinds whose line reads the clock's state beyond the event's own arguments (the move's
# number, the lateness, the status): a line made later must be made before it changes.
CLOCK_STATE_KINDS = ("press", "arrive", "adjust", "block")
_STATES = ("idle", "running", "paused", "ended")  # gameclock's states, by number in shapes
# Fields in a status mask: the number of bits set in each 7-bit value. Written out, so that
# it is a constant (in flash when frozen), not 128 bytes built in the heap at import.
_NBITS = (
    b"\x00\x01\x01\x02\x01\x02\x02\x03\x01\x02\x02\x03\x02\x03\x03\x04"
    b"\x01\x02\x02\x03\x02\x03\x03\x04\x02\x03\x03\x04\x03\x04\x04\x05"
    b"\x01\x02\x02\x03\x02\x03\x03\x04\x02\x03\x03\x04\x03\x04\x04\x05"
    b"\x02\x03\x03\x04\x03\x04\x04\x05\x03\x04\x04\x05\x04\x05\x05\x06"
    b"\x01\x02\x02\x03\x02\x03\x03\x04\x02\x03\x03\x04\x03\x04\x04\x05"
    b"\x02\x03\x03\x04\x03\x04\x04\x05\x03\x04\x04\x05\x04\x05\x05\x06"
    b"\x02\x03\x03\x04\x03\x04\x04\x05\x03\x04\x04\x05\x04\x05\x05\x06"
    b"\x03\x04\x04\x05\x04\x05\x05\x06\x04\x05\x05\x06\x05\x06\x06\x07"
)
INT_ROOM = 12  # the longest decimal a small int writes ("-" and 10 digits), and a comma
MAX_TEMPLATES = 48  # clock event shapes kept (a game uses a dozen or so)
MAX_CACHED = 128  # encoded strings kept, by all writers together (names, call phrases)
# str -> its JSON bytes, shared by every writer: the log's, the events', the replies' write
# the same names and phrases, and each kept its own copies (176 B more free in a game).
_ENCODED = {}
# The numbers of the line being made, filled and rendered in one call: one list for every
# writer (nothing writes two lines at once).
_INTS = [0] * 16


def _json_str(s):
    e = s.encode()
    for b in e:
        if b < 0x20 or b == 0x22 or b == 0x5C:
            return json.dumps(s).encode()
    return b'"' + e + b'"'


class EventWriter:
    """Builds event objects in one buffer (`buf`, of which the first `n` bytes are the line)
    that keeps its allocation; it grows only for a line longer than it (a config record)."""

    def __init__(self, size=256, keep=True):
        self.buf = bytearray(size)
        self.size = size  # what `give_back` returns the buffer to
        self.n = 0
        self._enc = _ENCODED  # str -> its JSON bytes (shared)
        # Whether a value's text is kept once encoded, as names always are (`put_name`).
        # The protocol's replies do not keep theirs: a config's values and keys, a preset's
        # names, come back rarely and held 1-2 KB of an RP2040's heap (MAX_CACHED of them).
        self._keep = keep
        self._tpl = {}  # a clock event's shape (a small int) -> (kind, template, its ints)
        self._kinds = {}  # kind -> its number in the shapes (1 ..)
        self._ints = _INTS  # a clock event's numbers, in its template's order (shared)
        # ... and its strings, encoded: a clock event's side and value; the status's state,
        # side to move and time control
        self._strs = [None, None, None]

    @property
    def line(self):
        """The line written (a view of the buffer: valid until the next write)."""
        return memoryview(self.buf)[: self.n]

    def reset(self):
        self.n = 0

    def _room(self, k):
        """Room for `k` more bytes: the buffer doubled when it has not (rare: allocates)."""
        if self.n + k > len(self.buf):
            size = 2 * len(self.buf)
            while size < self.n + k:
                size *= 2
            bigger = bytearray(size)
            copy(bigger, 0, self.buf, 0, self.n)
            self.buf = bigger

    def give_back(self):
        """The buffer back to its first size once a long line (a snapshot record, a long
        reply) grew it: it would stay grown for good, and the log's writer hands its buffer
        round the held records' slots (app/records.py), so each long record left one more
        buffer grown. A new buffer (allocates): call it where allocating is fine."""
        if len(self.buf) > self.size:
            self.buf = bytearray(self.size)

    # ----- pieces ---------------------------------------------------------

    def put_bytes(self, b):
        k = len(b)
        if self.n + k > len(self.buf):
            self._room(k)
        copy(self.buf, self.n, b, 0, k)
        self.n += k

    def put_byte(self, c):
        if self.n >= len(self.buf):
            self._room(1)
        self.buf[self.n] = c
        self.n += 1

    def encoded(self, s):
        """The JSON bytes of string `s` (kept for the strings that come back)."""
        b = self._enc.get(s)
        if b is None:
            b = _json_str(s)
            if len(self._enc) < MAX_CACHED:
                self._enc[s] = b
        return b

    def put_str(self, s):
        if self._keep:
            self.put_bytes(self.encoded(s))
        else:
            self.put_bytes(self._enc.get(s) or _json_str(s))

    def put_name(self, s):
        """A member's name: kept once encoded (the names a clock writes are few)."""
        self.put_bytes(self.encoded(s))

    def put_int(self, v):
        if self.n + INT_ROOM > len(self.buf):
            self._room(INT_ROOM)
        self.n = put_int(self.buf, self.n, v)

    def put_value(self, v):
        if v is None:
            self.put_bytes(b"null")
        elif v is True:
            self.put_bytes(b"true")
        elif v is False:
            self.put_bytes(b"false")
        elif isinstance(v, int):
            if -0x3FFFFFFF <= v <= 0x3FFFFFFF:
                self.put_int(v)
            else:  # beyond a small int (a time of day in ms): as text, allocating
                self.put_bytes(b"%d" % v)
        elif isinstance(v, str):
            self.put_str(v)
        elif isinstance(v, float) and v - v != 0:
            # inf/nan have no JSON form (x - x is 0 only for a finite x; no float constant,
            # which a 32-bit port could not even hold)
            self.put_bytes(b"null")
        elif isinstance(v, dict):
            # Keys sorted: the same bytes on every interpreter (dict order differs).
            self.put_byte(123)  # "{"
            first = True
            for k in sorted(v):
                if not first:
                    self.put_byte(44)
                first = False
                self.put_str(k if isinstance(k, str) else str(k))
                self.put_byte(58)
                self.put_value(v[k])
            self.put_byte(125)
        elif isinstance(v, (list, tuple)):
            self.put_byte(91)  # "["
            for i in range(len(v)):
                if i:
                    self.put_byte(44)
                self.put_value(v[i])
            self.put_byte(93)
        else:
            self.put_bytes(json.dumps(v).encode())

    def field(self, key, v):
        """`,"key":value` after what is written so far."""
        self.put_byte(44)  # ","
        self.put_name(key)
        self.put_byte(58)  # ":"
        self.put_value(v)

    def status(self, key, st):
        """A side's status dict (STATUS_FIELDS order) under `key`, or flat when key is None."""
        if key is not None:
            self.put_byte(44)
            self.put_name(key)
            self.put_bytes(b":{")
        first = True
        for k in STATUS_FIELDS:
            if k in st:
                if key is not None and first:
                    self.put_name(k)
                    self.put_byte(58)
                    self.put_value(st[k])
                else:
                    self.field(k, st[k])
                first = False
        if key is not None:
            self.put_byte(125)

    # ----- whole events ------------------------------------------------------

    def begin(self, kind, t, side=None):
        """Start an event: `{"event":kind,"t":t[,"side":...]` (no closing brace yet)."""
        self.n = 0
        self.put_bytes(b'{"event":')
        self.put_name(kind)
        self.put_bytes(b',"t":')
        self.put_value(t)
        if side is not None and 0 <= side <= 1:
            self.put_bytes(b',"side":')
            self.put_bytes(_SIDE_JSON[side])

    def end(self):
        self.put_byte(125)  # "}"

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

    def clock_event(self, clock, kind, side, t, tick, value, extra=None, generic=False):
        """A clock listener call (kind, side, tick, value) as an event at game time `t`:
        with the side's status for STATUS_KINDS and the lateness for an arrival. From its
        shape's template when it has one (`generic`: field by field, as tests compare).

        The shape is one small int (the value's kind, the side, the status fields, the
        kind): a dict lookup finds the template, one viper call fills it in. A value that
        is not a small int or a string has no template (written field by field)."""
        if extra is None and not generic:
            tpl = self._shaped(clock, kind, side, t, tick, value)
            if tpl is not None:
                body = tpl[0]
                shape = tpl[2]
                need = tpl[1] + len(self._strs[(shape >> 9) & 1]) if shape & 3 == 2 else tpl[1]
                if need > len(self.buf):  # (the longest line it can write)
                    self.n = 0
                    self._room(need)
                self.n = render(self.buf, 0, body, len(body), self._ints, self._strs)
                return
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

    def prepare(self, clock, kind, side, tick, value=0):
        """Make the template the event `kind` of `side` would have now (its value an int
        as a press's, None, or a string as a call's phrase), ahead of it: the event then
        allocates nothing the first time (a reset, which allocates anyway, calls this for
        a game's start and both sides' press, call, byo-yomi and period). Nothing is
        written."""
        self._shaped(clock, kind, side, 0, tick, value)

    def _shaped(self, clock, kind, side, t, tick, value):
        """The template (body, longest line, shape) of a clock event, its numbers put in
        `_ints` (a string value in `_strs`); made and kept the first time its shape comes;
        None for a value without a template. The shape is one small int: the value's
        kind, the side, the status fields, the event's kind."""
        ints = self._ints
        ints[0] = t
        k = 1
        # The side is a string of the line, not part of its shape: one template serves
        # both sides (a game's reset makes five, not nine: 0.6 KB of an RP2040's heap).
        s = 0
        if side is not None and 0 <= side <= 1:
            self._strs[0] = _SIDE_JSON[side]
            s = 1
        if value is None:
            shape = 0
        elif type(value) is int and -0x3FFFFFFF <= value <= 0x3FFFFFFF:  # (not a bool)
            ints[1] = value
            k = 2
            shape = 1
        elif type(value) is str:
            self._strs[s] = self.encoded(value)
            shape = 2
        else:
            return None
        if kind == "press":
            ints[k] = clock.moves_made
            k += 1
            shape |= clock.status_values(side, tick, ints, k) << 2
        elif kind == "arrive":
            ints[k] = clock.last_late_ms
        elif kind == "adjust" or kind == "block":  # (STATUS_KINDS' others)
            shape |= clock.status_values(side, tick, ints, k) << 2
        shape |= s << 9
        kid = self._kinds.get(kind)
        if kid is None:
            if len(self._kinds) >= 63:
                return None
            kid = self._kinds[kind] = len(self._kinds) + 1
        key = (shape << 6) | kid
        tpl = self._tpl.get(key)
        if tpl is None:
            tpl = self._template(kind, shape) + (shape,)
            if len(self._tpl) < MAX_TEMPLATES:
                self._tpl[key] = tpl
        return tpl

    # ----- templates ------------------------------------------------------------

    def _template(self, kind, shape):
        """(template, the longest line it writes) of a clock event's shape: what
        `clock_event` writes field by field, with INT, BOOL and TEXT where its values go."""
        b = bytearray(b'{"event":')
        b.extend(self.encoded(kind))
        b.extend(b',"t":')
        b.append(INT)
        room = 0
        if shape & (1 << 9):
            b.extend(b',"side":')
            b.append(TEXT)
            room = _SIDE_ROOM
        if shape & 3:
            b.append(44)
            b.extend(self.encoded(VALUE_FIELDS.get(kind, "value")))
            b.append(58)
            b.append(INT if shape & 3 == 1 else TEXT)
        if kind == "press":
            b.extend(b',"move":')
            b.append(INT)
        elif kind == "arrive":
            b.extend(b',"late_ms":')
            b.append(INT)
        mask = (shape >> 2) & 127
        for i in range(len(STATUS_FIELDS)):
            if mask & (1 << i):
                b.append(44)
                b.extend(self.encoded(STATUS_FIELDS[i]))
                b.append(58)
                b.append(BOOL if i == 1 else INT)
        b.append(125)
        return (bytes(b), _longest(b) + room)

    # ----- the status object ------------------------------------------------------

    def status_members(self, clock, now, tc_text, game):
        """The protocol's status object's members (docs/protocol.md), without its braces,
        after what is written: state, turn, black, white (each side's STATUS_FIELDS, and
        "absent": true while marked late), moves, time_control (`tc_text`: its JSON,
        written once a game by the caller), game. From its shape's template."""
        ints = self._ints
        mb = clock.status_values(0, now, ints, 0)
        k = _NBITS[mb]
        mw = clock.status_values(1, now, ints, k)
        k += _NBITS[mw]
        ints[k] = clock.moves_made
        if game is not None:
            ints[k + 1] = game
        sides = clock.sides
        # The state and the side to move are strings of the line, not part of its shape:
        # one template serves every state and either side to move (a game made four, the
        # side to move's and the other's for each state, a few hundred bytes each).
        shape = mb | mw << 7 | 1 << 14
        if sides[0].absent:
            shape |= 1 << 18
        if sides[1].absent:
            shape |= 1 << 19
        if game is None:
            shape |= 1 << 20
        tpl = self._tpl.get(-shape)  # (negative: apart from the clock events' shapes)
        if tpl is None:
            tpl = self._status_template(shape)
            if len(self._tpl) < MAX_TEMPLATES:
                self._tpl[-shape] = tpl
        body = tpl[0]
        strs = self._strs
        strs[0] = _STATE_JSON[_STATES.index(clock.state)]
        turn = clock.turn
        strs[1] = _SIDE_JSON[turn] if 0 <= turn <= 1 else b"null"
        strs[2] = tc_text
        room = tpl[1] + len(tc_text) + 8
        if self.n + room > len(self.buf):
            self._room(room)
        self.n = render(self.buf, self.n, body, len(body), ints, strs)

    def _status_template(self, shape):
        b = bytearray(b'"state":')
        b.append(TEXT)
        b.extend(b',"turn":')
        b.append(TEXT)
        for side in (0, 1):
            b.append(44)
            b.extend(self.encoded(SIDE_NAMES[side]))
            b.extend(b":{")
            mask = (shape >> (7 * side)) & 127
            first = True
            for i in range(len(STATUS_FIELDS)):
                if mask & (1 << i):
                    if not first:
                        b.append(44)
                    first = False
                    b.extend(self.encoded(STATUS_FIELDS[i]))
                    b.append(58)
                    b.append(BOOL if i == 1 else INT)
            if shape & (1 << (18 + side)):
                b.extend(b',"absent":true')
            b.append(125)
        b.extend(b',"moves":')
        b.append(INT)
        b.extend(b',"time_control":')
        b.append(TEXT)
        b.extend(b',"game":')
        if shape & (1 << 20):
            b.extend(b"null")
        else:
            b.append(INT)
        return (bytes(b), _longest(b) + _STATE_ROOM + _SIDE_ROOM)


_INT_MARK = bytes((INT,))
_BOOL_MARK = bytes((BOOL,))


_SIDE_JSON = tuple(_json_str(name) for name in SIDE_NAMES)  # b'"black"', b'"white"'
_SIDE_ROOM = max(len(j) for j in _SIDE_JSON)
_STATE_JSON = tuple(_json_str(name) for name in _STATES)  # b'"idle"', b'"running"', ...
_STATE_ROOM = max(len(j) for j in _STATE_JSON)


def _longest(template):
    """The longest line `template` can write, its strings (TEXT) left out. (The markers
    counted by `count`, in C: a loop over the template's bytes took 1.5 ms on an RP2040.)"""
    return len(template) + INT_ROOM * (template.count(_INT_MARK) + template.count(_BOOL_MARK))
