"""The arbiter's adjustment of a side's time: what each time control lets an arbiter set.

`set_side_time(clock, side, ...)` checks and applies one adjustment to a GameClock that is
paused or not started (the clock checks that, and reports the change). The bounds of
timecontrol.parse hold here too: a side never holds more than MAX_HOLD_MS, counts stay in
their ranges, and main time is never set to 0 where that would lose at once. Values are
integer ms and counts; anything else is refused, so nothing here can become a long int.
"""

from goclockfw.core.gameclock import ClockError
from goclockfw.core.timecontrol import (
    BYOYOMI,
    CANADIAN,
    DELAY,
    FISCHER,
    HOURGLASS,
    ING,
    MAX_HOLD_MS,
    MAX_MOVES,
    MAX_PERIODS,
    UNTIMED,
    hold_excess,
)


def _duration(ms):
    """A block's length in words for a message: "10 min", "90 s" (whole seconds)."""
    s = ms // 1000
    return "%d min" % (s // 60) if s % 60 == 0 else "%d s" % s


def _check_types(main_ms, periods, period_ms, moves):
    for name, value in (
        ("main", main_ms),
        ("periods", periods),
        ("period", period_ms),
        ("moves", moves),
    ):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise ClockError("%s: must be a whole number, got %r" % (name, value))


def _check_fields(kind, main_ms, periods, period_ms, moves):
    if kind == UNTIMED:
        raise ClockError("an untimed game has no time to set")
    if periods is not None and kind != BYOYOMI and kind != ING:
        raise ClockError("this time control has no periods")
    if moves is not None and kind != CANADIAN:
        raise ClockError("this time control has no moves")
    if period_ms is not None and kind not in (BYOYOMI, CANADIAN, ING):
        raise ClockError("this time control has no period")
    for name, value, low, high in (
        ("main", main_ms, 0, MAX_HOLD_MS),
        ("periods", periods, 0, MAX_PERIODS),
        ("moves", moves, 1, MAX_MOVES),
    ):
        if value is not None and (value < low or value > high):
            raise ClockError("%s: must be from %d to %d" % (name, low, high))


def _check_ing(s, main_ms, periods, period_ms):
    # Entering overtime costs points, so the arbiter cannot move a side across that line:
    # in main time only main time and the periods to come are set, in overtime the periods
    # left (counting the one in use) and the time left of the one in use.
    if s.in_block:
        if main_ms is not None:
            raise ClockError("main: this side is in overtime (set --periods or --period)")
        if periods is not None and periods < 1:
            raise ClockError("periods: at least 1 in overtime (the one in use)")
    else:
        if main_ms is not None and main_ms <= 0:
            raise ClockError("main: must be more than 0 (overtime begins when it runs out)")
        if period_ms is not None:
            raise ClockError("period: this side is not in overtime yet")


def _check_period(clock, side, new_main, main_ms, period_ms, moves):
    """ClockError if `side` may not have the period (byo-yomi) or block (Canadian, Ing)
    `period_ms` left now."""
    s = clock.sides[side]
    kind = clock.tc.kind
    limit = MAX_HOLD_MS if kind == CANADIAN else s.settings.period_ms
    if period_ms <= 0 or period_ms > limit:
        raise ClockError("period: must be more than 0 and at most the period length")
    if kind == BYOYOMI and (side != clock.turn or new_main):
        # A side's next move always starts a fresh period (rules, art. 12.3).
        raise ClockError("period: only the side to move, in byo-yomi, has a period running")
    if kind == CANADIAN and (new_main if main_ms is not None else not s.in_block):
        # Its first block is a whole one: a block set now would be a value nobody sees
        # until main time runs out. Set it once the side is in its block.
        raise ClockError(
            "period: this side is in main time; its first block will be %d moves in %s"
            % (s.moves if moves is None else moves, _duration(s.settings.period_ms))
        )


def set_side_time(clock, side, main_ms, periods, period_ms, moves):
    """Check the adjustment of `side`'s time on `clock` and apply it; ClockError if refused."""
    _check_types(main_ms, periods, period_ms, moves)
    s = clock.sides[side]
    tc = clock.tc
    kind = tc.kind
    _check_fields(kind, main_ms, periods, period_ms, moves)
    new_main = s.main if main_ms is None else main_ms
    new_periods = s.periods if periods is None else periods
    if period_ms is not None:
        _check_period(clock, side, new_main, main_ms, period_ms, moves)
    if kind == ING:
        _check_ing(s, main_ms, periods, period_ms)
    if kind == BYOYOMI and new_main == 0 and new_periods == 0:
        raise ClockError("a side needs main time or at least one period")
    if kind not in (BYOYOMI, CANADIAN, ING, DELAY) and new_main == 0:
        raise ClockError("main: must be more than 0")
    if kind == DELAY and new_main == 0 and s.settings.delay_ms == 0:
        raise ClockError("main: must be more than 0 (this side has no delay)")
    if kind == FISCHER and new_main > s.settings.ceiling_ms:
        raise ClockError("main: at most the Fischer cap, %d s" % (s.settings.ceiling_ms // 1000))
    if hold_excess(tc, s.settings, new_main, new_periods)[1]:
        raise ClockError("a side can hold at most %d s in all" % (MAX_HOLD_MS // 1000))
    if kind == HOURGLASS and new_main > MAX_HOLD_MS - clock.sides[1 - side].main:
        raise ClockError("the hourglass holds at most %d s in all" % (MAX_HOLD_MS // 1000))
    if kind == DELAY and tc.delay_mode == "bronstein" and new_main == 0 and s.main > 0:
        # From now on each move may use up to the delay; this one has used move_used.
        left = s.settings.delay_ms - s.move_used if side == clock.turn else 0
        s.delay_left = left if left > 0 else 0
    s.main = new_main
    s.periods = new_periods
    if kind == BYOYOMI:
        if main_ms:
            s.period_used = 0
        if period_ms is not None:
            s.period_used = s.settings.period_ms - period_ms
    elif kind == CANADIAN:
        if main_ms and s.in_block:
            # Back in main time: what was left of the block does not wait there unseen;
            # the first block after main time is a whole one, as the status shows.
            s.in_block = False
            s.block = s.settings.period_ms
            s.moves = s.settings.moves
        elif main_ms == 0:
            s.in_block = True
        if moves is not None:
            s.moves = moves
        if period_ms is not None:
            s.block = period_ms
    elif kind == ING and period_ms is not None:
        s.block = period_ms
    s.flagged = False
