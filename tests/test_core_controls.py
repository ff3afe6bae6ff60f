"""The controls of issue 12 in the core: Bronstein per move, capped Fischer, hourglass,
untimed, Ing overtime; their adjustment, checkpoints, calls and display."""

import pytest

from goclockfw.app import display
from goclockfw.core import callplan, gameclock, timecontrol
from goclockfw.core.gameclock import BLACK, WHITE, GameClock
from goclockfw.core.timecontrol import COUNTER_CAP_MS, MAX_HOLD_MS
from support.coreclock import Recorder, make

# ----- Bronstein with main time 0 ---------------------------------------------


def test_bronstein_main_0_is_a_time_per_move():
    """The defect: Black lost at t = 0. Now each move may use up to the delay."""
    clock, rec = make(
        {"type": "delay", "main": 0, "delay": 30, "mode": "bronstein", "calls": "none"}
    )
    clock.start(0)
    clock.advance(1)
    assert clock.state == gameclock.RUNNING and not rec.kinds("timeout")
    assert clock.press(29999, BLACK)
    assert clock.side_status(BLACK, 29999)["main_ms"] == 0  # nothing to give back
    assert clock.next_deadline() == 29999 + 30000
    assert not clock.press(59999, WHITE)  # a move of exactly the delay is too late
    assert rec.kinds("timeout") == [("timeout", WHITE, 59999, None)]


def test_bronstein_time_per_move_survives_a_pause():
    clock, _ = make({"type": "delay", "main": 0, "delay": 20, "mode": "bronstein", "calls": "none"})
    clock.start(0)
    clock.pause(15000)
    clock.resume(100000)
    assert clock.next_deadline() == 105000  # 5 s of the delay were left
    assert clock.press(104999, BLACK)


def test_bronstein_odds_give_one_side_a_time_per_move():
    clock, rec = make(
        {
            "type": "delay",
            "main": 60,
            "delay": 10,
            "mode": "bronstein",
            "white": {"main": 0},
            "calls": "none",
        }
    )
    clock.start(0)
    assert clock.press(20000, BLACK)  # 60 - 20 + 10 = 50 s
    assert clock.side_status(BLACK, 20000)["main_ms"] == 50000
    assert clock.next_deadline() == 30000  # White: 10 s for this move
    clock.advance(30000)
    assert rec.kinds("timeout") == [("timeout", WHITE, 30000, None)]


def test_bronstein_adjust_to_main_0_leaves_the_rest_of_the_delay():
    clock, _ = make(
        {"type": "delay", "main": 60, "delay": 10, "mode": "bronstein", "calls": "none"}
    )
    clock.start(0)
    clock.pause(4000)
    clock.adjust(BLACK, main_ms=0, now=4000)
    clock.resume(5000)
    assert clock.next_deadline() == 11000  # 10 s per move, 4 s of it used before


@pytest.mark.parametrize(
    "obj",
    [
        {"type": "sudden_death", "main": 60},
        {"type": "fischer", "main": 60, "increment": 5},
        {"type": "hourglass", "main": 60},
        {"type": "delay", "main": 60, "delay": 0, "mode": "bronstein"},
        {"type": "delay", "main": 60, "delay": 5, "mode": "bronstein", "white": {"delay": 0}},
    ],
)
def test_adjust_refuses_main_0_where_it_would_lose_at_once(obj):
    clock, _ = make(obj)
    side = WHITE if "white" in obj else BLACK
    with pytest.raises(gameclock.ClockError, match="main: must be more than 0"):
        clock.adjust(side, main_ms=0)


# ----- capped Fischer ------------------------------------------------------------


def test_fischer_cap_is_per_side_and_checked():
    tc = timecontrol.parse(
        {"type": "fischer", "main": 300, "increment": 10, "max": 600, "white": {"max": 400}}
    )
    assert [s.ceiling_ms for s in tc.sides] == [600000, 400000]
    with pytest.raises(timecontrol.ConfigError, match="^max: must be at least the main time"):
        timecontrol.parse({"type": "fischer", "main": 300, "increment": 10, "max": 200})
    clock, _ = make({"type": "fischer", "main": 300, "increment": 10, "max": 600})
    with pytest.raises(gameclock.ClockError, match="Fischer cap"):
        clock.adjust(BLACK, main_ms=600001)
    clock.adjust(BLACK, main_ms=600000)


def test_uncapped_fischer_stops_at_the_48_hour_ceiling():
    """Issue 11: 48 h + 48 h grew past 2**29 ms in three moves; now the increment is at
    most 1 h and an uncapped Fischer clock stops at 48 h."""
    with pytest.raises(timecontrol.ConfigError, match="^increment: at most 3600 seconds"):
        timecontrol.parse({"type": "fischer", "main": 172800, "increment": 172800})
    clock, _ = make({"type": "fischer", "main": 172800, "increment": 3600})
    clock.start(0)
    now = 0
    for move in range(6):
        now += 1
        assert clock.press(now, move % 2)
        assert clock.side_status(move % 2, now)["main_ms"] == MAX_HOLD_MS


# ----- hourglass -----------------------------------------------------------------


def test_hourglass_both_views_follow_from_the_segment_start():
    clock, _ = make({"type": "hourglass", "main": 60, "white": {"main": 30}})
    clock.start(1000)
    st = clock.status(11000)  # Black's clock has run 10 s
    assert st["black"]["main_ms"] == 50000 and st["white"]["main_ms"] == 40000
    assert clock.press(21000, BLACK)
    st = clock.status(26000)
    assert st["black"]["main_ms"] == 45000 and st["white"]["main_ms"] == 45000
    clock.pause(26000)
    st = clock.status(999000)  # paused: nothing flows
    assert st["black"]["main_ms"] == 45000 and st["white"]["main_ms"] == 45000
    data = clock.checkpoint(999000)
    back = GameClock.restore(timecontrol.parse(data["time_control"]), data, Recorder())
    back.resume(0)
    assert back.status(45000)["black"]["main_ms"] == 90000  # all the sand
    back.advance(45000)
    assert back.sides[WHITE].flagged and back.loss == "time"


def test_hourglass_sum_is_bounded():
    with pytest.raises(timecontrol.ConfigError, match="^main: the hourglass holds"):
        timecontrol.parse({"type": "hourglass", "main": 90000})
    clock, _ = make({"type": "hourglass", "main": 86400})
    with pytest.raises(gameclock.ClockError, match="hourglass"):
        clock.adjust(BLACK, main_ms=86400001)


# ----- untimed -----------------------------------------------------------------


def test_untimed_counts_up_and_never_flags():
    clock, rec = make({"type": "untimed"})
    clock.start(0)
    assert clock.status(90000)["black"] == {"main_ms": 0, "flagged": False, "spent_ms": 90000}
    assert clock.press(100000, BLACK)
    hours = 3600 * 1000
    clock.advance(100000 + 100 * hours)  # a 100-hour move: the counters stop, nothing fails
    assert clock.state == gameclock.RUNNING and not rec.kinds("timeout")
    assert clock.status(100000 + 100 * hours)["white"]["spent_ms"] == COUNTER_CAP_MS
    assert clock.press(100000 + 100 * hours, WHITE)
    assert rec.kinds("press")[-1][3] == COUNTER_CAP_MS
    assert clock.sides[WHITE].ran == COUNTER_CAP_MS
    assert clock._active == COUNTER_CAP_MS
    # Rebases are silent: only start and presses were reported.
    assert {e[0] for e in rec.events} == {"start", "press"}


def test_untimed_has_nothing_to_adjust():
    clock, _ = make({"type": "untimed"})
    with pytest.raises(gameclock.ClockError, match="untimed"):
        clock.adjust(BLACK, main_ms=1000)


def test_untimed_late_arrival_still_forfeits():
    clock, rec = make({"type": "untimed", "late_limit": 60})
    clock.start(0)
    clock.late(0, BLACK)
    clock.advance(60000)
    assert rec.kinds("forfeit") == [("forfeit", BLACK, 60000, "late")]


# ----- Ing ---------------------------------------------------------------------


def test_ing_points_follow_the_periods_entered():
    clock, rec = make({"type": "ing", "main": 60, "periods": 2, "period": 600, "penalty": 3})
    clock.start(0)
    clock.advance(60000)
    assert rec.kinds("penalty") == [("penalty", BLACK, 60000, 3)]
    assert [e[3] for e in rec.kinds("call")] == ["共罚3点"]
    st = clock.side_status(BLACK, 70000)
    assert st == {
        "main_ms": 0,
        "flagged": False,
        "periods": 2,
        "period_ms": 590000,
        "points": 3,
    }
    clock.advance(660000)
    assert rec.kinds("penalty")[-1] == ("penalty", BLACK, 660000, 6)
    clock.advance(1260000)
    assert clock.sides[BLACK].flagged and clock.loss == "time"


def test_ing_adjust_keeps_the_overtime_line():
    clock, _ = make({"type": "ing", "main": 60, "periods": 3, "period": 600})
    with pytest.raises(gameclock.ClockError, match="not in overtime"):
        clock.adjust(BLACK, period_ms=1000)
    with pytest.raises(gameclock.ClockError, match="overtime begins"):
        clock.adjust(BLACK, main_ms=0)
    clock.start(0)
    clock.advance(61000)
    clock.pause(61000)
    with pytest.raises(gameclock.ClockError, match="in overtime"):
        clock.adjust(BLACK, main_ms=30000)
    with pytest.raises(gameclock.ClockError, match="at least 1"):
        clock.adjust(BLACK, periods=0)
    clock.adjust(BLACK, periods=1, period_ms=20000, now=61000)
    clock.resume(100000)
    assert clock.next_deadline() == 120000 - 9000  # the countdown of the last period
    assert clock.side_status(BLACK, 100000)["points"] == 2  # what was charged stays


def test_ing_late_arrival_can_push_a_side_into_overtime():
    clock, rec = make({"type": "ing", "main": 60, "periods": 3, "period": 600})
    clock.start(0)
    clock.late(0, WHITE)
    clock.press(40000, BLACK)
    clock.arrive(50000, WHITE)  # 2 x 50 s - 10 s already run: 90 s, more than 60
    assert rec.kinds("penalty") == [("penalty", WHITE, 50000, 2)]
    assert clock.side_status(WHITE, 50000)["period_ms"] == 600000


def test_ing_checkpoint_keeps_the_penalties():
    clock, _ = make({"type": "ing", "main": 10, "periods": 3, "period": 20})
    clock.start(0)
    clock.advance(31000)  # periods 1 and 2 entered
    data = clock.checkpoint(35000)
    back = GameClock.restore(timecontrol.parse(data["time_control"]), data, Recorder())
    assert back.side_status(BLACK, 0) == clock.side_status(BLACK, 35000)
    assert back.side_status(BLACK, 0)["points"] == 4


# ----- parse: the new forms and their bounds ---------------------------------------


@pytest.mark.parametrize(
    "obj",
    [
        {"type": "fischer", "main": 300, "increment": 10, "max": 600},
        {"type": "hourglass", "main": 60},
        {"type": "untimed"},
        {"type": "untimed", "calls": "none", "first": "white"},
        {"type": "ing", "main": 10800, "periods": 3, "period": 1200, "penalty": 2},
        {"type": "delay", "main": 0, "delay": 30, "mode": "bronstein"},
        {"type": "byoyomi", "main": 3600, "periods": 0, "period": 30, "white": {"periods": 3}},
    ],
)
def test_new_forms_round_trip(obj):
    tc = timecontrol.parse(obj)
    assert timecontrol.parse(tc.to_json()).to_json() == tc.to_json()


@pytest.mark.parametrize(
    "obj, message",
    [
        ({"type": "byoyomi", "main": 0, "periods": 999, "period": 172800}, "periods: must be"),
        ({"type": "byoyomi", "main": 0, "periods": 600, "period": 600}, "periods: a side can"),
        ({"type": "byoyomi", "main": 0, "periods": 3, "period": 0.001, "calls": "none"}, "period"),
        ({"type": "canadian", "main": 60, "moves": 5, "period": 0.5}, "period: at least 1"),
        ({"type": "canadian", "main": 172800, "moves": 5, "period": 60}, "period: a side can"),
        ({"type": "sudden_death", "main": 60, "late_limit": 0}, "late_limit: at least 5"),
        ({"type": "delay", "main": 60, "delay": 3601}, "delay: at most 3600"),
        ({"type": "ing", "main": 60, "periods": 3, "period": 60, "penalty": 0}, "penalty:"),
        ({"type": "ing", "main": 0, "periods": 3, "period": 60}, "main: must be more"),
        ({"type": "ing", "main": 60, "periods": 3, "period": 60, "white": {"penalty": 1}}, ""),
        ({"type": "untimed", "main": 60}, "main: unknown key"),
    ],
)
def test_bounds_are_refused_with_the_field(obj, message):
    with pytest.raises(timecontrol.ConfigError) as err:
        timecontrol.parse(obj)
    assert str(err.value).startswith(message) or message in str(err.value)


# ----- calls ---------------------------------------------------------------------


def test_penalty_phrases_reach_the_packs():
    for name, said in (("cn", "共罚4点"), ("jp", "ペナルティ4目"), ("en", "4 penalty points")):
        profile = callplan.profile(name)
        assert profile.penalty(4) == said
        assert said in callplan.phrases(profile)
    assert callplan.profile("none").penalty(4) is None
    from goclock.voice import pack  # the voice packs' checks take their phrases from the profiles

    for name in ("cn", "jp", "en"):
        profile = callplan.profile(name)
        need = pack.required_phrases(profile)
        assert all(profile.penalty(p) in need for p in callplan.PENALTY_POINTS)
    assert callplan.profile("en").penalty(1) == "1 penalty point"


def test_silent_ing_still_reports_the_penalty():
    clock, rec = make({"type": "ing", "main": 1, "periods": 1, "period": 5, "calls": "none"})
    clock.start(0)
    clock.advance(7000)
    assert rec.kinds("call") == [] and rec.kinds("penalty") == [("penalty", BLACK, 1000, 2)]
    assert rec.kinds("timeout") == [("timeout", BLACK, 6000, None)]


# ----- the display ---------------------------------------------------------------


def view_of(obj, now):
    clock, _ = make(obj)
    clock.start(0)
    clock.advance(now)
    status = clock.status(now)
    status["time_control"] = clock.tc.to_json()  # as the app's status carries it
    return display.view(status)


def test_display_of_the_new_controls():
    v = view_of({"type": "untimed"}, 61500)
    assert (v["black"], v["black_sub"], v["white"]) == ("1:01", "untimed", "0:00")  # counts up
    v = view_of({"type": "hourglass", "main": 60}, 10000)
    assert (v["black"], v["white"], v["black_sub"]) == ("0:50", "1:10", "hourglass")
    ing = {"type": "ing", "main": 60, "periods": 3, "period": 1200}
    v = view_of(ing, 30000)
    assert (v["black"], v["black_sub"]) == ("0:30", "then 3x20m")
    v = view_of(ing, 70000)
    assert (v["black"], v["black_sub"]) == ("19:50", "OT 3 left -2pt")
    v = view_of({"type": "delay", "main": 0, "delay": 30, "mode": "bronstein"}, 12000)
    assert (v["black"], v["black_sub"], v["white"]) == ("0:18", "per move", "0:30")
