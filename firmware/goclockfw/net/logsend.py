"""A clock's game logs to the hall's broker, slice by slice (net/hall.py runs it).

A slice is one record line with the progress marks before it, published at QoS 1 on
`log/<game>` with a header of its record number and byte offset (docs/hall.md). Sending
starts where the broker last acknowledged (net/cursor.py keeps that in flash, written at
a quiet moment), keeps at most IN_FLIGHT slices unacknowledged, and after a drop or a
reconnect starts again from the acknowledged point. While a clock runs only its own game
is sent; a finished game's rest goes at the next stop (its log is read by scanning it,
too long for a pass of a running clock).
"""

from goclockfw.core.ticks import ticks_diff
from goclockfw.net.mqtt import UP, _str

IN_FLIGHT = 4  # log slices sent and not yet acknowledged
WINDOW = 1024  # bytes of log read to find the next slice (more for a long mark line)
MAX_WINDOW = 4096
CURSOR_MS = 5000  # the cursor is written at most this often (and only at a quiet moment)


def slice_end(data):
    """The end of the first record line in `data` (marks before it go with it), or -1."""
    pos = 0
    n = len(data)
    while pos < n:
        nl = data.find(b"\n", pos)
        if nl < 0:
            return -1
        # A record line: its first byte after any progress marks is "{". (Found and
        # counted in C: a long think leaves thousands of marks before its record.)
        k = data.find(b"{", pos, nl)
        if k >= 0 and data.count(b".", pos, k) == k - pos:
            return nl + 1
        pos = nl + 1
    return -1


class LogSender:
    def __init__(self, session, client, root, cursor, tell):
        self.s = session
        self.c = client
        self.root = root
        self.cursor = cursor
        self._tell = tell  # (notice, message): a problem worth a notice
        self.cursor_at = 0
        self.t_log = None  # the log topic of the game being sent
        self.g = None  # the game whose log is being sent
        self.sent_rec = 0
        self.sent_off = 0
        self.flight = []  # [pid, rec, end offset, acked, game] of slices sent, oldest first
        self.window = WINDOW
        self.caught_game = None  # the game sent as far as it was written ...
        self.caught_count = 0  # ... when it had this many records
        self._slice_hdr = bytearray(24)

    def rewind(self):
        """After a drop or a connect: everything not acknowledged is sent again."""
        self.flight = []
        self.g = None
        self.caught_game = None

    def backlog(self):
        """Log to send now (so the loop comes back at once): not while the slices in
        flight are at their limit, nor once the games are sent as far as written."""
        if self.c.state != UP or len(self.flight) >= IN_FLIGHT:
            return False
        s = self.s
        j = s.journal
        games = self.cursor.games
        caught = self.caught_game == j.current and self.caught_count == j.count()
        if s.clock.state == "running":
            return j.current in games and not caught
        if caught and len(games) == 1 and j.current in games:
            return False
        return bool(games)

    def _pick(self, running):
        """The game to send: the oldest one the broker does not have whole yet (the
        current one while a clock runs)."""
        cur = self.cursor
        j = self.s.journal
        while cur.games:
            gid = j.current if running else cur.oldest()
            if gid not in cur.games:
                return None
            if gid not in j.games:
                cur.drop(gid)  # cleared from the clock meanwhile
                continue
            rec, off = cur.games[gid]
            self.g = gid
            self.sent_rec = rec
            self.sent_off = off
            self.t_log = _str("%slog/%d" % (self.root, gid))
            self.window = WINDOW
            return gid
        return None

    def _in_flight(self, gid):
        for f in self.flight:
            if f[4] == gid:
                return True
        return False

    def step(self):
        """At most one slice published (nothing read while there is nothing new)."""
        if not self.backlog():
            return
        j = self.s.journal
        running = self.s.clock.state == "running"
        g = self.g
        if g is not None and running and g != j.current:
            g = self.g = None  # a finished game waits for the next stop
        if g is None:
            g = self._pick(running)
            if g is None:
                return
        try:
            data, size = j.read(g, self.sent_off, self.window)
        except (ValueError, OSError):
            self.cursor.drop(g)
            self.g = None
            return
        if not data:
            self._caught_up(g, size, running)
            return
        end = slice_end(data)
        if end < 0:
            if len(data) >= self.window and self.window < MAX_WINDOW:
                self.window = MAX_WINDOW  # a long mark line: look further next time
            return
        rec = self.sent_rec + 1
        hdr = self._slice_hdr
        hdr[0:] = b"%d %d\n" % (rec, self.sent_off)
        pid = self.c.publish(self.t_log, hdr, 1, False, memoryview(data)[:end])
        if pid < 0:
            return
        self.sent_rec = rec
        self.sent_off += end
        self.flight.append([pid, rec, self.sent_off, False, g])
        self.window = WINDOW

    def _caught_up(self, g, size, running):
        """Game `g` is sent as far as it is written."""
        j = self.s.journal
        if g == j.current:
            self.caught_game = g  # nothing more until a record
            self.caught_count = j.count()
            if not running and len(self.cursor.games) > 1:
                self.g = None  # stopped: an older game's rest goes now
        elif not self._in_flight(g):
            acked = self.cursor.games.get(g)
            if acked is not None and acked[1] >= size:
                self.cursor.drop(g)  # the broker has all of a finished game
            self.g = None

    def puback(self, pid):
        """The broker acknowledged `pid`: the cursor moves past every slice acknowledged
        in order (a `pid` not a slice's, an event's or a reply's, changes nothing)."""
        fl = self.flight
        for f in fl:
            if f[0] == pid:
                f[3] = True
                break
        else:
            return
        while fl and fl[0][3]:
            f = fl.pop(0)
            self.cursor.ack(f[4], f[1], f[2])

    def keep_cursor(self, now):
        """The cursor written to flash, at most every CURSOR_MS and at a quiet moment."""
        cur = self.cursor
        if not cur.dirty or ticks_diff(now, self.cursor_at) < CURSOR_MS:
            return
        s = self.s
        running = s.clock.state == "running"
        if running and not s.board.erases_while_running:
            return  # the ESP32: no flash work while a clock runs
        if not s.upkeep.quiet(now, 2):
            return
        self.cursor_at = now
        if not cur.save() and cur.problem:
            self._tell("storage", cur.problem)
