"""Flash upkeep at quiet moments: the journal's erases and snapshots, never near a deadline.

An RP2040 flash erase stops the chip for up to ERASE_WORST_MS with interrupts off, and a
call must start within 20 ms of its moment. So the journal's quiet-time work (erasing a
used chunk, making a new one, storage/journal.py) and the snapshots of long games run one
step a loop pass, and only when `quiet`: no clip playing, and the next deadline, call or
progress mark further away than the worst case of the step (ERASE_WORST_MS for each
block it may erase, plus QUIET_SLACK_MS).

    up = Upkeep(session)
    up.due(running, now)   # is there work, and is now quiet enough for it? (when up.looks)
    up.run(running, now)   # one step of it
    up.free_ms(now)        # ms until something must happen on time (the display asks too)

A step that raises (a MemoryError: making or removing a chunk goes through littlefs, whose
file objects MicroPython allocates; a fragmented heap can refuse them) is not tried again
in the next pass: the exception goes on to the loop (which counts it), and the next step
waits BACKOFF_MS, twice as long after each failure in a row, up to BACKOFF_MAX_MS. After
GIVE_UP failures in a row only what a game cannot do without is tried (a chunk when fewer
than SPARES_RUNNING are ready, at BACKOFF_MAX_MS); the rest waits for the next game's
setup (`retry`). So a step that cannot succeed costs a few failures, not one every pass.
"""

from goclockfw.core import gameclock
from goclockfw.core.ticks import ticks_add, ticks_diff
from goclockfw.storage.journal import SNAPSHOT_MOVES, SPARES_RUNNING

CHECK_MS = 100  # how often a pass asks whether work is due, while none was (`due`)
MAX_WAIT_MS = 1000  # free_ms's answer when nothing is due sooner (app/wake.py's ceiling too)
ERASE_WORST_MS = 400
QUIET_SLACK_MS = 200
ERASE_QUIET_MS = QUIET_SLACK_MS + ERASE_WORST_MS  # the margin of a one-block step
BACKOFF_MS = 1000  # after a step failed: the wait before the next one, doubled each time
DOUBLINGS = 6
BACKOFF_MAX_MS = BACKOFF_MS << DOUBLINGS  # 64 s
GIVE_UP = 6  # failures in a row (at 0, 1, 3, 7, 15, 31 s) before only the essential is tried
IDLE = gameclock.IDLE
RUNNING = gameclock.RUNNING


class Upkeep:
    def __init__(self, session):
        self.s = session
        self._snap = self.snapshot  # bound once: the journal's work calls it back
        self._fs_free = session.fs.free
        self.check_at = 0  # the tick from which `due` looks again
        self.failures = 0  # steps failed in a row (an exception raised through)
        self._waiting = False  # a failed step's back-off has not passed yet
        self._retry_at = 0  # ... until this tick

    def free_ms(self, now):
        """Ms until the next thing that must happen on time: a deadline, a call, a mark."""
        s = self.s
        ms = MAX_WAIT_MS
        nd = s.clock.next_deadline()
        if nd is not None:
            d = ticks_diff(nd, now)
            ms = d if d < ms else ms
        d = s.records.mark_due_ms(s.clock, now)
        if 0 <= d < ms:
            ms = d
        return ms if ms > 0 else 0

    def due(self, running, now):
        """A snapshot or journal work to do, and the quiet its worst case needs. Asked in
        every pass where `looks` that has no other work (Session.step), and at most
        CHECK_MS late: after an answer of no (nothing to do, not quiet now, a failed step's
        back-off) the question is asked again CHECK_MS later, and at once after a step of
        work (one erase a pass)."""
        if self._waiting and ticks_diff(now, self._retry_at) >= 0:
            # Seen passed here, at most a few CHECK_MS after it passes: a tick difference
            # taken days later, with nothing wanted meanwhile, could read as negative again.
            self._waiting = False
        if ticks_diff(now, self.check_at) < 0:
            return False
        s = self.s
        j = s.journal
        if (
            running and s.records.started and j.moves_since_snapshot >= SNAPSHOT_MOVES
        ) or j.wants_work(running):
            if (not self.failures or self._may_retry()) and self.quiet(now, j.step_erases()):
                return True
        self.check_at = ticks_add(now, CHECK_MS)
        return False

    def looks(self, now):
        """Will `due` look for work at `now` (and not answer no at once)? After a step of
        work, and once CHECK_MS have passed since it last found none."""
        return ticks_diff(now, self.check_at) >= 0

    def overdue(self, now):
        """Has `due` not looked for CHECK_MS past its time (passes with other work leave
        it to the next pass: a loop busy every pass still looks this often)?"""
        return ticks_diff(now, self.check_at) >= CHECK_MS

    def _may_retry(self):
        """After a failed step: has its back-off passed, and is the work still worth trying?"""
        if self._waiting:
            return False
        return self.failures < GIVE_UP or len(self.s.journal.spares) < SPARES_RUNNING

    def retry(self):
        """A new game is set up: its preparation is tried again, whatever failed before."""
        self.failures = 0

    def _snapshot_due(self, running):
        s = self.s
        return running and s.records.started and s.journal.moves_since_snapshot >= SNAPSHOT_MOVES

    def quiet(self, now, erases=1):
        """Is this a moment where `erases` flash erases (up to ERASE_WORST_MS each of a
        stalled chip) hurt nobody: no clip playing, no deadline, call or progress mark close?"""
        s = self.s
        if s.announcer.busy():
            return False
        need = QUIET_SLACK_MS + erases * ERASE_WORST_MS
        d = s.records.mark_due_ms(s.clock, now)
        if 0 <= d <= need:
            return False  # a progress mark is due: written on time, a cut gives back < 2 s
        nd = s.clock.next_deadline()
        return nd is None or ticks_diff(nd, now) > need

    def run(self, running, now):
        """One step: the snapshot when one is due, else one step of the journal's work."""
        self.check_at = now  # more may be due: the next pass asks
        s = self.s
        j = s.journal
        if self._snapshot_due(running):
            try:
                self.snapshot()
            except Exception:
                self._failed()
                raise
            self.failures = 0
            return
        if j.wants_work(running):
            note = self.work(running)
            if note:
                s.notice("storage", note, now, speak=False)
            elif j.error:
                s.records.problem(j.error)

    def work(self, running):
        """One step of the journal's quiet-time work (an erase, a chunk made or dropped),
        with the board told that the flash may erase."""
        board = self.s.board
        board.erasing(True)
        try:
            # (Callbacks bound once: a closure or a bound method made here would allocate.)
            note = self.s.journal.work(running, self._fs_free, self._snap)
        except Exception:
            self._failed()
            raise
        finally:
            board.erasing(False)
        self.failures = 0
        return note

    def _failed(self):
        # No allocation here: the heap may be what failed. (A small int: the wait fits.)
        n = self.failures
        wait = BACKOFF_MS << n if n < DOUBLINGS else BACKOFF_MAX_MS
        self._retry_at = ticks_add(self.s.now, wait)
        self._waiting = True
        self.failures = n + 1 if n < GIVE_UP else GIVE_UP

    def snapshot(self):
        """The whole clock in one record: replay starts there (long games, a full flash)."""
        s = self.s
        clock = s.clock
        if not s.records.started or clock.state == IDLE:
            return False
        running = clock.state == RUNNING
        data = clock.checkpoint(s.now)
        if running:
            clock.resume(s.now)  # checkpoint() leaves it settled and paused
        ok = s.records.write("snapshot", s.now, None, (("running", running), ("clock", data)))
        if ok:
            s.journal.moves_since_snapshot = 0
        return ok
