"""Game logs: one append-only file of checksummed JSON lines per game.

A record is one line, the same object as the protocol's event lines plus a
checksum chained to the previous record:

    {"event":"press","t":65000,"side":"black","used_ms":65000,"c":"1f0e33a2"}

"c" is crc32 of the line without its `,"c":"…"` part (that is, of the text
`{…}` ending in "}"), seeded with the previous record's checksum (0 for the
first), as 8 lowercase hex digits. It is always the last key, so a checker
strips it textually and never depends on key order. Any changed, removed,
reordered or inserted record breaks the chain from there on.

`verify` is pure and imports nothing MicroPython-only: the host tool uses it
on CPython. `GameLogStore` writes the logs through an FS (hal_fs.py); records
are built in one preallocated buffer, and a failing write (flash full) never
raises: the oldest finished game is dropped and the write retried once, then
the failure is counted in `failures`/`error` and the game goes on.
See docs/storage.md.
"""

import binascii
import json

DIR = "logs"
SEQ = "seq"  # holds the last game id given, so ids are never reused
RESERVE = 16384  # bytes kept free for the running game before a new one starts
MAX_GAMES = 64
LINE_BUF = 256  # preallocated record buffer; a longer record grows it (rare)
SIDES = ("black", "white")

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


def _crc(data, prev):
    return binascii.crc32(data, prev) & 0xFFFFFFFF


def _claimed(line):
    """The checksum a line claims, or None when it has no readable one."""
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
    c = _claimed(line)
    if c is None:
        raise ValueError("no checksum")
    n = len(line) - 16
    if _crc(b"}", _crc(line[:n], prev)) != c:
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
            c = _claimed(b)
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


class GameLogStore:
    """The logs directory: the running game's log and the finished ones."""

    def __init__(self, fs, dirname=DIR, reserve=RESERVE, max_games=MAX_GAMES):
        self.fs = fs
        self.dir = dirname
        self.reserve = reserve
        self.max_games = max_games
        self.current = None  # id of the game being written
        self.failures = 0  # records that could not be written
        self.error = None  # the last storage problem, for the app to report
        self._f = None
        self._crc = 0
        self._size = 0  # bytes of whole records in the current file
        self._records = 0
        self._dirty = False  # a write failed: check the file before the next
        self._counts = {}  # game -> (size, records) of finished games
        self._enc = {}  # str -> its JSON bytes, so hot records do not encode
        self._line = bytearray(LINE_BUF)
        try:
            fs.mkdir(dirname)
        except OSError as e:
            self.error = "cannot create %s: %s" % (dirname, e)

    # ----- files -----------------------------------------------------------

    def _name(self, gid):
        return "%s/%05d.log" % (self.dir, gid)

    def games(self):
        """Ids of the stored games, oldest first."""
        try:
            names = self.fs.listdir(self.dir)
        except OSError:
            return []
        ids = []
        for n in names:
            if len(n) == 9 and n[5:] == ".log" and n[:5].isdigit():
                ids.append(int(n[:5]))
        ids.sort()
        return ids

    def _next_id(self):
        last = 0
        data = self.fs.read(self.dir + "/" + SEQ)
        if data:
            try:
                last = int(data)
            except ValueError:
                pass
        ids = self.games()
        if ids and ids[-1] > last:
            last = ids[-1]
        gid = last + 1 if last < 99999 else 1
        try:
            self.fs.write_atomic(self.dir + "/" + SEQ, b"%d" % gid)
        except OSError:
            pass  # ids then come from the files alone
        return gid

    def _drop_oldest(self):
        """Remove the oldest finished game; False when there is none."""
        for gid in self.games():
            if gid != self.current:
                try:
                    self.fs.remove(self._name(gid))
                except OSError:
                    return False
                self._counts.pop(gid, None)
                return True
        return False

    def make_room(self):
        """Drop the oldest finished games until RESERVE bytes are free."""
        while len(self.games()) >= self.max_games and self._drop_oldest():
            pass
        while 0 <= self.fs.free() < self.reserve and self._drop_oldest():
            pass

    # ----- writing ---------------------------------------------------------

    def begin(self, t=0, fields=None):
        """Start the log of a new game with a "game" record; return its id.

        Returns None (and sets `error`) when no log can be written: the game
        is then played without one.
        """
        self.close()
        self.make_room()
        gid = self._next_id()
        try:
            self._f = self.fs.open(self._name(gid), "wb")
        except OSError as e:
            self.error = "cannot start a game log: %s" % e
            self.failures += 1
            return None
        self.current = gid
        self._crc = 0
        self._size = 0
        self._records = 0
        self._dirty = False
        extra = {"game": gid}
        if fields:
            for k in fields:
                extra[k] = fields[k]
        self.record("game", t, None, None, extra)
        return gid

    def resume(self, gid):
        """Go on writing game `gid` after a reset; repairs a torn tail first."""
        self.close()
        scan = self._repair(gid)
        if scan is None:
            self.error = "game log %d is missing" % gid
            return False
        try:
            self._f = self.fs.open(self._name(gid), "ab")
        except OSError as e:
            self.error = "cannot reopen game log %d: %s" % (gid, e)
            return False
        self.current = gid
        self._size, self._crc, self._records = scan[0], scan[1], scan[2]
        self._dirty = False
        return True

    def recover(self):
        """At boot: cut a torn tail off the newest game; the bytes dropped."""
        ids = self.games()
        if not ids:
            return 0
        scan = self._repair(ids[-1])
        return 0 if scan is None else max(0, scan[3] - scan[0])

    def _repair(self, gid):
        """Cut what follows the last good record; (end, crc, records, old size)."""
        end, crc, records, size, newline = self._scan(gid)
        if size < 0:
            return None
        if end < size:
            self._cut(gid, end)
        elif newline:
            # The record is whole, only its newline is missing: add it.
            try:
                with self.fs.open(self._name(gid), "ab") as f:
                    f.write(b"\n")
                end += 1
            except OSError as e:
                self.error = "could not repair game log %d: %s" % (gid, e)
        return end, crc, records, size

    def end(self, t, reason=None):
        """Close the running game with an "end" record."""
        if self._f is not None:
            self.record("end", t, None, reason)
        self.close()

    def close(self):
        if self._f is not None:
            try:
                self._f.close()
            except OSError:
                pass
            self._f = None
        if self.current is not None:
            self._counts[self.current] = (self._size, self._records)
        self.current = None

    def _put(self, s):
        b = self._enc.get(s)
        if b is None:
            b = _json_str(s)
            if len(self._enc) < 64:
                self._enc[s] = b
        self._line.extend(b)

    def _put_int(self, n):
        line = self._line
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
            self._line.extend(b"null")
        elif v is True:
            self._line.extend(b"true")
        elif v is False:
            self._line.extend(b"false")
        elif isinstance(v, int):
            self._put_int(v)
        elif isinstance(v, str):
            self._put(v)
        elif isinstance(v, float) and not (-1e300 < v < 1e300):
            self._line.extend(b"null")  # inf/nan have no JSON form
        else:
            self._line.extend(json.dumps(v).encode())

    def record(self, kind, t, side=None, value=None, extra=None):
        """Append one record; True when it is safely written.

        `value` goes under the kind's field name (VALUE_FIELDS, else
        "value"); `extra` is a dict of more fields. Never raises.
        """
        if self._f is None:
            return False
        try:
            line = self._line
            line[0:] = b""  # keeps the buffer's allocation
            line.extend(b'{"event":')
            self._put(kind)
            line.extend(b',"t":')
            self._put_int(t)
            if side is not None and 0 <= side <= 1:
                line.extend(b',"side":')
                self._put(SIDES[side])
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
            crc = _crc(line, self._crc)
            line[len(line) - 1 :] = b""
            line.extend(_TAIL)
            for shift in (28, 24, 20, 16, 12, 8, 4, 0):
                line.append(_HEX[(crc >> shift) & 15])
            line.extend(b'"}\n')
        except Exception as e:  # a value json cannot write: report, go on
            self.error = "game log record %s not written: %r" % (kind, e)
            self.failures += 1
            return False
        return self._write(line, crc)

    def _write(self, data, crc):
        for attempt in (0, 1):
            try:
                if self._dirty:
                    self._reopen()
                n = self._f.write(data)
                if n is not None and n != len(data):
                    raise OSError(28)
                self._f.flush()
                self._size += len(data)
                self._crc = crc
                self._records += 1
                return True
            except OSError as e:
                self._dirty = True
                self.error = "game log write failed: %s" % e
                if attempt or not self._drop_oldest():
                    break
        self.failures += 1
        return False

    def _reopen(self):
        # After a failed write the file may hold part of the record: close
        # it (littlefs then drops what was not synced) and cut what remains.
        gid = self.current
        try:
            self._f.close()
        except OSError:
            pass
        if self.fs.size(self._name(gid)) > self._size:
            self._cut(gid, self._size)
        self._f = self.fs.open(self._name(gid), "ab")
        self._dirty = False

    # ----- reading ---------------------------------------------------------

    def _scan(self, gid):
        """(end of the last good record, its checksum, good records, size,
        whether that record lacks its newline)."""
        size = self.fs.size(self._name(gid))
        end = crc = records = pos = 0
        prev = 0
        newline = False
        if size <= 0:
            return 0, 0, 0, size, False
        try:
            with self.fs.open(self._name(gid), "rb") as f:
                while True:
                    ln = f.readline()
                    if not ln:
                        break
                    pos += len(ln)
                    whole = ln[-1:] == b"\n"
                    try:
                        _, prev = check_line(ln, prev, False)
                    except ValueError:
                        if not whole:
                            break  # a torn tail: the write never finished
                        c = _claimed(ln[:-1])
                        if c is not None:
                            prev = c
                        continue  # damage inside is kept for verify to show
                    end, crc = pos, prev
                    records += 1
                    newline = not whole
        except OSError:
            pass
        return end, crc, records, size, newline

    def _cut(self, gid, size):
        """Keep only the first `size` bytes of a game's log (copy + rename)."""
        name = self._name(gid)
        tmp = self.dir + "/cut.tmp"
        buf = bytearray(256)
        try:
            with self.fs.open(name, "rb") as src:
                with self.fs.open(tmp, "wb") as dst:
                    left = size
                    while left > 0:
                        n = src.readinto(buf)
                        if not n:
                            break
                        n = min(n, left)
                        self.fs.write_prefix(dst, buf, n)
                        left -= n
                    dst.flush()
            self.fs.rename(tmp, name)
        except OSError as e:
            # No room to copy: end the torn line so the next record starts
            # on a line of its own and the chain still checks.
            self.error = "could not repair game log %d: %s" % (gid, e)
            try:
                with self.fs.open(name, "ab") as f:
                    f.write(b"\n")
            except OSError:
                pass

    def list(self):
        """[{"game", "size", "records"}] of every stored game, oldest first."""
        out = []
        for gid in self.games():
            if gid == self.current:
                size, records = self._size, self._records
            else:
                size = self.fs.size(self._name(gid))
                cached = self._counts.get(gid)
                if cached is not None and cached[0] == size:
                    records = cached[1]
                else:
                    records = self._count(gid)
                    self._counts[gid] = (size, records)
            out.append({"game": gid, "size": size, "records": records})
        return out

    def _count(self, gid):
        n = 0
        buf = bytearray(256)
        try:
            with self.fs.open(self._name(gid), "rb") as f:
                while True:
                    k = f.readinto(buf)
                    if not k:
                        break
                    n += buf.count(b"\n") if k == len(buf) else bytes(buf[:k]).count(b"\n")
        except OSError:
            pass
        return n

    def read(self, gid, offset, length):
        """(bytes from `offset`, at most `length`, file size) of game `gid`."""
        size = self.fs.size(self._name(gid))
        if size < 0:
            raise ValueError("no game %d" % gid)
        if offset >= size:
            return b"", size
        with self.fs.open(self._name(gid), "rb") as f:
            f.seek(offset)
            return f.read(length), size

    def clear(self, gid=None):
        """Remove one finished game, or all of them; the count removed."""
        if gid is not None:
            if gid == self.current:
                raise ValueError("game %d is being played: its log is kept" % gid)
            if self.fs.size(self._name(gid)) < 0:
                raise ValueError("no game %d" % gid)
            self.fs.remove(self._name(gid))
            self._counts.pop(gid, None)
            return 1
        removed = 0
        for g in self.games():
            if g != self.current:
                try:
                    self.fs.remove(self._name(g))
                    self._counts.pop(g, None)
                    removed += 1
                except OSError:
                    pass
        return removed
