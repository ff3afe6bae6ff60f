"""Unit tests of the clock core: ticks, time-control validation, call tables, the clock."""

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from goclockfw.core import callplan, gameclock, timecontrol
from goclockfw.core.gameclock import BLACK, WHITE, GameClock
from goclockfw.core.ticks import TICKS_PERIOD, ticks_add, ticks_diff
from support.coreclock import Recorder, make

# ----- ticks ---------------------------------------------------------------


def test_ticks_wrap():
    assert ticks_add(TICKS_PERIOD - 1, 1) == 0
    assert ticks_add(5, -10) == TICKS_PERIOD - 5
    assert ticks_diff(3, TICKS_PERIOD - 2) == 5
    assert ticks_diff(TICKS_PERIOD - 2, 3) == -5
    assert ticks_diff(ticks_add(123, 400000000), 123) == 400000000


@given(st.integers(0, TICKS_PERIOD - 1), st.integers(-TICKS_PERIOD + 1, TICKS_PERIOD - 1))
def test_ticks_add_is_modular(t, delta):
    assert ticks_add(t, delta) == (t + delta) % TICKS_PERIOD


@given(st.integers(0, TICKS_PERIOD - 1), st.integers(0, TICKS_PERIOD - 1))
def test_ticks_diff_is_the_nearest_signed_distance(a, b):
    d = ticks_diff(a, b)
    assert -TICKS_PERIOD // 2 <= d < TICKS_PERIOD // 2
    assert (b + d) % TICKS_PERIOD == a


# ----- time controls -------------------------------------------------------


@pytest.mark.parametrize(
    "obj",
    [
        {"type": "sudden_death", "main": 1800},
        {"type": "byoyomi", "main": 6900, "periods": 5, "period": 60},
        {"type": "byoyomi", "main": 0, "periods": 3, "period": 30},
        {"type": "byoyomi", "main": 600, "periods": 0},
        {"type": "canadian", "main": 3600, "moves": 15, "period": 600, "carry": True},
        {"type": "fischer", "main": 300, "increment": 5},
        {"type": "delay", "main": 300, "delay": 5, "mode": "simple"},
        {"type": "sudden_death", "main": 1800, "white": {"main": 600}, "first": "white"},
        {"type": "byoyomi", "main": 1.5, "periods": 1, "period": 7.5, "calls": "none"},
    ],
)
def test_valid_time_controls_round_trip(obj):
    tc = timecontrol.parse(obj)
    again = timecontrol.parse(tc.to_json())
    assert again.to_json() == tc.to_json()
    for i in (0, 1):
        assert again.sides[i].main_ms == tc.sides[i].main_ms


def test_seconds_become_integer_ms():
    tc = timecontrol.parse({"type": "fischer", "main": 0.25, "increment": 2.001})
    assert tc.sides[0].main_ms == 250
    assert tc.sides[0].increment_ms == 2001
    assert isinstance(tc.sides[0].main_ms, int)


def test_messages_give_the_limit_and_the_value():
    with pytest.raises(timecontrol.ConfigError) as err:
        timecontrol.parse({"type": "sudden_death", "main": 720000})
    assert str(err.value) == "main: at most 172800 seconds, got 720000"


def test_time_odds_apply_to_one_side():
    tc = timecontrol.parse(
        {"type": "byoyomi", "main": 3600, "periods": 3, "period": 30, "white": {"main": 600}}
    )
    assert tc.sides[BLACK].main_ms == 3600000
    assert tc.sides[WHITE].main_ms == 600000
    assert tc.sides[WHITE].periods == 3


@pytest.mark.parametrize(
    "obj, field",
    [
        ({"type": "sandglass", "main": 60}, "type"),
        ({"main": 60}, "type"),
        ({"type": "sudden_death"}, "main"),
        ({"type": "sudden_death", "main": -1}, "main"),
        ({"type": "sudden_death", "main": "60"}, "main"),
        ({"type": "sudden_death", "main": True}, "main"),
        ({"type": "sudden_death", "main": 60, "colour": "red"}, "colour"),
        ({"type": "byoyomi", "main": 60, "periods": 5}, "period"),
        ({"type": "byoyomi", "main": 60, "period": 30}, "periods"),
        ({"type": "byoyomi", "main": 60, "periods": 2.5, "period": 30}, "periods"),
        ({"type": "byoyomi", "main": 60, "periods": 3, "period": 5}, "period"),
        ({"type": "byoyomi", "main": 60, "periods": 3, "period": 30.5}, "period"),
        ({"type": "canadian", "main": 60, "moves": 0, "period": 300}, "moves"),
        ({"type": "canadian", "main": 60, "moves": 10, "period": 0}, "period"),
        ({"type": "canadian", "main": 60, "moves": 10, "period": 300, "carry": "yes"}, "carry"),
        ({"type": "fischer", "main": 60}, "increment"),
        ({"type": "delay", "main": 60, "delay": 5, "mode": "fast"}, "mode"),
        ({"type": "sudden_death", "main": 60, "calls": "klingon"}, "calls"),
        ({"type": "sudden_death", "main": 60, "first": "red"}, "first"),
        ({"type": "sudden_death", "main": 60, "white": {"increment": 3}}, "white.increment"),
        ({"type": "sudden_death", "main": 60, "white": {"main": -3}}, "white.main"),
        ({"type": "sudden_death", "main": 60, "black": 5}, "black"),
        ({"type": "sudden_death", "main": 0}, "main"),
        ({"type": "byoyomi", "main": 0, "periods": 0}, "main"),
        (
            {
                "type": "byoyomi",
                "main": 60,
                "periods": 1,
                "period": 30,
                "white": {"main": 0, "periods": 0},
            },
            "white.main",
        ),
        ({"type": "sudden_death", "main": 10**9}, "main"),
        ({"type": "sudden_death", "main": float("nan")}, "main"),  # CPython's json reads NaN
        ({"type": "fischer", "main": 60, "increment": float("inf")}, "increment"),
        ([1, 2], "time control"),
    ],
)
def test_bad_time_controls_name_the_field(obj, field):
    with pytest.raises(timecontrol.ConfigError) as err:
        timecontrol.parse(obj)
    assert str(err.value).startswith(field + ":") or str(err.value).startswith(field + " ")


# ----- call tables ---------------------------------------------------------


def table(period_s, left):
    offsets, phrases = callplan.ChineseCalls().period_calls(period_s * 1000, left)
    return [(o // 1000, p) for o, p in zip(offsets, phrases)]


def test_cn_minute_not_last():
    assert table(60, 5) == [
        (30, "30秒"),
        (40, "40秒"),
        (50, "50秒"),
        (55, "55秒"),
        (58, "58秒"),
        (60, "1分"),
        (60, "还剩4分"),
    ]


def test_cn_last_minute():
    assert table(60, 1) == [(30, "30秒"), (40, "40秒"), (50, "50秒")] + [
        (50 + i, str(i)) for i in range(1, 11)
    ]


def test_cn_fast_periods():
    assert table(30, 3) == [(10, "10秒"), (20, "20秒"), (25, "25秒"), (28, "28秒"), (30, "还剩2次")]
    assert table(30, 1) == [(10, "10秒"), (20, "20秒")] + [(20 + i, str(i)) for i in range(1, 11)]
    assert table(10, 2) == [(5, "5秒"), (8, "8秒"), (10, "还剩1次")]
    assert table(10, 1) == [(i, str(i)) for i in range(1, 11)]
    assert table(45, 2) == [
        (10, "10秒"),
        (20, "20秒"),
        (30, "30秒"),
        (40, "40秒"),
        (43, "43秒"),
        (45, "还剩1次"),
    ]


def test_countdown_before_a_loss():
    assert callplan.ChineseCalls.countdown == tuple(
        (9000 - 1000 * i, str(i + 1)) for i in range(10)
    )
    assert callplan.NoCalls().period_calls(60000, 3) == ((), ())


def test_phrase_list_covers_the_sequence():
    said = callplan.phrases(callplan.ChineseCalls())
    for p in (
        "30秒",
        "58秒",
        "1分",
        "还剩9分",
        "还剩9次",
        "1",
        "10",
        "开始读秒",
        "超时判负",
        "5秒",
        "8秒",
    ):
        assert p in said


# ----- the clock -----------------------------------------------------------


def test_next_deadline_and_exact_ticks():
    clock, rec = make({"type": "byoyomi", "main": 0, "periods": 2, "period": 60})
    clock.start(1000)
    assert clock.next_deadline() == 31000
    clock.advance(45000)
    assert [e[2] for e in rec.kinds("call")] == [31000, 41000]
    assert clock.next_deadline() == 51000


def test_press_at_period_end_uses_the_period():
    clock, rec = make({"type": "byoyomi", "main": 0, "periods": 2, "period": 30})
    clock.start(0)
    assert clock.press(30000, BLACK)
    assert clock.side_status(BLACK, 30000)["periods"] == 1
    assert rec.kinds("period") == [("period", BLACK, 30000, 1)]


def test_the_next_period_s_calls_built_ahead_are_the_ones_it_says():
    """clock.prepare() builds, at a quiet moment, the call table the running side needs
    next (its first period in main time, else the next one): the period's start then
    builds none, and every call comes at the tick and in the words it would have."""

    def game(prepared):
        clock, rec = make({"type": "byoyomi", "main": 20, "periods": 3, "period": 30})
        built = []
        where = ["start"]
        calls = clock.calls
        real = calls.period_calls
        calls.period_calls = lambda ms, left: built.append((left, where[0])) or real(ms, left)
        clock.start(0)
        for t in range(0, 95000, 500):
            if prepared:
                where[0] = "quiet"
                clock.prepare()
                clock.prepare()  # built once: nothing the second time
            where[0] = "deadline"
            clock.advance(t)
        return rec.kinds("call") + rec.kinds("period"), built

    plain, built_at_starts = game(False)
    ahead, built_ahead = game(True)
    assert ahead == plain and len(plain) > 10
    assert built_at_starts == [(3, "deadline"), (2, "deadline"), (1, "deadline")]
    assert built_ahead == [(3, "quiet"), (2, "quiet"), (1, "quiet")]  # each once, ahead
    clock, _ = make({"type": "fischer", "main": 60, "increment": 10})
    clock.start(0)
    assert clock.prepare() is False  # no periods: nothing to build


def test_press_one_ms_before_period_end_costs_nothing():
    clock, rec = make({"type": "byoyomi", "main": 0, "periods": 2, "period": 30})
    clock.start(0)
    assert clock.press(29999, BLACK)
    assert clock.side_status(BLACK, 29999)["periods"] == 2
    assert rec.kinds("period") == []


def test_pause_keeps_the_elapsed_part_of_a_period():
    clock, rec = make({"type": "byoyomi", "main": 0, "periods": 1, "period": 60})
    clock.start(0)
    clock.pause(20000)
    assert clock.side_status(BLACK, 500000)["period_ms"] == 40000
    clock.resume(500000)
    assert clock.next_deadline() == 510000  # "30秒", 10 s after the resume
    assert clock.press(505000, BLACK)
    assert rec.kinds("press") == [("press", BLACK, 505000, 25000)]  # pauses excluded


def test_checkpoint_restores_a_paused_game():
    clock, _ = make({"type": "canadian", "main": 10, "moves": 3, "period": 60})
    clock.start(0)
    clock.press(4000, BLACK)
    clock.press(20000, WHITE)
    data = clock.checkpoint(25000)
    rec = Recorder()
    back = GameClock.restore(timecontrol.parse(data["time_control"]), data, rec)
    assert back.state == gameclock.PAUSED
    assert back.turn == BLACK
    for side in (BLACK, WHITE):
        assert back.side_status(side, 0) == clock.side_status(side, 25000)
    back.resume(1000)
    assert back.next_deadline() == 1000 + 1000  # black had 10 - 4 - 5 = 1 s of main time left
    back.advance(6000)
    assert rec.kinds("overtime") == [("overtime", BLACK, 2000, None)]


def test_status_of_the_whole_game():
    clock, _ = make({"type": "byoyomi", "main": 10, "periods": 2, "period": 30})
    assert clock.status(0)["turn"] is None
    clock.start(0)
    clock.press(4000, BLACK)
    clock.advance(20000)
    st = clock.status(20000)
    assert (st["state"], st["turn"], st["moves"]) == ("running", "white", 1)
    assert st["black"] == {"main_ms": 6000, "flagged": False, "periods": 2, "period_ms": 30000}
    assert st["white"] == {"main_ms": 0, "flagged": False, "periods": 2, "period_ms": 24000}


def test_adjust_refused_while_running():
    clock, _ = make({"type": "sudden_death", "main": 60})
    clock.start(0)
    with pytest.raises(gameclock.ClockError):
        clock.adjust(BLACK, main_ms=1000)
    clock.pause(1000)
    clock.adjust(BLACK, main_ms=1000, now=1000)
    assert clock.side_status(BLACK, 1000)["main_ms"] == 1000


@pytest.mark.parametrize("offset", [0, TICKS_PERIOD - 3600 * 1000 * 6])
def test_twelve_hour_thousand_move_game_is_exact(offset):
    """1,000 moves over 12 hours (the tick wraps half-way when offset is set): 0 ms of error."""
    rng = random.Random(20261129)
    clock, rec = make({"type": "fischer", "main": 6 * 3600, "increment": 10})
    now = offset
    clock.start(now)
    spent = [0, 0]
    uses = []
    for move in range(1000):
        side = move % 2
        used = rng.randint(1, 2 * 43200)  # 43.2 s on average: 12 h in all
        now = ticks_add(now, used)
        assert clock.press(now, side)
        spent[side] += used
        uses.append(used)
    assert ticks_diff(now, offset) == sum(spent)
    for side in (BLACK, WHITE):
        expected = 6 * 3600 * 1000 - spent[side] + 500 * 10000
        assert clock.side_status(side, now)["main_ms"] == expected
    assert [e[3] for e in rec.kinds("press")] == uses  # every move charged to the ms
