"""A request the clock refused, said in the words of the command typed (issue 17 item 7):
against the real firmware behind a pty, every refusal one line without the protocol's
request names (`config.set`, `time.set`) or its units (ms)."""

import re

import pytest

from goclock.link.refusals import hms, in_words
from support.cli import one_line_error, own_home, run  # noqa: F401 (own_home: autouse)

PROTOCOL_WORDS = re.compile(r"config\.set|time\.set|presets\.set|logs\.\w+|the clock refused")


def goclock(capsys, line, *argv):
    return run(capsys, "--port", line.path, *argv)


def test_config_set_while_running_says_pause_it_first(line, capsys):
    goclock(capsys, line, "press", "white")  # White starts Black's clock
    rc, out, err = goclock(capsys, line, "config", "set", "sd", "20m")
    assert rc == 2
    assert err == "goclock: the clock is running: pause it first\n"


def test_time_set_limits_are_in_hours_and_minutes(line, capsys):
    goclock(capsys, line, "press", "white")
    goclock(capsys, line, "pause")
    rc, out, err = goclock(capsys, line, "time", "set", "black", "50h")
    one_line_error(rc, err, "main time: at most 48:00:00 (48 h)")
    assert "172800" not in err
    # cn 2h/5 (the factory setting): 5 periods of 60 s beside the main time.
    rc, out, err = goclock(capsys, line, "time", "set", "black", "47h59m", "--periods", "5")
    one_line_error(rc, err, "a side can hold at most 48:00:00 (48 h) in all")
    assert "172800" not in err


def test_late_and_arrive_refused_name_the_side_as_typed(line, capsys):
    rc, out, err = goclock(capsys, line, "arrive", "white")
    assert rc == 2
    assert err == "goclock: white was not marked late: there is no lateness to charge\n"
    goclock(capsys, line, "press", "white")  # White starts Black's clock
    goclock(capsys, line, "press", "black")  # the first move
    rc, out, err = goclock(capsys, line, "late", "black")
    assert rc == 2
    assert err == (
        "goclock: black cannot be marked late: lateness is only marked at the start of the game\n"
    )


def test_an_arrival_after_the_game_says_so():
    assert in_words("arrive", "the game is over", side="black") == (
        "black's arrival cannot be charged: the game is over"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ("late", "white"),  # accepted: a control case
        ("arrive", "black"),  # not marked late
        ("pause",),  # nothing runs
        ("resume",),
        ("time", "set", "black", "--moves", "3"),  # byo-yomi has no moves
        ("logs", "pull", "--all", "-o", "{tmp}"),  # nothing refused: a control case
    ],
)
def test_no_refusal_names_the_protocol(line, capsys, tmp_path, argv):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    rc, out, err = goclock(capsys, line, *argv)
    assert not PROTOCOL_WORDS.search(err), err
    if rc:
        assert err.count("\n") == 1 and err.startswith("goclock: ")


def test_the_words_of_each_kind_of_refusal():
    assert in_words("config.set", "a clock is running: pause it first") == (
        "the clock is running: pause it first"
    )
    assert in_words("time.set", "periods: must be from 0 to 600") == "--periods: from 0 to 600"
    assert in_words("time.set", "main: at most the Fischer cap, 600 s") == (
        "main time: at most the Fischer cap, 10:00 (10 min)"
    )
    assert "goclock deploy" in in_words("logs.clear", "unknown command 'logs.clear'")
    assert in_words("config.set", "storage error: ENOSPC").startswith("the clock failed: ")
    assert in_words("pause", "no clock is running") == "no clock is running"
    assert hms(5400) == "1:30:00 (1 h 30 min)" and hms(45) == "0:45 (45 s)"


@pytest.mark.parametrize(
    "argv,message",
    [
        (("time", "set", "white", "-5m"), "'-5m' is not a duration: a duration cannot be negative"),
        (("time", "set", "white", "--period", "-5s"), "'-5s' is not a duration"),
        (("time", "set", "white", "--periods", "-2"), "argument --periods: 0 or more, got -2"),
        (("time", "set", "white", "5m", "-1"), "unrecognized arguments: -1"),
        (("config", "set", "--volume", "11"), "argument --volume: from 0 to 10, got 11"),
    ],
)
def test_a_command_line_slip_is_one_line_not_the_usage(capsys, argv, message):
    rc, out, err = run(capsys, *argv)
    assert rc == 2
    one_line_error(rc, err, message)
    assert "usage:" not in err


@pytest.mark.parametrize(
    "notation_text,message",
    [
        ("sd 50h", "main: at most 48:00:00 (48 h), got 50:00:00 (50 h)"),
        ("byo 47h+5x1h", "a side can hold at most 48:00:00 (48 h) in all"),
        ("fischer 5m+2h", "increment: at most 1:00:00 (1 h), got 2:00:00 (2 h)"),
    ],
)
def test_a_time_control_over_the_bounds_says_them_in_hours(capsys, notation_text, message):
    rc, out, err = run(capsys, "config", "set", *notation_text.split(), "--dry-run")
    one_line_error(rc, err, message)
    assert "172800" not in err and "seconds, got" not in err
