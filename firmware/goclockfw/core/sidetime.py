"""One side's time allowance, kept *settled*: as of the start of a running segment.

The clock core never decrements time tick by tick. A side's values hold as of
the instant its current running segment began; `view(tc, r)` says what they
are `r` ms later without changing anything, and `settle(tc, r)` moves them
there for good when a new segment starts (a move, a resume, a state change).

The counters that are not time left (`move_used`, `ran`) stop at
COUNTER_CAP_MS instead of growing without end: a byo-yomi or untimed game can
go on for ever, and no value here may outgrow a small int.
"""

from goclockfw.core.timecontrol import (
    BYOYOMI,
    CANADIAN,
    COUNTER_CAP_MS,
    DELAY,
    ING,
    UNTIMED,
)


def add_capped(a, r):
    """a + r, stopping at COUNTER_CAP_MS (0 <= a <= the cap, 0 <= r < 2**29): no long int."""
    return a + r if r < COUNTER_CAP_MS - a else COUNTER_CAP_MS


class SideTime:
    """What one side has left: main time, periods, block, and its bookkeeping."""

    _FIELDS = (
        "main",
        "periods",
        "period_used",
        "moves",
        "block",
        "in_block",
        "delay_left",
        "move_used",
        "ran",
        "flagged",
        "absent",
        "penalties",
    )

    def __init__(self, settings):
        self.settings = settings
        self.main = settings.main_ms
        self.periods = settings.periods
        self.period_used = 0  # byo-yomi: ms spent of the period in use
        self.moves = settings.moves  # Canadian: moves still to make in the block
        self.block = settings.period_ms  # Canadian block, Ing period: ms left in it
        self.in_block = settings.main_ms == 0  # Canadian, Ing: past main time
        self.delay_left = settings.delay_ms  # delay: free ms left of this move
        self.move_used = 0  # ms of the current move before this segment
        self.ran = 0  # ms this side's clock has run in the game
        self.flagged = False
        self.absent = False
        self.penalties = 0  # Ing: overtime periods entered (each costs the penalty)
        # The byo-yomi call table, built for `table_left` periods left. Kept per
        # side so that a press, which switches sides, builds nothing.
        self.table_left = -1
        self.offsets = ()
        self.phrases = ()
        # The table this side needs next (its first period while in main time, else the
        # one after this), built ahead at a quiet moment (Planner.prepare): a period's
        # start then builds nothing. For `next_left` periods left of `next_ms` each.
        self.next_left = -1
        self.next_ms = 0
        self.next_offsets = ()
        self.next_phrases = ()

    def in_main(self, tc):
        """Is this side's main time what runs (rather than a period or a block)?"""
        if tc.kind == BYOYOMI:
            return self.main > 0 or self.periods == 0
        if tc.kind == CANADIAN or tc.kind == ING:
            return not self.in_block
        return True

    def delay_free(self, tc):
        """Does this move start with free delay time before main time runs?

        The simple (US) delay always; the Bronstein delay when main time is 0: with no
        main time to give back to, each move may use up to the delay and no more."""
        return tc.kind == DELAY and (tc.delay_mode == "simple" or self.main == 0)

    def view(self, tc, r):
        """(main, period_used, block, delay_left) after `r` more ms of running."""
        main, period_used, block, delay_left = (
            self.main,
            self.period_used,
            self.block,
            self.delay_left,
        )
        if tc.kind == UNTIMED:
            pass  # nothing runs out: `ran` counts up (spent())
        elif self.in_main(tc):
            if self.delay_free(tc):
                free = delay_left if r > delay_left else r
                delay_left -= free
                r -= free
            main -= r
        elif tc.kind == BYOYOMI:
            period_used += r
        else:
            block -= r
        return main, period_used, block, delay_left

    def spent(self, r):
        """This side's clock's total run after `r` more ms (capped like `ran`)."""
        return add_capped(self.ran, r)

    def settle(self, tc, r):
        """Move the values `r` ms forward: the same arithmetic as `view`, kept.

        Not written as a call to `view`: its tuple would be allocated on every press. (And
        `in_main`, `delay_free` and `add_capped` written out: a call costs a Cortex-M0+ more
        than the lines, and this runs at every press.)"""
        kind = tc.kind
        if kind == UNTIMED:
            pass
        elif (
            self.main > 0 or self.periods == 0
            if kind == BYOYOMI
            else not self.in_block
            if kind == CANADIAN or kind == ING
            else True
        ):
            if kind == DELAY and (tc.delay_mode == "simple" or self.main == 0):
                free = self.delay_left if r > self.delay_left else r
                self.delay_left -= free
                self.main -= r - free
            else:
                self.main -= r
        elif kind == BYOYOMI:
            self.period_used += r
        else:
            self.block -= r
        a = self.move_used
        self.move_used = a + r if r < COUNTER_CAP_MS - a else COUNTER_CAP_MS
        a = self.ran
        self.ran = a + r if r < COUNTER_CAP_MS - a else COUNTER_CAP_MS

    def to_dict(self):
        return {name: getattr(self, name) for name in self._FIELDS}

    def load(self, data):
        for name in self._FIELDS:
            if name in data:
                setattr(self, name, data[name])
