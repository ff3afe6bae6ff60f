"""The next deadline of the side whose clock runs.

Given a side's settled time (core/sidetime.py) and the call profile, `Planner.plan`
finds the first thing that will happen strictly after `done` ms into the
current segment: a call, main time running out, the end of a byo-yomi period,
of a Canadian block or of an Ing overtime period. An untimed game has nothing
to run out: its side gets a silent REBASE every hour, so that no segment lasts
long enough for a tick difference to go wrong (they are valid up to 2**29 ms). Several calls can share one millisecond ("1分",
"还剩4分"); `fired`, the table index of the call already made at `done`, tells
them apart. The result is kept in attributes, not returned as a tuple, so that
planning allocates nothing.
"""

from goclockfw.core.timecontrol import BYOYOMI, CANADIAN, DELAY, ING, UNTIMED

CALL = 0
MAIN_END = 1
PERIOD_END = 2
BLOCK_END = 3
LATE = 4
REBASE = 5

REBASE_MS = 3600000  # an untimed side's segment is settled every hour

# `fired` when a segment starts: every call on its first millisecond counts as
# made (made before a rebase, or a moment already reached when the move began).
ALL_FIRED = 1 << 20


class Planner:
    """Finds and holds the next deadline: `offset`, `kind`, `value` (a phrase), `index`."""

    def __init__(self, tc, calls):
        self.tc = tc
        self.calls = calls
        self.offset = None
        self.kind = CALL
        self.value = None
        self.index = 0

    def set(self, offset, kind, value, index=0):
        self.offset = offset
        self.kind = kind
        self.value = value
        self.index = index

    def plan(self, s, done, fired):
        """The side `s` runs; find its next deadline after (done, fired)."""
        tc = self.tc
        kind = tc.kind
        self.offset = None
        if kind == BYOYOMI and s.main <= 0 and s.periods != 0:  # (not s.in_main, written out)
            end = s.settings.period_ms - s.period_used
            end_kind = PERIOD_END
            if s.table_left != s.periods:
                ms = s.settings.period_ms
                if s.next_left == s.periods and s.next_ms == ms:
                    s.offsets = s.next_offsets  # built ahead (prepare)
                    s.phrases = s.next_phrases
                else:
                    s.offsets, s.phrases = self.calls.period_calls(ms, s.periods)
                s.table_left = s.periods
            base = -s.period_used
            offsets = s.offsets
            for i in range(len(offsets)):
                at = base + offsets[i]
                if at > done or (at == done and i > fired):
                    self.set(at, CALL, s.phrases[i], i)
                    break
        elif kind == UNTIMED:
            end = REBASE_MS
            end_kind = REBASE
        else:
            if (kind == CANADIAN or kind == ING) and s.in_block:
                end = s.block
                end_kind = BLOCK_END
                # A Canadian block that runs out loses; so does the last Ing period.
                losing = kind == CANADIAN or s.periods <= 1
            else:
                end = s.main
                if kind == DELAY and (tc.delay_mode == "simple" or end == 0):  # (delay_free)
                    end += s.delay_left
                end_kind = MAIN_END
                losing = kind != CANADIAN and not (
                    (kind == BYOYOMI or kind == ING) and s.periods > 0
                )
            if losing:
                countdown = self.calls.countdown
                for i in range(len(countdown)):
                    at = end - countdown[i][0]
                    if at > done or (at == done and i > fired):
                        self.set(at, CALL, countdown[i][1], i)
                        break
        # On one millisecond the calls come first, then the state change they announce.
        if self.offset is None or end < self.offset:
            self.offset = end  # (set, written out)
            self.kind = end_kind
            self.value = None
            self.index = 0

    def prepare(self, s):
        """Build ahead the byo-yomi call table the running side `s` needs next: its first
        period's while main time runs, else the next period's. True when it built one
        (a quiet moment's work: `plan` at the period's start then only takes it)."""
        if self.tc.kind != BYOYOMI:
            return False
        left = s.periods if s.main > 0 else s.periods - 1
        ms = s.settings.period_ms
        if left <= 0 or (s.next_left == left and s.next_ms == ms):
            return False
        if s.table_left == left and s.main > 0:
            return False  # (the current table is that one)
        s.next_offsets, s.next_phrases = self.calls.period_calls(ms, left)
        s.next_left = left
        s.next_ms = ms
        return True

    def plan_late(self, at):
        """A late side's forfeit at offset `at`, if it comes before the planned deadline."""
        if at < self.offset or (at == self.offset and self.kind != CALL):
            self.set(at if at > 0 else 0, LATE, None)
