"""Scenario tests: the clock core's output for tests/scenarios/*.json.

Each scenario has a reviewed expected output. The same scenario must give
byte-identical output under the MicroPython unix port, and must not change
when the tick counter starts anywhere else (across the 2**30 wrap).
"""

import io
import json
import os

import pytest

from conftest import FIRMWARE, SCENARIOS, run_micropython
from goclockfw.core.ticks import TICKS_PERIOD
from goclockfw.scenario import runner

NAMES = sorted(f[:-5] for f in os.listdir(SCENARIOS) if f.endswith(".json"))


def cpython_output(obj):
    out = io.StringIO()
    runner.run(obj, out.write)
    return out.getvalue().encode("utf-8")


def load(name):
    with open(os.path.join(SCENARIOS, name + ".json"), encoding="utf-8") as f:
        return json.load(f)


def expected(name):
    with open(os.path.join(SCENARIOS, name + ".expected.jsonl"), "rb") as f:
        return f.read()


@pytest.mark.parametrize("name", NAMES)
def test_cpython_matches_expected(name):
    assert cpython_output(load(name)).decode("utf-8") == expected(name).decode("utf-8")


@pytest.mark.parametrize("name", NAMES)
def test_micropython_is_byte_identical(name, micropython):
    proc = run_micropython(
        micropython,
        os.path.join(FIRMWARE, "goclockfw", "scenario", "runner.py"),
        os.path.join(SCENARIOS, name + ".json"),
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout == expected(name)


@pytest.mark.parametrize("offset", [TICKS_PERIOD - 1, TICKS_PERIOD - 7777, TICKS_PERIOD // 2 - 3])
@pytest.mark.parametrize("name", NAMES)
def test_tick_wrap_changes_nothing(name, offset):
    obj = load(name)
    obj["tick_offset"] = offset
    assert cpython_output(obj) == expected(name)


@pytest.mark.parametrize("name", NAMES)
def test_output_is_in_time_order(name):
    lines = [json.loads(x) for x in expected(name).decode("utf-8").splitlines()]
    times = [x["t"] for x in lines]
    assert times == sorted(times)
    assert lines[-1]["event"] == "final"


def test_every_event_kind_is_covered():
    """The scenario set exercises every action and every time control."""
    actions = set()
    kinds = set()
    for name in NAMES:
        obj = load(name)
        kinds.add(obj["time_control"]["type"])
        actions.update(ev["do"] for ev in obj["events"])
    assert actions == set(runner.ACTIONS)
    assert kinds == {
        "sudden_death",
        "byoyomi",
        "canadian",
        "fischer",
        "delay",
        "hourglass",
        "untimed",
        "ing",
    }


@pytest.mark.parametrize(
    "key, value, message",
    [
        ("main", -5, "events[1].main: must not be negative"),
        ("main", float("nan"), "events[1].main: must be a number of seconds"),
        ("period", "30s", "events[1].period: must be a number of seconds"),
        ("main", 10**9, "events[1].main: at most"),
        ("periods", 1.5, "events[1].periods: must be a whole number"),
    ],
)
def test_bad_adjust_values_are_scenario_errors(key, value, message):
    obj = {
        "time_control": {"type": "byoyomi", "main": 60, "periods": 3, "period": 30},
        "events": [{"t": 0, "do": "start"}, {"t": 10, "do": "adjust", "side": "black", key: value}],
    }
    with pytest.raises(runner.ScenarioError) as err:
        runner.run(obj, io.StringIO().write)
    assert str(err.value).startswith(message)
