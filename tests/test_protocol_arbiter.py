"""Protocol 2 for the arbiter: presets numbered from 1, no reset of a running clock, late
arrival, the voice packs in `info`, and wrong types named instead of `internal error`."""

import json

import pytest

from goclockfw.protocol.commands import PROTOCOL_VERSION
from protocol_support import ask, make_device, set_time, snapshot, start_game
from support.sessions import notice_names


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
    assert r["protocol"] == PROTOCOL_VERSION == 3
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
    # The reply says what was charged, as the arrive event does.
    assert r == {"id": 5, "ok": True, "accepted": True, "charged_ms": 120000, "late_ms": 120000}
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


def _hear(app):
    """The device notices the clock starts saying, by name ("pause"), from now on."""
    names = notice_names(app.announcer)
    heard = []
    app.announcer.echo = lambda phrase: heard.append(names.get(phrase, phrase))
    return heard


def test_what_a_host_does_is_said_at_the_board_as_from_the_arbiter_key(dev):
    """Players must hear their clock stop: a pause, resume or reset sent by a host is
    announced with the arbiter key's own notices (暂停, 继续, 重新开局), and so are a side
    marked late and its arrival (已记迟到, 到场); a refused request says nothing."""
    app, proto, _ = dev
    heard = _hear(app)
    start_game(app, proto)
    assert heard == []  # presses say nothing
    ask(proto, {"id": 1, "cmd": "pause"})
    ask(proto, {"id": 2, "cmd": "resume"})
    assert heard == ["pause", "resume"]
    assert ask(proto, {"id": 3, "cmd": "reset"})["ok"] is False  # running: refused, silent
    ask(proto, {"id": 4, "cmd": "pause"})
    ask(proto, {"id": 5, "cmd": "reset"})
    assert heard == ["pause", "resume", "pause", "reset"]
    ask(proto, {"id": 6, "cmd": "late", "side": "black"})
    ask(proto, {"id": 7, "cmd": "arrive", "side": "black"})
    assert heard[-2:] == ["late_marked", "arrive"]
    phrases = {n: p for p, n in notice_names(app.announcer).items()}
    assert [phrases[n] for n in ("pause", "resume", "reset")] == ["暂停", "继续", "重新开局"]


def test_a_paused_status_names_the_side_to_move_and_an_absent_side(dev):
    app, proto, _ = dev
    start_game(app, proto)  # White's clock runs
    st = ask(proto, {"id": 1, "cmd": "pause"})
    st = ask(proto, {"id": 2, "cmd": "status"})
    assert st["state"] == "paused" and st["turn"] == "white"  # White's clock runs on resume
    ask(proto, {"id": 3, "cmd": "reset"})
    ask(proto, {"id": 4, "cmd": "late", "side": "black"})
    st = ask(proto, {"id": 5, "cmd": "status"})
    assert st["black"]["absent"] is True and "absent" not in st["white"]
    ask(proto, {"id": 6, "cmd": "press", "side": "white"})
    set_time(app, 50000)
    ask(proto, {"id": 7, "cmd": "arrive", "side": "black"})
    assert "absent" not in ask(proto, {"id": 8, "cmd": "status"})["black"]


def test_arrive_says_what_was_charged_as_its_log_record_does(dev):
    app, proto, _ = dev
    ask(proto, {"id": 1, "cmd": "late", "side": "black"})
    ask(proto, {"id": 2, "cmd": "press", "side": "white"})  # Black's clock runs, Black away
    set_time(app, 90000)
    ask(proto, {"id": 3, "cmd": "pause"})  # pauses are not lateness
    set_time(app, 150000)
    ask(proto, {"id": 4, "cmd": "resume"})
    set_time(app, 170000)
    r = ask(proto, {"id": 5, "cmd": "arrive", "side": "black"})
    assert r["accepted"] and r["late_ms"] == 110000
    assert r["charged_ms"] == 110000  # twice the lateness in all: its clock ran 110 s
    from goclockfw.storage.logline import verify_bytes

    log = app.journal.read(app.journal.current, 0, 1 << 20)[0]
    rec = [x for x in verify_bytes(log)["records"] if x["event"] == "arrive"][0]
    assert (rec["charged_ms"], rec["late_ms"]) == (r["charged_ms"], r["late_ms"])
