"""Issue 11: no reachable state of the clock holds a value a 32-bit port cannot keep small.

MicroPython's small ints on a 32-bit port are 31-bit signed, and tick differences are
valid below 2**29 ms. `timecontrol.parse` bounds what a side can ever hold (48 h), the
counts and the steps; the clock's counters stop at 2**28 ms. The property below plays
random long games under time controls at those bounds — presses, pauses, adjustments
within and far beyond the limits, late arrivals, rulings — and after every action looks
at every integer the clock keeps, and every value it reports, through the tick wrap.
"""

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from goclockfw.core import gameclock, timecontrol
from goclockfw.core.gameclock import BLACK, WHITE, GameClock
from goclockfw.core.ticks import TICKS_PERIOD, ticks_add
from goclockfw.core.timecontrol import COUNTER_CAP_MS, MAX_HOLD_MS

LIMIT = 1 << 29
H = 3600


class Listener:
    """Every value the clock reports must be small too."""

    def __init__(self):
        self.count = 0

    def on_clock(self, kind, side, tick, value):
        assert 0 <= tick < TICKS_PERIOD
        if isinstance(value, int) and not isinstance(value, bool):
            assert -LIMIT < value < LIMIT, (kind, value)
        self.count += 1


def big_ints(obj, skip=()):
    """(name, value) of every int attribute of `obj` at or beyond 2**29 in size."""
    out = []
    for name, v in vars(obj).items():
        if name in skip or isinstance(v, bool) or not isinstance(v, int):
            continue
        if not -LIMIT < v < LIMIT:
            out.append((name, v))
    return out


def check(clock, now):
    assert 0 <= clock._seg_start < TICKS_PERIOD  # a tick, not a time: below the wrap
    assert big_ints(clock, skip=("_seg_start", "deadline")) == []  # (ticks, both)
    assert big_ints(clock._next) == []
    for s in clock.sides:
        assert big_ints(s) == [], vars(s)
        assert 0 <= s.ran <= COUNTER_CAP_MS and 0 <= s.move_used <= COUNTER_CAP_MS
    for side in (BLACK, WHITE):
        status = clock.side_status(side, now)
        for key, v in status.items():
            if not isinstance(v, bool):
                assert -LIMIT < v < LIMIT, (key, v)
        # What a side holds never passes the bound parse checks (48 h).
        assert status["main_ms"] <= MAX_HOLD_MS and status.get("period_ms", 0) <= MAX_HOLD_MS
        assert status.get("spent_ms", 0) <= COUNTER_CAP_MS
    if clock.tc.kind == "hourglass":
        total = sum(clock.side_status(side, now)["main_ms"] for side in (BLACK, WHITE))
        assert total <= MAX_HOLD_MS


KINDS = ["sudden_death", "byoyomi", "canadian", "fischer", "delay", "hourglass", "untimed", "ing"]


@st.composite
def extreme_time_controls(draw, kind):
    """Time controls of `kind` at (or near) every bound parse allows."""
    hold = 48 * H
    top = st.sampled_from([hold, hold - 3600, hold // 2, 60, 1])
    tc = {"type": kind, "calls": "none"}
    if kind == "untimed":
        return tc
    tc["main"] = draw(top)
    if kind in ("byoyomi", "ing"):
        periods = draw(st.sampled_from([0, 1, 5, 600]))
        room = hold - tc["main"]
        tc["periods"] = periods
        tc["period"] = max(1, room // max(periods, 1)) if periods else 60
    elif kind == "canadian":
        tc.update(moves=draw(st.sampled_from([1, 25, 200])), carry=draw(st.booleans()))
        tc["period"] = max(1, hold - tc["main"])
    elif kind == "fischer":
        tc["increment"] = draw(st.sampled_from([0, 1, 3600]))
        if draw(st.booleans()):
            tc["max"] = draw(st.sampled_from([tc["main"], hold]))
    elif kind == "delay":
        tc["delay"] = draw(st.sampled_from([1, 3600]))
        tc["mode"] = draw(st.sampled_from(["bronstein", "simple"]))
        tc["main"] = min(tc["main"], hold - tc["delay"])
        if tc["mode"] == "bronstein" and draw(st.booleans()):
            tc["main"] = 0
    elif kind == "hourglass":
        tc["main"] = min(tc["main"], hold // 2)
    if tc.get("main") == 0 and kind in ("byoyomi",) and not tc["periods"]:
        tc["main"] = 60
    if draw(st.booleans()):
        tc["late_limit"] = draw(st.sampled_from([5, 15 * 60, hold]))
    return tc


# A move: a few ms (Fischer and carried blocks grow fastest with quick moves), a normal
# one, or up to 2**28 ms (74 h: long untimed moves, byo-yomi periods of many hours).
gaps = st.one_of(st.integers(0, 50), st.integers(0, 120000), st.integers(0, 1 << 28))
huge = st.one_of(st.none(), st.integers(-(10**12), 10**12), st.integers(0, MAX_HOLD_MS + 10))
press = st.tuples(st.just("press"), gaps)
actions = st.one_of(
    press,
    press,
    press,
    st.tuples(
        st.just("pause_adjust"), st.tuples(st.sampled_from([BLACK, WHITE]), huge, huge, huge)
    ),
    st.tuples(st.just("late"), st.sampled_from([BLACK, WHITE])),
    st.tuples(st.just("ruling"), st.just(0)),
)


@pytest.mark.parametrize("kind", KINDS)
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    plan=st.lists(actions, min_size=20, max_size=250),
    offset=st.sampled_from([0, TICKS_PERIOD - 1, TICKS_PERIOD // 2 - 7]),
)
def test_no_reachable_state_holds_a_big_int(kind, data, plan, offset):
    tc_json = data.draw(extreme_time_controls(kind))
    try:
        tc = timecontrol.parse(tc_json)
    except timecontrol.ConfigError:
        assume(False)
    clock = GameClock(tc, Listener())
    now = offset
    clock.start(now)
    check(clock, now)
    for kind, arg in plan:
        if kind == "press":
            now = ticks_add(now, arg)
            clock.press(now, clock.turn)
        elif kind == "pause_adjust":
            side, main, periods, period = arg
            clock.pause(now)
            try:
                clock.adjust(
                    side,
                    main_ms=main,
                    periods=None if periods is None else abs(periods) % 1000,
                    period_ms=period,
                    now=now,
                )
            except gameclock.ClockError:
                pass
            check(clock, now)
            now = ticks_add(now, 1000)
            clock.resume(now)
        elif kind == "late":
            if clock.late(now, arg):
                now = ticks_add(now, 60000)
                clock.arrive(now, arg)
        else:
            clock.timeout_pass(now)
        check(clock, now)
        clock.advance(now)
        check(clock, now)


def test_a_byoyomi_game_without_end_stops_its_counters():
    """200 moves just under a 2 h period: 400 hours of game, no flag, no long int."""
    tc = {"type": "byoyomi", "main": 0, "periods": 1, "period": 7200, "calls": "none"}
    clock = GameClock(timecontrol.parse(tc), Listener())
    now = 0
    clock.start(now)
    for move in range(200):
        now = ticks_add(now, 7200 * 1000 - 1)
        assert clock.press(now, move % 2)
    check(clock, now)
    assert clock.sides[BLACK].ran == COUNTER_CAP_MS and clock._active == COUNTER_CAP_MS


def test_a_carried_canadian_block_stops_at_the_ceiling():
    tc = {"type": "canadian", "main": 60, "moves": 1, "period": 36 * H, "carry": True}
    clock = GameClock(timecontrol.parse(tc), Listener())
    now = 0
    clock.start(now)
    for move in range(12):
        now = ticks_add(now, 60000 if move < 2 else 1)
        assert clock.press(now, move % 2)
    assert clock.sides[BLACK].block == MAX_HOLD_MS
    check(clock, now)


def test_the_issue_11_examples_are_refused():
    for obj, field in (
        ({"type": "fischer", "main": 48 * H, "increment": 48 * H}, "increment"),
        ({"type": "byoyomi", "main": 0, "periods": 999, "period": 48 * H}, "periods"),
        ({"type": "byoyomi", "main": 0, "periods": 3, "period": 0.001, "calls": "none"}, "period"),
        ({"type": "sudden_death", "main": 60, "late_limit": 0}, "late_limit"),
    ):
        try:
            timecontrol.parse(obj)
        except timecontrol.ConfigError as exc:
            assert str(exc).startswith(field + ":"), str(exc)
        else:
            raise AssertionError("accepted: %r" % (obj,))
