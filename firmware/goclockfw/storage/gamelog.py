"""Game logs: one append-only file of checksummed JSON lines per game.

The line format and `verify`/`verify_bytes` are in storage/logline.py (re-exported
here: the host tool imports them from gamelog on CPython); repairs of a file
in storage/logfile.py. `GameLogStore` keeps the logs directory: it starts a file per
game, appends records (each written with one write and flushed), removes the
oldest finished games when space runs low, and never raises on a failed
write: the oldest finished game is dropped and the write tried once more,
then the failure is counted in `failures`/`error` and the game goes on.
See docs/storage.md.
"""

from goclockfw.storage import logfile
from goclockfw.storage.logline import VALUE_FIELDS, LineBuilder, check_line, verify, verify_bytes

__all__ = ("GameLogStore", "VALUE_FIELDS", "check_line", "verify", "verify_bytes")

DIR = "logs"
SEQ = "seq"  # holds the last game id given, so ids are never reused
RESERVE = 16384  # bytes kept free for the running game before a new one starts
MAX_GAMES = 64


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
        self._lines = LineBuilder()
        try:
            fs.mkdir(dirname)
        except OSError as e:
            self.error = "cannot create %s: %s" % (dirname, e)

    # ----- the directory ---------------------------------------------------

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
        """Drop the oldest finished games until `reserve` bytes are free."""
        while len(self.games()) >= self.max_games and self._drop_oldest():
            pass
        while 0 <= self.fs.free() < self.reserve and self._drop_oldest():
            pass

    # ----- a game's log ----------------------------------------------------

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
        self._start(gid, 0, 0, 0)
        extra = {"game": gid}
        if fields:
            for k in fields:
                extra[k] = fields[k]
        self.record("game", t, None, None, extra)
        return gid

    def _start(self, gid, size, crc, records):
        self.current = gid
        self._size = size
        self._crc = crc
        self._records = records
        self._dirty = False

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
        self._start(gid, scan[0], scan[1], scan[2])
        return True

    def recover(self):
        """At boot: cut a torn tail off the newest game; the bytes dropped."""
        ids = self.games()
        if not ids:
            return 0
        scan = self._repair(ids[-1])
        return 0 if scan is None else max(0, scan[3] - scan[0])

    def _repair(self, gid):
        scan, problem = logfile.repair(self.fs, self._name(gid), self.dir + "/cut.tmp")
        if problem:
            self.error = problem
        return scan

    def end(self, t, reason=None):
        """Close the running game with an "end" record (which says how many records)."""
        if self._f is not None:
            self.record("end", t, None, reason, {"records": self._records + 1})
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

    def record(self, kind, t, side=None, value=None, extra=None):
        """Append one record; True when it is safely written. Never raises.

        `value` goes under the kind's field name (logline.VALUE_FIELDS, else
        "value"); `extra` is a dict of more fields.
        """
        if self._f is None:
            return False
        try:
            crc = self._lines.build(self._crc, kind, t, side, value, extra)
        except Exception as e:  # a value json cannot write: report, go on
            self.error = "game log record %s not written: %r" % (kind, e)
            self.failures += 1
            return False
        return self._write(self._lines.line, crc)

    def record_clock(self, clock, kind, side, t, tick, value, extra=None):
        """Append a clock listener call as its record (events.EventWriter.clock_event)."""
        if self._f is None:
            return False
        try:
            self._lines.clock_event(clock, kind, side, t, tick, value, extra)
            crc = self._lines.seal(self._crc)
        except Exception as e:  # a value json cannot write: report, go on
            self.error = "game log record %s not written: %r" % (kind, e)
            self.failures += 1
            return False
        return self._write(self._lines.line, crc)

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
        name = self._name(self.current)
        try:
            self._f.close()
        except OSError:
            pass
        if self.fs.size(name) > self._size:
            try:
                logfile.cut(self.fs, name, self._size, self.dir + "/cut.tmp")
            except OSError:
                logfile.end_line(self.fs, name)  # no room: the torn line stands alone
                self._size = self.fs.size(name)
        self._f = self.fs.open(name, "ab")
        self._dirty = False

    # ----- reading ---------------------------------------------------------

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
                    records = logfile.count_records(self.fs, self._name(gid))
                    self._counts[gid] = (size, records)
            out.append({"game": gid, "size": size, "records": records})
        return out

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
