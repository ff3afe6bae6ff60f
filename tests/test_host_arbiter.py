"""The arbiter's commands on the host: a reset never ends a game by accident, presets are
numbered from 1, late arrival, and the voice pack checked against the clock's."""

import io
import json

import pytest

from goclock import cmd_arbiter, ui
from goclock.cli import build_parser, main
from host_fakedev import FakeClock


@pytest.fixture
def fake():
    clock = FakeClock()
    yield clock
    clock.close()


@pytest.fixture(autouse=True)
def own_home(tmp_path, monkeypatch):
    monkeypatch.setenv("GOCLOCK_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GOCLOCK_PORT", raising=False)


def run(capsys, *argv):
    try:
        rc = main(list(argv))
    except SystemExit as exc:  # argparse's own errors
        rc = exc.code
    out, err = capsys.readouterr()
    return rc, out, err


def resets(fake):
    return [r for r in fake.requests if r["cmd"] == "reset"]


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_confirm_asks_only_in_a_terminal():
    out = Terminal()
    assert ui.confirm("End it?", stdin=Terminal("y\n"), stdout=out) is True
    assert out.getvalue() == "End it? [y/N] "
    assert ui.confirm("End it?", stdin=Terminal("\n"), stdout=Terminal()) is False
    assert ui.confirm("End it?", stdin=io.StringIO("y\n"), stdout=Terminal()) is None


def test_reset_of_a_game_in_progress_needs_yes_in_scripts(fake, capsys):
    fake.state, fake.moves = "paused", 1
    rc, out, err = run(capsys, "--port", fake.path, "reset")
    assert rc == 2
    assert err == (
        "goclock: The game in progress (paused, 1 move) would end: run goclock reset --yes "
        "to reset from a script\n"
    )
    assert resets(fake) == []
    rc, out, err = run(capsys, "--port", fake.path, "reset", "--yes")
    assert rc == 0 and "new game ready" in out
    assert len(resets(fake)) == 1


def test_reset_asks_in_a_terminal(fake, capsys):
    fake.state, fake.moves = "paused", 12
    asked = []

    def answer(reply):
        def ask(question):
            asked.append(question)
            return reply

        return ask

    args = build_parser().parse_args(["--port", fake.path, "reset"])
    with pytest.raises(Exception, match="reset cancelled: the game in progress") as exc:
        cmd_arbiter.do_reset(args, ask=answer(False))
    assert exc.value.exit_code == 2 and resets(fake) == []
    assert asked == ["End the game in progress (paused, 12 moves) and start a new one?"]
    assert cmd_arbiter.do_reset(args, ask=answer(True)) == 0
    assert len(resets(fake)) == 1


@pytest.mark.parametrize("state", ["idle", "ended"])
def test_reset_without_a_game_in_progress_asks_nothing(fake, capsys, state):
    fake.state = state
    args = build_parser().parse_args(["--port", fake.path, "reset"])
    assert cmd_arbiter.do_reset(args, ask=lambda q: pytest.fail("asked: " + q)) == 0


def test_running_clock_is_refused_by_the_clock(fake, capsys):
    fake.state = "running"
    rc, out, err = run(capsys, "--port", fake.path, "reset", "--yes")
    assert rc == 2 and "a clock is running: pause it first" in err


def test_preset_numbers_from_1(fake, capsys):
    fake.presets = [
        {"name": "long", "time_control": {"type": "sudden_death", "main": 3600}},
        {"name": "fast", "time_control": {"type": "sudden_death", "main": 600}},
    ]
    rc, out, err = run(capsys, "--port", fake.path, "reset", "--preset", "1")
    assert rc == 0 and resets(fake)[-1]["preset"] == 1 and "sd 1h" in out
    rc, out, err = run(capsys, "--port", fake.path, "reset", "--preset", "fast")
    assert rc == 0 and resets(fake)[-1]["preset"] == 2
    rc, out, err = run(capsys, "--port", fake.path, "reset", "--preset", "3")
    assert rc == 2 and "no preset 3" in err


def test_late_and_arrive(fake, capsys):
    rc, out, err = run(capsys, "--port", fake.path, "late", "white")
    assert rc == 0 and out == "white marked late: their clock runs until they arrive\n"
    assert fake.requests[-1]["cmd"] == "late" and fake.requests[-1]["side"] == "white"
    rc, out, err = run(capsys, "--port", fake.path, "--json", "arrive", "white")
    assert rc == 0 and json.loads(out) == {"accepted": True}
    rc, out, err = run(capsys, "--port", fake.path, "arrive", "white")
    assert rc == 2
    assert err == "goclock: the clock refused arrive white: this side was not marked late\n"
    rc, out, err = run(capsys, "--port", fake.path, "late", "green")
    assert rc == 2 and "invalid choice" in err


def test_late_and_arrive_are_in_the_help(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "late" in out and "arrive" in out and "exit status" in out


def test_config_set_voice_checks_the_packs_on_the_clock(fake, capsys, tmp_path):
    rc, out, err = run(capsys, "--port", fake.path, "config", "set", "--voice", "xx")
    assert rc == 2
    assert err == (
        "goclock: the clock has no voice pack 'xx' (it has: zh, ja): put it there first with "
        "goclock voice push DIR\n"
    )
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps({"voice": "en", "volume": 3}))
    rc, out, err = run(capsys, "--port", fake.path, "config", "set", "--file", str(cfg))
    assert rc == 2 and "no voice pack 'en'" in err
    assert not [r for r in fake.requests if r["cmd"] == "config.set"]
    rc, out, err = run(capsys, "--port", fake.path, "config", "set", "--voice", "ja")
    assert rc == 0 and fake.config["voice"] == "ja"


def test_voice_unchecked_when_the_clock_does_not_list_its_packs(fake, capsys):
    fake.voices = []
    rc, out, err = run(capsys, "--port", fake.path, "config", "set", "--voice", "xx")
    assert rc == 2 and "(it has: none)" in err
    fake.voices = None  # no "voices" in info: the clock is left to judge
    rc, out, err = run(capsys, "--port", fake.path, "config", "set", "--voice", "xx")
    assert rc == 0 and fake.config["voice"] == "xx"
