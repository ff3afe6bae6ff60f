"""`goclock simulate` as a tired user writes a scenario (issue 17 item 7): no `until` plays
the game to its end (it used to stop at the last event, short of the flag), and the time
control may be a notation — on both engines, byte-identical."""

import io
import json

import pytest

from goclock.cli import scenario as simulate
from goclockfw.scenario import runner
from support.cli import one_line_error, own_home, run  # noqa: F401 (own_home: autouse)

BYO = {"type": "byoyomi", "main": 10, "periods": 2, "period": 10, "calls": "none"}


def lines(obj):
    out = io.StringIO()
    runner.run(obj, out.write)
    return [json.loads(x) for x in out.getvalue().splitlines()]


def test_without_until_the_game_is_played_to_the_flag():
    obj = {"time_control": BYO, "events": [{"t": 0, "do": "start"}]}
    got = lines(obj)
    assert [x["event"] for x in got] == ["start", "byoyomi", "period", "timeout", "final"]
    assert got[-2] == {"event": "timeout", "t": 30000, "side": "black"}
    assert got[-1]["t"] == 30000 and got[-1]["black"]["flagged"] is True
    # The same as an `until` at the flag, or any time after it.
    for until in (30000, 99000):
        assert lines(dict(obj, until=until))[:-1] == got[:-1]


def test_without_until_a_clock_that_does_not_run_stops_at_the_last_event():
    paused = [{"t": 0, "do": "start"}, {"t": 4000, "do": "pause"}]
    got = lines({"time_control": BYO, "events": paused})
    assert got[-1]["event"] == "final" and got[-1]["t"] == 4000
    assert lines({"time_control": BYO, "events": []})[-1]["t"] == 0
    untimed = {"type": "untimed"}  # nobody ever loses: nothing to play out to
    got = lines({"time_control": untimed, "events": [{"t": 0, "do": "start"}]})
    assert got[-1]["t"] == 0


def write(tmp_path, obj):
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(obj), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("engine", ["cpython", "micropython"])
def test_a_notation_time_control_on_both_engines(tmp_path, engine):
    by_notation = write(
        tmp_path,
        {"time_control": "byo 10s+2x10s calls=none", "events": [{"t": 0, "do": "start"}]},
    )
    out = io.BytesIO()
    assert simulate.run(by_notation, engine, out) == 0
    assert [json.loads(x) for x in out.getvalue().splitlines()] == lines(
        {"time_control": BYO, "events": [{"t": 0, "do": "start"}]}
    )


def test_a_bad_notation_or_a_list_says_what_it_wants(tmp_path, capsys):
    path = write(tmp_path, {"time_control": "fisher 5m+3s", "events": []})
    rc, out, err = run(capsys, "simulate", path)
    one_line_error(rc, err, "time_control: unknown time control 'fisher' — did you mean fischer?")
    path = write(tmp_path, {"time_control": [600], "events": []})
    for engine in ("cpython", "micropython"):
        rc, out, err = run(capsys, "simulate", path, "--engine", engine)
        one_line_error(rc, err, 'time_control: must be a JSON object like {"type": "byoyomi"')
        assert "time control: must" not in err  # was "time_control.time control: ..."
