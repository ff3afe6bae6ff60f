"""The arbiter's commands on the host: a reset never ends a game by accident, presets are
numbered from 1, late arrival, and the voice pack checked against the clock's. The clock is
the real firmware on a pty (tests/support/clockline.py)."""

import io
import json

import pytest

from goclock import ui
from goclock.cli import arbiter, build_parser, main
from support.cli import own_home, run  # noqa: F401 (own_home: autouse)
from support.clockline import ClockLine
from support.linefaults import OMIT

SD_10S = {"type": "sudden_death", "main": 10}


def moves_then_pause(line, moves):
    """A game in progress: started, `moves` moves of a second each, then paused."""
    clock = line.clock
    clock.start()
    for i in range(moves):
        clock.run(1000)
        ok, reason = clock.press(("black", "white")[i % 2])
        assert ok, reason
    clock.ask("pause")


def resets(line):
    return [r for r in line.requests if r["cmd"] == "reset"]


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_confirm_asks_only_in_a_terminal():
    out = Terminal()
    assert ui.confirm("End it?", stdin=Terminal("y\n"), stdout=out) is True
    assert out.getvalue() == "End it? [y/N] "
    assert ui.confirm("End it?", stdin=Terminal("\n"), stdout=Terminal()) is False
    assert ui.confirm("End it?", stdin=io.StringIO("y\n"), stdout=Terminal()) is None


def test_reset_of_a_game_in_progress_needs_yes_in_scripts(line, capsys):
    moves_then_pause(line, 1)
    game = line.session.journal.current
    rc, out, err = run(capsys, "--port", line.path, "reset")
    assert rc == 2
    assert err == (
        "goclock: The game in progress (paused, 1 move) would end: run goclock reset --yes "
        "to reset from a script\n"
    )
    assert resets(line) == [] and line.session.clock.state == "paused"
    rc, out, err = run(capsys, "--port", line.path, "reset", "--yes")
    assert rc == 0 and "new game ready" in out
    assert len(resets(line)) == 1
    assert line.session.clock.state == "idle" and line.session.journal.current != game


def test_reset_asks_in_a_terminal(line, capsys):
    moves_then_pause(line, 12)
    asked = []

    def answer(reply):
        def ask(question):
            asked.append(question)
            return reply

        return ask

    args = build_parser().parse_args(["--port", line.path, "reset"])
    with pytest.raises(Exception, match="reset cancelled: the game in progress") as exc:
        arbiter.do_reset(args, ask=answer(False))
    assert exc.value.exit_code == 2 and resets(line) == []
    assert asked == ["End the game in progress (paused, 12 moves) and start a new one?"]
    assert line.session.clock.moves_made == 12  # not a move lost
    assert arbiter.do_reset(args, ask=answer(True)) == 0
    assert len(resets(line)) == 1 and line.session.clock.state == "idle"


@pytest.mark.parametrize("state", ["idle", "ended"])
def test_reset_without_a_game_in_progress_asks_nothing(line, capsys, state):
    if state == "ended":  # Black's 10 s run out
        line.clock.configure(SD_10S)
        line.clock.start()
        line.clock.run(11000)
    assert line.session.clock.state == state
    args = build_parser().parse_args(["--port", line.path, "reset"])
    assert arbiter.do_reset(args, ask=lambda q: pytest.fail("asked: " + q)) == 0
    assert len(resets(line)) == 1 and line.session.clock.state == "idle"


def test_running_clock_is_refused_by_the_clock(line, capsys):
    line.clock.start()
    rc, out, err = run(capsys, "--port", line.path, "reset", "--yes")
    assert rc == 2 and "the clock is running: pause it first" in err
    assert line.session.clock.state == "running"


def test_preset_numbers_from_1(line, capsys):
    line.clock.ask(
        "presets.set",
        presets=[
            {"name": "long", "time_control": {"type": "sudden_death", "main": 3600}},
            {"name": "fast", "time_control": {"type": "sudden_death", "main": 600}},
        ],
    )
    rc, out, err = run(capsys, "--port", line.path, "reset", "--preset", "1")
    assert rc == 0 and resets(line)[-1]["preset"] == 1 and "sd 1h" in out
    assert line.session.tc.to_json()["main"] == 3600
    rc, out, err = run(capsys, "--port", line.path, "reset", "--preset", "fast")
    assert rc == 0 and resets(line)[-1]["preset"] == 2
    assert line.session.tc.to_json()["main"] == 600
    rc, out, err = run(capsys, "--port", line.path, "reset", "--preset", "3")
    assert rc == 2 and "no preset 3" in err


def test_late_and_arrive(line, capsys):
    rc, out, err = run(capsys, "--port", line.path, "late", "white")
    assert rc == 0 and out == "white marked late: their clock runs until they arrive\n"
    assert line.requests[-1]["cmd"] == "late" and line.requests[-1]["side"] == "white"
    assert line.session.clock.sides[1].absent
    rc, out, err = run(capsys, "--port", line.path, "--json", "arrive", "white")
    # White arrives at once: nothing to charge, and the reply says so.
    assert rc == 0 and json.loads(out) == {"accepted": True, "charged_ms": 0, "late_ms": 0}
    assert not line.session.clock.sides[1].absent
    rc, out, err = run(capsys, "--port", line.path, "arrive", "white")
    assert rc == 2
    assert err == "goclock: white was not marked late: there is no lateness to charge\n"
    rc, out, err = run(capsys, "--port", line.path, "late", "green")
    assert rc == 2 and "invalid choice" in err


def test_late_and_arrive_are_in_the_help(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "late" in out and "arrive" in out and "exit status" in out


def test_config_set_voice_checks_the_packs_on_the_clock(line, capsys, tmp_path):
    rc, out, err = run(capsys, "--port", line.path, "config", "set", "--voice", "xx")
    assert rc == 2
    assert err == (
        "goclock: the clock has no voice pack 'xx' (it has: en, ja, zh): put it there first "
        "with goclock voice push DIR\n"
    )
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps({"voice": "ko", "volume": 3}))
    rc, out, err = run(capsys, "--port", line.path, "config", "set", "--file", str(cfg))
    assert rc == 2 and "no voice pack 'ko'" in err
    assert not [r for r in line.requests if r["cmd"] == "config.set"]
    assert line.session.store.config["voice"] == "zh"
    rc, out, err = run(capsys, "--port", line.path, "config", "set", "--voice", "ja")
    assert rc == 0 and line.session.store.config["voice"] == "ja"


def test_voice_unchecked_when_the_clock_does_not_list_its_packs(tmp_path, capsys):
    bare = ClockLine(sounds=str(tmp_path))  # a clock with no voice pack at all
    try:
        rc, out, err = run(capsys, "--port", bare.path, "config", "set", "--voice", "xx")
        assert rc == 2 and "(it has: none)" in err
        bare.faults.info = {"voices": OMIT}  # firmware from before `info` listed its packs
        rc, out, err = run(capsys, "--port", bare.path, "config", "set", "--voice", "xx")
        # the host sent it and the clock took it, as that firmware would: nothing to check
        assert rc == 0 and bare.session.store.config["voice"] == "xx"
    finally:
        bare.close()


def test_a_canadian_block_is_not_set_in_main_time(line, capsys):
    """Issue 17, item 1: `time set black 0:03 --period 2m` in main time printed "black now:
    0:03.0  15 moves in 10:00" and left a 2-minute first block that nothing showed."""
    line.clock.configure({"type": "canadian", "main": 3600, "moves": 15, "period": 600})
    line.clock.start()
    line.clock.run(5000)
    line.clock.ask("pause")
    rc, out, err = run(
        capsys, "--port", line.path, "time", "set", "black", "0:03", "--period", "2m"
    )
    assert rc == 2 and out == ""
    assert "its first block will be 15 moves in 10 min" in err
    assert line.session.clock.sides[0].block == 600000  # nothing hidden was set
    rc, out, err = run(capsys, "--port", line.path, "time", "set", "black", "0:03")
    assert rc == 0 and out == "black now: 0:03  15 moves in 10:00\n"
    line.clock.ask("resume")
    line.clock.run(5000)  # main time out after 3 s: the first block, as shown
    assert line.session.commands.status()["black"]["period_ms"] == 598000
