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

from goclockfw.bytesops import int_from4, int_to4, seal
from goclockfw.events import VALUE_FIELDS as VALUE_FIELDS  # re-exported for the host
from goclockfw.events import EventWriter

_TAIL = b',"c":"'  # then 8 hex digits and '"}': 16 bytes in all
SEAL_ROOM = 17  # what sealing adds to a line: the tail (16, over the closing brace) and "\n"
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
    "errors": [(line number from 1, message)], "torn": bool, "cut": int or None}.
    Dots are progress marks, not records: a line of them is skipped, and those before a
    record on its line (the firmware writes a record right after them) are not part of
    it. After a bad line the chain
    goes on from the checksum that line claims, so one damaged record does not hide the
    rest. "torn" means the only bad line is the last one: a record cut by a power loss
    while it was being written.

    A log whose beginning the clock gave up (a full flash, storage/journal.py) starts
    with a record chained to one that is gone; a "cut" record further on names that
    checksum (`from`) and how many parts went (`parts`). The chain is then checked from
    there and "cut" is that number: the log is whole from its first line on, and a
    beginning taken away by anyone else still fails.
    """
    lines = list(lines)
    if lines and not lines[-1]:
        lines.pop()  # what split("\n") leaves after the final newline
    out = _verify(lines, 0)
    first = _first_record_line(lines)
    if out["errors"] and out["errors"][0][0] == first:
        # Newest first: an older cut may name a part that has gone since.
        for rec in reversed(out["records"]):
            start = _cut_from(rec)
            if start is None:
                continue
            again = _verify(lines, start)
            if not again["errors"] or again["errors"][0][0] != first:
                again["cut"] = rec.get("parts")
                return again
    return out


def _first_record_line(lines):
    for i, raw in enumerate(lines):
        b = _strip(raw)
        if not b or after_marks(b):
            return i + 1
    return None


def after_marks(line):
    """A log line (bytes) without the progress marks it begins with: its record, or b""
    for a line of marks alone."""
    return line.lstrip(b".")


def _cut_from(rec):
    if rec.get("event") != "cut" or not isinstance(rec.get("from"), str):
        return None
    try:
        return int(rec["from"], 16)
    except ValueError:
        return None


def _strip(raw):
    b = raw.encode() if isinstance(raw, str) else bytes(raw)
    if b[-1:] == b"\n":
        b = b[:-1]
    if b[-1:] == b"\r":
        b = b[:-1]
    return b


def _verify(lines, prev):
    records = []
    errors = []
    for i, raw in enumerate(lines):
        b = _strip(raw)
        if b:
            b = after_marks(b)
            if not b:
                continue  # a line of progress marks (storage/journal.py): no record, no checksum
        try:
            rec, prev = check_line(b, prev)
            records.append(rec)
        except ValueError as e:
            errors.append((i + 1, str(e)))
            c = claimed(b)
            if c is not None:
                prev = c
    torn = len(errors) == 1 and errors[0][0] == len(lines)
    return {"ok": not errors, "records": records, "errors": errors, "torn": torn, "cut": None}


def verify_bytes(data):
    """verify() of a whole log file's bytes; an unterminated tail counts as a line."""
    return verify(data.split(b"\n"))


class LineBuilder(EventWriter):
    """Builds record lines: an event (events.EventWriter) sealed with its chained checksum.

    The chain's checksums are 32-bit values, kept as 4 bytes (little-endian: bytesops)
    and never as ints: a 32-bit int is a long integer on the heap of a 32-bit port."""

    def __init__(self, size=256):
        # 256 bytes: a clock event's line sealed (a press with the most status fields any
        # time control has, Ing's, is at most 217 bytes before its 17 of seal); a longer
        # record (a snapshot, a config) grows it and `give_back` returns it after. The
        # records' held slots keep four more of these (app/records.py).
        # (Not super(): a method using it makes the class's body return a cell, and a frozen
        # image then builds the class's dict in the heap instead of keeping it in flash.)
        EventWriter.__init__(self, size)
        self.sealed = bytearray(4)  # the checksum of the line `seal` made last

    def seal(self, prev):
        """Turn the event in `buf[:n]` into a record line chained to `prev` (4 bytes, the
        checksum before it), newline included; its own checksum goes to `sealed`."""
        if self.n + SEAL_ROOM > len(self.buf):
            self._room(SEAL_ROOM)
        self.n = seal(self.buf, self.n, prev, self.sealed)

    def build(self, prev, kind, t, side=None, value=None, extra=None):
        """Make the line the record chained to `prev` (an int); return its checksum (an int).

        `value` goes under the kind's field name (events.VALUE_FIELDS, else "value");
        `extra` is a dict or a list of (key, value) pairs. Raises TypeError (or
        ValueError) for a value json cannot write.
        """
        self.event(kind, t, side, value, extra)
        before = bytearray(4)
        int_to4(prev, before)
        self.seal(before)
        return int_from4(self.sealed)
