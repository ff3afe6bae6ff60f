"""The game log's line format: checksummed JSON records, written and verified.

A record is one line, the same object as the protocol's event lines plus a
checksum chained to the previous record:

    {"event":"press","t":65000,"side":"black","used_ms":65000,"c":"1f0e33a2"}

"c" is crc32 of the line without its `,"c":"…"` part (that is, of the text
`{…}` ending in "}"), seeded with the previous record's checksum (0 for the
first), as 8 lowercase hex digits. It is always the last key, so a checker
strips it textually and never depends on key order. Any changed, removed,
reordered or inserted record breaks the chain from there on.

`verify` is pure and imports nothing MicroPython-only: the host tool uses it
on CPython (through gamelog). `LineBuilder` writes records into one
preallocated buffer, so a press or a call allocates nothing. See docs/storage.md.
"""

import binascii
import json

from goclockfw.core.timecontrol import SIDE_NAMES

# Name of the value field of each clock event, as `goclock simulate` names it;
# log records and protocol event lines use the same names.
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
}

_TAIL = b',"c":"'  # then 8 hex digits and '"}': 16 bytes in all
_HEX = b"0123456789abcdef"


def crc(data, prev):
    return binascii.crc32(data, prev) & 0xFFFFFFFF


def claimed(line):
    """The checksum a line (no newline) claims, or None when it has no readable one."""
    n = len(line)
    if n < 18 or line[n - 2 :] != b'"}' or line[n - 16 : n - 10] != _TAIL:
        return None
    c = 0
    for b in line[n - 10 : n - 2]:
        d = _HEX.find(bytes((b,)))
        if d < 0:
            return None
        c = c * 16 + d
    return c


def check_line(line, prev, parse=True):
    """(record, checksum) of one line (bytes) chained to `prev`.

    Raises ValueError saying what is wrong. With parse=False only the
    checksum is checked and the record returned is None.
    """
    if line[-1:] == b"\n":
        line = line[:-1]
    c = claimed(line)
    if c is None:
        raise ValueError("no checksum")
    n = len(line) - 16
    if crc(b"}", crc(line[:n], prev)) != c:
        raise ValueError("checksum mismatch")
    if not parse:
        return None, c
    try:
        rec = json.loads(line[:n].decode() + "}")
    except (ValueError, UnicodeError):
        raise ValueError("checksum right but not JSON") from None
    if not isinstance(rec, dict):
        raise ValueError("not a JSON object")
    return rec, c


def verify(lines):
    """Check a log given as lines (bytes or str, newlines optional).

    Returns {"ok": bool, "records": [dicts of the good lines, "c" removed],
    "errors": [(line number from 1, message)], "torn": bool}. After a bad
    line the chain goes on from the checksum that line claims, so one damaged
    record does not hide the rest. "torn" means the only bad line is the last
    one: a record cut by a power loss while it was being written.
    """
    lines = list(lines)
    if lines and not lines[-1]:
        lines.pop()  # what split("\n") leaves after the final newline
    records = []
    errors = []
    prev = 0
    for i, raw in enumerate(lines):
        b = raw.encode() if isinstance(raw, str) else bytes(raw)
        if b[-1:] == b"\n":
            b = b[:-1]
        if b[-1:] == b"\r":
            b = b[:-1]
        try:
            rec, prev = check_line(b, prev)
            records.append(rec)
        except ValueError as e:
            errors.append((i + 1, str(e)))
            c = claimed(b)
            if c is not None:
                prev = c
    torn = len(errors) == 1 and errors[0][0] == len(lines)
    return {"ok": not errors, "records": records, "errors": errors, "torn": torn}


def verify_bytes(data):
    """verify() of a whole log file's bytes; an unterminated tail counts as a line."""
    return verify(data.split(b"\n"))


def _json_str(s):
    e = s.encode()
    for b in e:
        if b < 0x20 or b == 0x22 or b == 0x5C:
            return json.dumps(s).encode()
    return b'"' + e + b'"'


class LineBuilder:
    """Builds record lines in one buffer that keeps its allocation.

    Ints are written digit by digit and strings through a cache of their
    JSON bytes, so the usual records (a press, a call) allocate nothing once
    the cache is warm. Other values (lists, dicts, floats) go through json.
    """

    def __init__(self, size=256):
        self.line = bytearray(size)
        self._enc = {}  # str -> its JSON bytes

    def _put(self, s):
        b = self._enc.get(s)
        if b is None:
            b = _json_str(s)
            if len(self._enc) < 64:
                self._enc[s] = b
        self.line.extend(b)

    def _put_int(self, n):
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

    def _put_value(self, v):
        if v is None:
            self.line.extend(b"null")
        elif v is True:
            self.line.extend(b"true")
        elif v is False:
            self.line.extend(b"false")
        elif isinstance(v, int):
            self._put_int(v)
        elif isinstance(v, str):
            self._put(v)
        elif isinstance(v, float) and not (-1e300 < v < 1e300):
            self.line.extend(b"null")  # inf/nan have no JSON form
        else:
            self.line.extend(json.dumps(v).encode())

    def build(self, prev, kind, t, side=None, value=None, extra=None):
        """Make `line` the record chained to `prev`; return its checksum.

        `value` goes under the kind's field name (VALUE_FIELDS, else
        "value"); `extra` is a dict of more fields. Raises TypeError (or
        ValueError) for a value json cannot write.
        """
        line = self.line
        line[0:] = b""  # empties it, keeping the allocation
        line.extend(b'{"event":')
        self._put(kind)
        line.extend(b',"t":')
        self._put_int(t)
        if side is not None and 0 <= side <= 1:
            line.extend(b',"side":')
            self._put(SIDE_NAMES[side])
        if value is not None:
            line.append(44)  # ","
            self._put(VALUE_FIELDS.get(kind, "value"))
            line.append(58)  # ":"
            self._put_value(value)
        if extra:
            for k in extra:
                line.append(44)
                self._put(k)
                line.append(58)
                self._put_value(extra[k])
        line.append(125)  # "}"
        c = crc(line, prev)
        line[len(line) - 1 :] = b""
        line.extend(_TAIL)
        for shift in (28, 24, 20, 16, 12, 8, 4, 0):
            line.append(_HEX[(c >> shift) & 15])
        line.extend(b'"}\n')
        return c
