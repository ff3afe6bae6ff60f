"""Protocol 2 for the arbiter: presets numbered from 1, no reset of a running clock, late
arrival, the voice packs in `info`, and wrong types named instead of `internal error`."""

import json

import pytest

from goclockfw.protocol.commands import PROTOCOL_VERSION
from protocol_support import ask, make_device, set_time, snapshot, start_game


@pytest.fixture
def dev(tmp_path):
    app, proto, sent = make_device(tmp_path)
    return app, proto, sent


def refused(app, proto, req):
    before = snapshot(app)
    r = ask(proto, req)
    assert r["ok"] is False, r
    assert snapshot(app) == before
    return r["error"]


def test_info_says_protocol_2_and_the_voice_packs(dev):
    app, proto, _ = dev
    r = ask(proto, {"id": 1, "cmd": "info"})
    assert r["protocol"] == PROTOCOL_VERSION == 2
    assert {"zh", "ja", "en"} <= set(r["voices"])  # the packs the clock has


def test_presets_are_numbered_from_1(dev):
    app, proto, _ = dev
    presets = ask(proto, {"id": 1, "cmd": "presets.get"})["presets"]
    r = ask(proto, {"id": 2, "cmd": "reset", "preset": 1})
    assert r["ok"] and r["time_control"] == presets[0]["time_control"]
    last = len(presets)
    r = ask(proto, {"id": 3, "cmd": "reset", "preset": last})
    assert r["ok"] and r["time_control"] == presets[-1]["time_control"]
    assert refused(app, proto, {"id": 4, "cmd": "reset", "preset": 0}) == (
        "'preset' must be between 1 and 1000"
    )
    assert refused(app, proto, {"id": 5, "cmd": "reset", "preset": last + 1}) == (
        "no preset %d (the clock has %d)" % (last + 1, last)
    )


def test_reset_refused_while_a_clock_runs(dev):
    app, proto, _ = dev
    start_game(app, proto)
    err = refused(app, proto, {"id": 1, "cmd": "reset"})
    assert err == "a clock is running: pause it first"
    assert ask(proto, {"id": 2, "cmd": "pause"})["state"] == "paused"
    assert ask(proto, {"id": 3, "cmd": "reset"})["state"] == "idle"


def test_late_and_arrive(dev):
    app, proto, sent = dev
    ask(proto, {"id": 1, "cmd": "watch", "on": True})
    r = ask(proto, {"id": 2, "cmd": "late", "side": "black"})
    assert r == {"id": 2, "ok": True, "accepted": True}
    assert ask(proto, {"id": 3, "cmd": "press", "side": "white"})["accepted"]  # Black's runs
    set_time(app, 120000)  # Black arrives 2 minutes late
    assert ask(proto, {"id": 4, "cmd": "press", "side": "black"})["accepted"] is False
    r = ask(proto, {"id": 5, "cmd": "arrive", "side": "black"})
    assert r == {"id": 5, "ok": True, "accepted": True}
    events = [json.loads(s) for s in sent]
    arrive = [e for e in events if e["event"] == "arrive"][0]
    assert arrive["side"] == "black" and arrive["late_ms"] == 120000
    assert arrive["charged_ms"] == 120000  # twice the lateness, of which the clock ran half
    st = ask(proto, {"id": 6, "cmd": "status"})
    assert st["black"]["main_ms"] == 6900000 - 240000
    # Refusals are answers, not errors, as for a press.
    r = ask(proto, {"id": 7, "cmd": "arrive", "side": "black"})
    assert r["ok"] is True and r["accepted"] is False and r["reason"]
    assert ask(proto, {"id": 8, "cmd": "press", "side": "black"})["accepted"]
    r = ask(proto, {"id": 9, "cmd": "late", "side": "white"})
    assert r["accepted"] is False and "start of the game" in r["reason"]


@pytest.mark.parametrize("cmd", ["late", "arrive"])
@pytest.mark.parametrize("side", [None, "red", 0, ["black"], {"side": "black"}])
def test_late_and_arrive_need_a_side(dev, cmd, side):
    app, proto, _ = dev
    req = {"id": 1, "cmd": cmd}
    if side is not None:
        req["side"] = side
    assert refused(app, proto, req) == '\'side\' must be "black" or "white"'


@pytest.mark.parametrize(
    "config, message",
    [
        (
            {"time_control": {"type": ["byoyomi"]}},
            "time_control.type: must be a string, not an array",
        ),
        (
            {"time_control": {"type": {"a": 1}}},
            "time_control.type: must be a string, not an object",
        ),
        (
            {"time_control": {"type": "byoyomi", "main": "60"}},
            "time_control.main: must be a number",
        ),
        (
            {"time_control": {"type": "fischer", "main": 60, "increment": 1, "white": []}},
            "time_control.white: must be an object, not an array",
        ),
        (
            {"time_control": {"type": "sudden_death", "main": 60, "black": {"main": [1]}}},
            "time_control.black.main: must be a number, not an array",
        ),
        ({"buttons": {"left": ["black"]}}, "buttons.left: must be a string, not an array"),
        ({"voice": 5}, "voice: must be a string, not a number"),
        ({"volume": True}, "volume: must be a number, not true or false"),
    ],
)
def test_wrong_types_in_a_config_are_named(dev, config, message):
    app, proto, _ = dev
    err = refused(app, proto, {"id": 1, "cmd": "config.set", "config": config})
    assert err.startswith(message), err


@pytest.mark.parametrize(
    "presets, message",
    [
        ({"name": "x"}, "'presets' must be an array, not an object"),
        ([[]], "presets[0]: must be an object, not an array"),
        ([{"name": ["x"]}], "presets[0].name: must be a string, not an array"),
        (
            [{"name": "x", "time_control": {"type": ["sudden_death"], "main": 60}}],
            "presets[0].time_control.type: must be a string, not an array",
        ),
    ],
)
def test_wrong_types_in_presets_are_named(dev, presets, message):
    app, proto, _ = dev
    assert refused(app, proto, {"id": 1, "cmd": "presets.set", "presets": presets}) == message
