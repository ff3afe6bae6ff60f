"""What goclock prints for people: `watch` in words (one line per event), `info`'s sizes,
"1 move", and `voice check` of a folder without clips said once."""

import io
import json

import pytest

from goclock import ui
from goclock.cli import build_parser, device, main
from goclock.records import eventtext
from goclockfw.events import VALUE_FIELDS
from support.clockline import ClockLine

STATUS = {"main_ms": 0, "flagged": False, "periods": 5, "period_ms": 55000}

# One event of every kind the clock sends (docs/protocol.md), and the line it must read as.
EVENTS = [
    ({"event": "start", "t": 0, "side": "black"}, "0:00  Black's clock starts"),
    (
        dict(
            {"event": "press", "t": 65000, "side": "black", "used_ms": 65000, "move": 1}, **STATUS
        ),
        "1:05  Black moved (move 1, took 1:05; left 0:00  5 × 0:55)",
    ),
    ({"event": "call", "t": 95000, "side": "black", "phrase": "30秒"}, "1:35  Black: “30秒”"),
    ({"event": "byoyomi", "t": 60000, "side": "white"}, "1:00  White's main time is up: byo-yomi"),
    ({"event": "overtime", "t": 60000, "side": "white"}, "1:00  White's main time is up: overtime"),
    ({"event": "timeout", "t": 99000, "side": "white"}, "1:39  White lost on time"),
    ({"event": "pause", "t": 5000, "side": "black"}, "0:05  clocks paused (Black to move)"),
    (
        {"event": "resume", "t": 9000, "side": "black"},
        "0:09  clocks running again (Black to move)",
    ),
    (
        {"event": "late", "t": 0, "side": "white"},
        "0:00  White marked late: their clock runs until they arrive",
    ),
    (
        {"event": "arrive", "t": 120000, "side": "white", "charged_ms": 120000, "late_ms": 120000},
        "2:00  White arrived 2:00 late: 2:00 more charged (twice the lateness in all)",
    ),
    (
        {"event": "period", "t": 120000, "side": "black", "left": 1},
        "2:00  Black used up a period: 1 period left",
    ),
    (
        {
            "event": "block",
            "t": 4000000,
            "side": "black",
            "moves": 15,
            "main_ms": 0,
            "flagged": False,
            "period_ms": 600000,
        },
        "1:06:40  Black starts a new block of 15 moves; left 0:00  15 moves in 10:00",
    ),
    (
        dict({"event": "adjust", "t": 7000, "side": "white"}, **STATUS),
        "0:07  the arbiter set White's time; left 0:00  5 × 0:55",
    ),
    (
        {"event": "ruling", "t": 8000, "side": "white", "ruling": "timeout_pass"},
        "0:08  the arbiter ruled White's timeout a pass: the opponent's clock runs",
    ),
    (
        {"event": "forfeit", "t": 900000, "side": "black", "reason": "late"},
        "15:00  Black forfeits the game: too late to arrive",
    ),
    (
        {"event": "penalty", "t": 5, "side": "black", "points": 2},
        "0:00  Black has 2 points of penalty",
    ),
    (
        {
            "event": "ignored",
            "t": 0,
            "side": "black",
            "reason": "not this side's move",
            "do": "press",
        },
        "0:00  Black's press ignored: not this side's move",
    ),
    ({"event": "end", "t": 100000, "reason": "reset"}, "1:40  the game ended (reset)"),
    (
        {"event": "log", "notice": "battery_low", "message": "battery low: 3400 mV"},
        "clock notice: battery low: 3400 mV",
    ),
    ({"event": "game", "t": 0, "game": 12}, "0:00  game 12 begins"),
    (
        {"event": "novel", "t": 1000, "side": "black", "a": {"b": 1}, "c": [2]},
        "0:01  novel black: a (b 1), c (2)",
    ),
]


@pytest.mark.parametrize("ev, line", EVENTS, ids=[e["event"] for e, _ in EVENTS])
def test_each_event_in_words(ev, line):
    assert eventtext.describe(ev) == line
    assert "{" not in line and '"' not in line


def test_every_kind_of_the_firmware_has_words():
    kinds = set(VALUE_FIELDS) | {"start", "byoyomi", "overtime", "timeout", "pause", "resume"}
    kinds |= {"late", "adjust", "status", "log"}
    assert kinds <= set(eventtext.SENTENCES) | {"status"}


def test_status_event_is_the_status_line():
    st = {
        "event": "status",
        "state": "running",
        "turn": "black",
        "moves": 1,
        "black": STATUS,
        "white": STATUS,
    }
    assert eventtext.describe(st) == ui.status_line(st)
    assert ui.status_line(st).startswith("running, black to move, 1 move played  |  black 0:00")
    assert "2 moves played" in ui.status_line(dict(st, moves=2))


def watched_line():
    """A clock whose Black runs out of main time (1:05) while `goclock watch` watches: 2 s
    run after each request, so info comes at 0:59, status at 1:01, watch at 1:03 (and its
    events up to 1:05, with it)."""
    line = ClockLine(ms_per_request=2000)
    line.clock.configure({"type": "byoyomi", "main": 65, "periods": 5, "period": 60})
    line.clock.start()
    line.clock.run(59000)
    return line


def test_watch_prints_words_by_default_and_json_on_request(capsys):
    line = watched_line()
    try:
        args = build_parser().parse_args(["--port", line.path, "watch", "--seconds", "5"])
        ticks = iter(range(100))
        device.do_watch(args, now=lambda: next(ticks) * 0.5)
        out = capsys.readouterr().out.splitlines()
        assert out[0].startswith("running, black to move, 0 moves played  |  black 0:04")
        assert out[3:5] == [
            "1:05  Black: “开始读秒”",  # said first: a call is timed
            "1:05  Black's main time is up: byo-yomi",
        ]
        # the status reply, then status events at 1:03 and 1:04, the two above, one at 1:05
        status = [x.startswith("running, black to move") for x in out]
        assert status == [True, True, True, False, False, True]
        seen = len(line.events())
        rc = main(["--port", line.path, "--json", "watch", "--seconds", "0.3"])
        lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
        assert rc == 0 and lines[0]["event"] == "status" and "time_control" in lines[0]
        assert lines[1:] == line.events()[seen:] and len(lines) > 2
    finally:
        line.close()


@pytest.mark.parametrize(
    "n, text",
    [
        (None, "unknown"),
        (-1, "unknown"),
        (0, "0 B"),
        (1023, "1023 B"),
        (1024, "1.0 KB"),
        (812 * 1024, "812 KB"),
        (1500000, "1.4 MB"),
        (81239166976, "75.7 GB"),  # the desktop's disk, once shown as "79335124 KB"
    ],
)
def test_sizes(n, text):
    assert ui.size_text(n) == text


def test_info_shows_sizes_and_voices(capsys):
    with ClockLine() as line:
        rc = main(["--port", line.path, "info"])
    out = capsys.readouterr().out
    assert rc == 0
    (info,) = [m for m in line.sent if "flash_free" in m]  # the reply the host got
    flash = info["flash_free"]  # what this clock's littlefs had free, in bytes
    assert flash > 100 * 1024 and ui.size_text(flash).endswith(" KB")
    assert ui.size_text(flash) in out and str(flash) not in out
    assert "121 KB" in out and "123456" not in out  # RAM (tests/support/testboard.py)
    assert "en, ja, zh" in out  # the voice packs the clock has


def test_one_move_not_one_moves():
    assert ui.plural(1, "move") == "1 move" and ui.plural(2, "move") == "2 moves"
    assert ui.side_text({"main_ms": 0, "moves": 1, "period_ms": 60000}) == "0:00  1 move in 1:00"


def test_voice_check_of_a_folder_without_clips(tmp_path, capsys):
    rc = main(["voice", "check", str(tmp_path)])
    out, err = capsys.readouterr()
    assert rc == 2
    assert out.count("\n") == 3  # the head, the one problem, the count
    assert "the folder has no clips (no .wav files)" in out


def test_watch_in_a_terminal_keeps_the_status_line_below_the_events(monkeypatch):
    from rich.console import Console

    screen = io.StringIO()
    term = Console(file=screen, force_terminal=True, width=120, color_system=None)
    monkeypatch.setattr(ui, "console", lambda: term)
    line = watched_line()
    try:
        args = build_parser().parse_args(["--port", line.path, "watch", "--seconds", "5"])
        ticks = iter(range(100))
        device.do_watch(args, now=lambda: next(ticks) * 0.5)
    finally:
        line.close()
    text = screen.getvalue()
    assert "1:05  Black: “开始读秒”" in text
    assert "black 0:00  5 × 1:00" in text  # the live line, updated at 1:05
    assert text.count("1:05  Black") == 2  # the events printed once each, above it
    assert "{" not in text


def _side_after(tc_json, presses):
    """White's status from the real core after Black starts and the presses (ms, side)."""
    from support.coreclock import make

    clock, _events = make(tc_json)
    clock.start(0)
    for t, side in presses:
        clock.advance(t)
        clock.press(t, side)
    return clock.side_status(1, presses[-1][0])


def test_untimed_sides_show_the_time_they_used():
    st = _side_after({"type": "untimed"}, [(4000, 0), (65000, 1)])
    assert st["spent_ms"] == 61000
    assert ui.side_text(st) == "1:01 used"


def test_a_time_per_move_shows_what_is_left_of_the_move():
    st = _side_after({"type": "delay", "main": 0, "delay": 30, "mode": "bronstein"}, [(4000, 0)])
    assert ui.side_text(st) == "0:30 this move"


def test_ing_overtime_shows_the_penalty_points():
    tc = {"type": "ing", "main": 60, "periods": 3, "period": 60, "penalty": 2}
    st = _side_after(tc, [(1000, 0), (62000, 1)])  # White's main time ran out at 61 s
    assert st["points"] == 2
    # 3 periods counting the one in use, of which 59 s are left
    assert ui.side_text(st) == "0:00  3 × 0:59  2 penalty points"
