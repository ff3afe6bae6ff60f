"""One side's time allowance, kept *settled*: as of the start of a running segment.

The clock core never decrements time tick by tick. A side's values hold as of
the instant its current running segment began; `view(tc, r)` says what they
are `r` ms later without changing anything, and `settle(tc, r)` moves them
there for good when a new segment starts (a move, a resume, a state change).
"""

from goclockfw.core.timecontrol import BYOYOMI, CANADIAN, DELAY


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
    )

    def __init__(self, settings):
        self.settings = settings
        self.main = settings.main_ms
        self.periods = settings.periods
        self.period_used = 0  # byo-yomi: ms spent of the period in use
        self.moves = settings.moves  # Canadian: moves still to make in the block
        self.block = settings.period_ms  # Canadian: ms left in the block
        self.in_block = settings.main_ms == 0
        self.delay_left = settings.delay_ms  # simple delay: free ms left of this move
        self.move_used = 0  # ms of the current move before this segment
        self.ran = 0  # ms this side's clock has run in the game
        self.flagged = False
        self.absent = False
        # The byo-yomi call table, built for `table_left` periods left. Kept per
        # side so that a press, which switches sides, builds nothing.
        self.table_left = -1
        self.offsets = ()
        self.phrases = ()

    def in_main(self, tc):
        """Is this side's main time what runs (rather than a period or a block)?"""
        if tc.kind == BYOYOMI:
            return self.main > 0 or self.periods == 0
        if tc.kind == CANADIAN:
            return not self.in_block
        return True

    def view(self, tc, r):
        """(main, period_used, block, delay_left) after `r` more ms of running."""
        main, period_used, block, delay_left = (
            self.main,
            self.period_used,
            self.block,
            self.delay_left,
        )
        if self.in_main(tc):
            if tc.kind == DELAY and tc.delay_mode == "simple":
                free = delay_left if r > delay_left else r
                delay_left -= free
                r -= free
            main -= r
        elif tc.kind == BYOYOMI:
            period_used += r
        else:
            block -= r
        return main, period_used, block, delay_left

    def settle(self, tc, r):
        """Move the values `r` ms forward: the same arithmetic as `view`, kept.

        Not written as a call to `view`: its tuple would be allocated on every press.
        """
        if self.in_main(tc):
            if tc.kind == DELAY and tc.delay_mode == "simple":
                free = self.delay_left if r > self.delay_left else r
                self.delay_left -= free
                self.main -= r - free
            else:
                self.main -= r
        elif tc.kind == BYOYOMI:
            self.period_used += r
        else:
            self.block -= r
        self.move_used += r
        self.ran += r

    def to_dict(self):
        return {name: getattr(self, name) for name in self._FIELDS}

    def load(self, data):
        for name in self._FIELDS:
            if name in data:
                setattr(self, name, data[name])
