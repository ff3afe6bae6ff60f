"""Issue 17, item 3: one rounding rule everywhere (goclockfw/timetext.py).

White at main_ms 1197991 showed 19:58 on the display and 19:57 in `goclock status`: the
display rounded up, the host down. Now a time left is rounded up (the flag falls as the
display reaches 0:00) and a time used or counted up down, by one helper that the
firmware's display and the host tool both call; and the calls fall on the instant the
display turns to the second they name.
"""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from goclock import ui
from goclock.records import eventtext
from goclockfw import timetext
from goclockfw.app import display
from goclockfw.core import timecontrol
from goclockfw.core.gameclock import GameClock
from support.cli import own_home, run  # noqa: F401 (own_home: autouse)


def test_the_rule():
    assert timetext.left_text(1197991) == "19:58" and timetext.used_text(1197991) == "19:57"
    assert [timetext.left_text(ms) for ms in (0, 1, 999, 1000, 1001)] == [
        "0:00",
        "0:01",
        "0:01",
        "0:01",
        "0:02",
    ]
    assert timetext.left_text(-5) == "0:00"  # never below the flag
    assert [timetext.used_text(ms) for ms in (0, 999, 1000, 59999, 60000)] == [
        "0:00",
        "0:00",
        "0:01",
        "0:59",
        "1:00",
    ]
    assert timetext.left_text(3600000) == "1:00:00" and timetext.left_text(3599001) == "1:00:00"
    assert timetext.used_text(3599999) == "59:59" and timetext.used_text(-4900) == "-0:04"


@given(st.integers(-10, 48 * 3600 * 1000))
def test_host_and_display_show_one_time(ms):
    side = {"main_ms": ms, "flagged": False}
    assert (
        ui.side_text(side)
        == display.view({"state": "running", "turn": "black", "black": side, "white": side})[
            "black"
        ]
        == timetext.left_text(ms)
    )
    untimed = {"main_ms": 0, "flagged": False, "spent_ms": max(ms, 0)}
    assert ui.side_text(untimed) == timetext.used_text(max(ms, 0)) + " used"
    assert display.view({"state": "running", "black": untimed, "white": untimed})[
        "black"
    ] == timetext.used_text(max(ms, 0))


def test_the_issue_example_on_the_clock_and_in_status(line, capsys):
    line.clock.configure({"type": "sudden_death", "main": 1200})
    line.clock.press("white")  # White's button starts Black's clock
    line.clock.run(1200000 - 1197991)
    line.clock.ask("pause")
    st_ = line.clock.ask("status")
    assert st_["black"]["main_ms"] == 1197991
    assert display.view(st_)["black"] == "19:58"
    rc, out, err = run(capsys, "--port", line.path, "status")
    assert rc == 0 and "19:58" in out and "19:57" not in out


def test_watch_lines_count_game_time_down_and_time_left_up():
    ev = {"event": "press", "t": 65999, "side": "black", "used_ms": 5999, "move": 3}
    ev.update(main_ms=54001, flagged=False)
    assert eventtext.describe(ev) == "1:05  Black moved (move 3, took 0:05; left 0:55)"


# ----- the calls and the display ---------------------------------------------------------

CONTROLS = [
    {"type": "byoyomi", "main": 20, "periods": 3, "period": 60},
    {"type": "byoyomi", "main": 0, "periods": 2, "period": 30},
    {"type": "byoyomi", "main": 5, "periods": 2, "period": 10},
    {"type": "byoyomi", "main": 0, "periods": 1, "period": 45},
    {"type": "sudden_death", "main": 40},
    {"type": "fischer", "main": 35, "increment": 3},
    {"type": "canadian", "main": 10, "moves": 2, "period": 40},
    {"type": "delay", "main": 30, "delay": 3, "mode": "bronstein"},
    {"type": "delay", "main": 0, "delay": 15, "mode": "bronstein"},
    {"type": "ing", "main": 10, "periods": 2, "period": 40},
]


class Watcher:
    """At every call, what the display shows for the calling side then and 1 ms before."""

    def __init__(self):
        self.clock = None
        self.seen = []

    def on_clock(self, kind, side, tick, value):
        if kind != "call":
            return
        clock = self.clock
        period = clock.tc.sides[side].period_ms or clock.tc.sides[side].delay_ms

        def shown(at):
            status = clock.side_status(side, at)
            return display.view({"state": "running", "black": status, "white": status})["black"]

        now, before = shown(tick), shown(tick - 1)
        self.seen.append((value, period // 1000, now, before))


def seconds(face):
    m, s = face.split(":")[-2:]
    return int(m) * 60 + int(s)


@settings(max_examples=150, deadline=None)
@given(
    tc=st.sampled_from(CONTROLS),
    calls=st.sampled_from(["cn", "jp", "en"]),
    gaps=st.lists(st.integers(1, 90000), min_size=1, max_size=12),
)
def test_every_call_falls_as_the_display_turns_to_its_second(tc, calls, gaps):
    watcher = Watcher()
    clock = GameClock(timecontrol.parse(dict(tc, calls=calls)), watcher)
    watcher.clock = clock
    now = 0
    clock.start(now)
    for gap in gaps:
        now += gap
        clock.press(now, clock.turn)
    clock.advance(now + 200000)
    for phrase, period, now_shown, before in watcher.seen:
        d = seconds(now_shown)
        count = re.fullmatch(r"(\d+)", phrase)
        used = re.fullmatch(r"(\d+)秒", phrase)
        left = re.fullmatch(r"(\d+) seconds", phrase)
        if count:  # cn and jp count up to the flag, en counts what is left
            assert d == (int(phrase) if calls == "en" else 10 - int(phrase)), (phrase, d)
        elif used:  # "30秒": thirty seconds of the period gone
            assert d == period - int(used.group(1)), (phrase, d)
        elif left:
            assert d == int(left.group(1)), (phrase, d)
        elif phrase not in ("超时判负", "時間切れ", "out of time"):
            continue  # a roll-over call: the display goes from one time to the next
        # The display turns to that second on the call's own millisecond, not before.
        assert seconds(before) == d + 1, (phrase, before, now_shown)
