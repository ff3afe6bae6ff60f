"""Issue 17, item 1: an arbiter's adjustment is shown exactly as it will take effect, or
refused; no value it set waits unseen for later.

The defect: Canadian `can 1h+15/10m`, Black in main time, `time set black 0:03 --period
2m` was accepted and shown as "0:03  15 moves in 10:00"; when main time ran out Black had
a 2-minute block, and a later `time set` without `--period` kept it. Now the period of a
side in main time is refused with what its first block will be, and a side given main
time back from a block starts its next block whole.

The property behind it, for every time control: two clocks with the same game behind them
that show the same status after an adjustment go on the same way, whatever adjustments
(accepted or refused) came before it. A value an adjustment left somewhere the status does
not show makes them part.
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goclockfw.app import display
from goclockfw.core import gameclock
from goclockfw.core.gameclock import BLACK, WHITE
from support.coreclock import make

CAN = {"type": "canadian", "main": 3600, "moves": 15, "period": 600, "calls": "none"}


def paused_in_main_time():
    clock, rec = make(CAN)
    clock.start(0)
    clock.pause(5000)
    return clock, rec


def test_the_issue_17_example_is_refused_with_the_first_block():
    clock, rec = paused_in_main_time()
    with pytest.raises(
        gameclock.ClockError,
        match="^period: this side is in main time; its first block will be 15 moves in 10 min$",
    ):
        clock.adjust(BLACK, main_ms=3000, period_ms=120000, now=5000)
    with pytest.raises(gameclock.ClockError, match="12 moves in 10 min"):
        clock.adjust(BLACK, period_ms=120000, moves=12, now=5000)
    assert rec.kinds("adjust") == []  # nothing changed
    clock.adjust(BLACK, main_ms=3000, now=5000)  # what the arbiter can do: main time
    assert clock.side_status(BLACK, 5000) == {
        "main_ms": 3000,
        "flagged": False,
        "moves": 15,
        "period_ms": 600000,
    }
    clock.resume(6000)
    clock.advance(11000)  # 3 s of main time, then the first block: 10 min, as shown
    assert clock.side_status(BLACK, 11000)["period_ms"] == 598000


def test_a_block_can_still_be_set_where_it_runs():
    clock, _ = paused_in_main_time()
    clock.adjust(BLACK, main_ms=0, period_ms=120000, now=5000)  # into the block, 2 min
    assert clock.side_status(BLACK, 5000)["period_ms"] == 120000
    clock.adjust(BLACK, period_ms=90000, now=5000)  # in the block: its time left
    assert clock.side_status(BLACK, 5000)["period_ms"] == 90000


def test_main_time_given_back_from_a_block_leaves_no_block_behind():
    clock, _ = paused_in_main_time()
    clock.adjust(BLACK, main_ms=0, period_ms=120000, moves=3, now=5000)
    clock.adjust(BLACK, main_ms=3000, now=5000)  # back in main time
    shown = clock.side_status(BLACK, 5000)
    assert shown["moves"] == 15 and shown["period_ms"] == 600000
    clock.resume(6000)
    clock.advance(9000)
    assert clock.side_status(BLACK, 9000)["period_ms"] == 600000  # a whole block


def test_a_delay_side_set_to_main_0_shows_the_delay_it_has():
    """Bronstein 1m+10s, Black set to main 0 four seconds into a move: each move may use up
    to the delay from now on, and this one has 6 s left; the status said main 0:00 only."""
    clock, _ = make({"type": "delay", "main": 60, "delay": 10, "mode": "bronstein"})
    clock.start(0)
    clock.pause(4000)
    clock.adjust(BLACK, main_ms=0, now=4000)
    shown = clock.side_status(BLACK, 4000)
    assert shown == {"main_ms": 0, "flagged": False, "period_ms": 6000}
    assert display.view(clock.status(4000) | {"time_control": {}})["black"] == "0:06"
    # And a per-move side given main time has main time, shown as such.
    clock, _ = make({"type": "delay", "main": 0, "delay": 10, "mode": "bronstein"})
    clock.start(0)
    clock.pause(4000)
    clock.adjust(BLACK, main_ms=60000, now=4000)
    assert clock.side_status(BLACK, 4000) == {"main_ms": 60000, "flagged": False}


# ----- the property ---------------------------------------------------------------------

TIME_CONTROLS = [
    {"type": "sudden_death", "main": 120},
    {"type": "byoyomi", "main": 60, "periods": 3, "period": 30},
    {"type": "byoyomi", "main": 0, "periods": 2, "period": 20},
    {"type": "canadian", "main": 60, "moves": 3, "period": 40, "carry": False},
    {"type": "canadian", "main": 30, "moves": 2, "period": 30, "carry": True},
    {"type": "fischer", "main": 60, "increment": 5, "max": 90},
    {"type": "delay", "main": 60, "delay": 5, "mode": "bronstein"},
    {"type": "delay", "main": 0, "delay": 20, "mode": "bronstein"},
    {"type": "delay", "main": 40, "delay": 5, "mode": "simple"},
    {"type": "hourglass", "main": 60},
    {"type": "ing", "main": 60, "periods": 2, "period": 30, "penalty": 2},
]

seconds = st.sampled_from([0, 1, 5, 20, 30, 45, 90]).map(lambda s: s * 1000)
adjustments = st.fixed_dictionaries(
    {},
    optional={
        "main_ms": st.one_of(seconds, st.integers(1, 90000)),
        "periods": st.integers(0, 4),
        "period_ms": st.one_of(seconds, st.integers(1, 60000)),
        "moves": st.integers(1, 4),
    },
)
gaps = st.integers(0, 45000)


def play(tc, history, now=0):
    """A clock that played `history` (gaps between presses) and is then paused; its events."""
    clock, rec = make(dict(tc, calls="cn" if tc["type"] == "byoyomi" else "none"))
    clock.start(now)
    for gap in history:
        now += gap
        clock.press(now, clock.turn)
    clock.advance(now)
    clock.pause(now)
    return clock, rec, now


def adjust(clock, side, args, now):
    try:
        clock.adjust(side, now=now, **args)
    except gameclock.ClockError:
        return False
    return True


def shown(clock, now):
    return clock.status(now), clock.state, clock.turn


def go_on(clock, rec, now, presses):
    """Resume and play on; the events from there, tick by tick."""
    start = len(rec.events)
    clock.resume(now)
    for gap in presses + [200000, 200000]:  # at the end each side runs long: into overtime
        now += gap
        clock.press(now, clock.turn)
    clock.advance(now + 200000)
    return rec.events[start:], clock.status(now + 200000)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tc=st.sampled_from(TIME_CONTROLS),
    history=st.lists(gaps, max_size=4),
    side=st.sampled_from([BLACK, WHITE]),
    earlier=st.lists(adjustments, min_size=1, max_size=2),
    last=adjustments,
    presses=st.lists(gaps, max_size=4),
)
def test_nothing_an_adjustment_sets_is_hidden(tc, history, side, earlier, last, presses):
    a, a_rec, now = play(tc, history)
    if a.state != gameclock.PAUSED:
        return  # the game ended before the arbiter could step in
    b, b_rec, _ = play(tc, history)
    for args in earlier:  # only clock A had these, accepted or refused
        adjust(a, side, args, now)
    if not (adjust(a, side, last, now) and adjust(b, side, last, now)):
        return
    if shown(a, now) != shown(b, now):
        return  # what the earlier adjustments did is on show: no secret
    assert go_on(a, a_rec, now + 1000, presses) == go_on(b, b_rec, now + 1000, presses)
