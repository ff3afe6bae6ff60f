"""The running game's records: game time, the log, the progress marks, the notices.

Everything the clock does is one record in the game's log (storage/journal.py) and, when
a host watches, the same object as an event line (events.py). A record is written, and
durable, before anything announces it: the press's event and reply come after its
record (a player's button press, and a deadline's records, are written at the start of
the next passes: `hold`).
Game time `t` is ms since the game's start, pauses included; after a power cut it goes
on from where the log ends.

While a clock runs and nothing else is written, a progress mark goes to the log every
MARK_MS of game time, so a power cut gives back at most that much of the running side's
time. A game's log begins with its "game" record when the clock starts (a game set up
but never started has no records); notices made before that wait for it.
"""

from goclockfw.core import gameclock
from goclockfw.core.ticks import ticks_add, ticks_diff
from goclockfw.events import CLOCK_STATE_KINDS
from goclockfw.storage.journal import MARK_MS

PENDING = 8  # notices kept for a log that has not started yet
HELD = 4  # clock events a pass may leave to the next ones (a press; a call and a period)
ARGS = 7  # what a held event keeps to be told and written later (see `_args`)


class Records:
    def __init__(self, journal, protocol, console=None):
        self.journal = journal
        self.protocol = protocol
        self.console = console  # the desktop's screen, or None
        self.game_start = 0  # tick at game time game_t0
        self.game_t0 = 0
        self.started = False  # the game's log has its "game" record
        self.pending = []  # (notice, message) waiting for the log to start
        self.last_t = 0  # game time of the last record written
        self.marks = 0  # marks written since it
        self.mark_at = 0  # the tick the next mark is due (while the game's clock runs)
        self.storage_error = None
        self.hall = None  # the network's publisher (net/hall.py), told every clock event
        # While `hold` is set (a player's press, a deadline's step: Session.step) clock
        # events are kept and written in the next passes, a step a pass (`work_one`): those
        # passes stay short on the chip; each record's checksum and page program follow a
        # few ms later, before anything else is written or a host is answered (`flush`).
        # A line that reads the clock's state (a press's) is made at once and waits in
        # `_bufs`, swapped with the writer's buffer (nothing copied, nothing allocated);
        # the others (a call's, a period's) are made when written (`_lens` -1).
        self.hold = False
        self.held = 0  # lines waiting
        self._first = 0  # the oldest one's slot
        size = len(journal.lines.buf)
        self._bufs = [bytearray(size) for _ in range(HELD)]
        self._lens = [0] * HELD
        self._args = [None] * (HELD * ARGS)  # each slot's kind, clock, side, t, tick, value, extra

    # ----- game time ---------------------------------------------------------

    def t(self, tick):
        return self.game_t0 + ticks_diff(tick, self.game_start)

    def rebase(self, tick, t):
        """Game time `t` is now at `tick` (a new game: 0; after a cut: where the log ends)."""
        self.game_start = tick
        self.game_t0 = t
        self.last_t = t
        self.marks = 0
        self.mark_at = ticks_add(tick, MARK_MS)

    # ----- records -------------------------------------------------------------

    def begin(self, tick, tc_json, game, info=None, utc=None):
        """The clock starts (or a side is marked late before it does): game time 0 is now,
        and the log gets its "game" record, then the notices that waited. Once only. The
        record names the game's details (`info`: the config's game_info, the fields set)
        and its start's time of day (`utc`, ms since the epoch) when the clock knows them."""
        if self.held:
            self.flush()
        self.rebase(tick, 0)
        if self.started:
            return
        self.started = True
        j = self.journal
        fields = [("game", game), ("time_control", tc_json)]
        if info:
            fields.append(("info", info))
        if utc is not None:
            fields.append(("utc", utc))
        j.record("game", 0, None, None, fields)
        pending = self.pending
        self.pending = []
        for notice, message in pending:
            j.record("log", 0, None, None, (("notice", notice), ("message", message)))

    def clock_event(self, clock, kind, side, tick, value, extra=None):
        """A clock listener call: told to a watching host, and written. The line is made
        once, in the journal's own writer (storage/journal.py): the event line is it, the
        record is it sealed with its checksum, in place (nothing copied)."""
        if self.held and (not self.hold or self.held == HELD):
            self.flush()
        t = self.game_t0 + ticks_diff(tick, self.game_start)  # (self.t(tick), written out)
        ev = self.journal.lines
        if self.hold and self.started:
            i = (self._first + self.held) % HELD
            if kind in CLOCK_STATE_KINDS:
                # Its line reads the clock as it is now (a press's move and times): made
                # now, its buffer swapped into the slot.
                if not self._render(ev, clock, kind, side, t, tick, value, extra):
                    return
                self._lens[i] = ev.n
                buf = ev.buf
                ev.buf = self._bufs[i]
                self._bufs[i] = buf
            else:
                # A call, a period, a flag: its line is its arguments alone, made when it
                # is written (`_make`), not in the deadline's own pass.
                self._lens[i] = -1
            self.held += 1
            a = self._args
            k = i * ARGS
            a[k] = kind
            a[k + 1] = clock
            a[k + 2] = side
            a[k + 3] = t
            a[k + 4] = tick
            a[k + 5] = value
            a[k + 6] = extra
            return
        try:  # (`_render`, written out: a game's first press over serial is the deepest
            # call chain on the RP2040's 8 KB C stack, and this is on it)
            ev.clock_event(clock, kind, side, t, tick, value, extra)
        except Exception as e:  # a value json cannot write: report, go on
            self.problem("game log record %s not written: %r" % (kind, e))
            return
        self._out(clock, kind, side, t, tick, value, extra)

    def _render(self, ev, clock, kind, side, t, tick, value, extra):
        """The event's line in the journal's writer `ev`; False (reported) when it cannot
        be written."""
        try:
            ev.clock_event(clock, kind, side, t, tick, value, extra)
        except Exception as e:  # a value json cannot write: report, go on
            self.problem("game log record %s not written: %r" % (kind, e))
            return False
        return True

    def flush(self):
        """Every held clock event (`hold`), told and written now, in order: before any
        other record and any host request."""
        while self.held:
            self.flush_one()

    def work_one(self):
        """A loop pass's share of the held events (Session.step): the oldest one's line
        made, when it waits to be, or else the oldest one told and written. On the chip
        each is about a millisecond: a pass does one."""
        if self.held:
            if self._lens[self._first] < 0:
                self._make()
            else:
                self.flush_one()

    def flush_one(self):
        """The oldest held clock event, told and written."""
        if not self.held:
            return
        i = self._first
        if self._lens[i] < 0 and not self._make():
            return
        self._first = (i + 1) % HELD
        self.held -= 1
        ev = self.journal.lines
        buf = ev.buf
        ev.buf = self._bufs[i]
        self._bufs[i] = buf
        ev.n = self._lens[i]
        a = self._args
        k = i * ARGS
        self._out(a[k + 1], a[k], a[k + 2], a[k + 3], a[k + 4], a[k + 5], a[k + 6])
        self._free(k)

    def _make(self):
        """The oldest slot's line made (a call's, a period's: held unmade) and swapped into
        it; when it cannot be (reported), the slot is dropped. True when made."""
        i = self._first
        ev = self.journal.lines
        a = self._args
        k = i * ARGS
        if self._render(ev, a[k + 1], a[k], a[k + 2], a[k + 3], a[k + 4], a[k + 5], a[k + 6]):
            self._lens[i] = ev.n
            buf = ev.buf
            ev.buf = self._bufs[i]
            self._bufs[i] = buf
            return True
        self._first = (i + 1) % HELD
        self.held -= 1
        self._free(k)
        return False

    def _free(self, k):
        a = self._args
        for j in range(k, k + ARGS):
            a[j] = None  # (nothing kept alive by a slot)

    def _out(self, clock, kind, side, t, tick, value, extra):
        # The line in the journal's writer: to a watching host (the ring takes a copy, sent
        # after the pass, when the record below is durable), then sealed and written.
        ev = self.journal.lines
        p = self.protocol
        if p.watching:
            p.event_line(ev.buf, ev.n)
        written = False
        if self.started:
            written = self.journal.append_event(kind, t)
            if written:
                self.last_t = t
                self.marks = 0
                self.mark_at = ticks_add(tick, MARK_MS)
            else:
                self.problem(self.journal.error)
        h = self.hall
        if h is not None:  # a networked clock: the event with its record number
            h.clock_event(
                clock, kind, side, t, tick, value, extra, self.journal.count() if written else None
            )

    def write(self, kind, tick, value=None, extra=None):
        """A record that is not the clock's (config, end, snapshot)."""
        if self.held:
            self.flush()
        t = self.t(tick)
        ok = self.journal.record(kind, t, None, value, extra)
        if ok:
            self.last_t = t
            self.marks = 0
            self.mark_at = ticks_add(tick, MARK_MS)
        return ok

    def notice(self, notice, message, tick):
        """A device notice: logged (or kept for the log), pushed to the host and the screen."""
        fields = (("notice", notice), ("message", message))
        if self.started:
            self.write("log", tick, None, fields)
        elif len(self.pending) < PENDING:
            self.pending.append((notice, message))
        self.protocol.event("log", {"notice": notice, "message": message})
        if self.console is not None:
            self.console({"notice": notice, "message": message})

    def problem(self, message):
        """A storage problem, noticed once until it changes."""
        if message is not None and message != self.storage_error:
            self.storage_error = message
            self.protocol.event("log", {"notice": "storage", "message": message})
            if self.console is not None:
                self.console({"notice": "storage", "message": message})

    # ----- progress marks ------------------------------------------------------

    def mark_due_ms(self, clock, now):
        """Ms until the next mark is due (0: now), or -1 when no clock runs. (The tick it is
        due, `mark_at`, is kept as records and marks are written: a pass only compares.)"""
        if not self.started or clock.state != gameclock.RUNNING:
            return -1
        d = ticks_diff(self.mark_at, now)
        return d if d > 0 else 0

    def mark(self, now):
        """A progress mark, when one is due at `now`. Counted written or not: a mark with no
        room in the flash is tried again a mark later, not in a spin. Held records go first,
        and one of them may be the progress the mark would have said (then it is not due:
        a mark written after it would give the running side's time away on a replay)."""
        if self.held:
            self.flush()
            if ticks_diff(now, self.mark_at) < 0:
                return
        self.journal.mark()
        self.marks += 1
        self.mark_at = ticks_add(self.mark_at, MARK_MS)
