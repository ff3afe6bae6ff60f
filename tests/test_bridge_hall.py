# ruff: noqa: F811  (fixtures imported from tests/support are parameters here)
"""`goclock bridge --hall`: a clock on USB joins the hall through a real Mosquitto, as a
Wi-Fi clock would (the hall contract's topics), with the log resent from the record after
the last one the broker acknowledged.

The clock is the firmware under the MicroPython unix port (virtual time); the hall is a
paho-mqtt subscriber that waits on its SUBACK and on each message, bounded in time.
"""

import json
import os
import signal
import subprocess
import sys

import pytest

from goclock.bridge import start_bridge
from goclock.bridge.hall import HallOptions
from support.bridgeclock import PluggedClock, RawPeer, clock, new_game, ok, runtime_dir  # noqa: F401
from support.cli import own_home, run  # noqa: F401 (autouse)
from support.hallbridge import pulled
from support.mosquitto import mosquitto  # noqa: F401 (a fixture)
from support.mqttsub import Subscriber

HALL, CLOCK = "club-open", "table-12"
ROOT = "goclock/v1/%s/%s" % (HALL, CLOCK)
GOCLOCK = os.path.join(os.path.dirname(sys.executable), "goclock")


@pytest.fixture
def hall(mosquitto):
    sub = Subscriber(mosquitto.port, ROOT + "/#")
    yield sub
    sub.close()


def publisher(clock, mosquitto, tmp_path):
    opts = HallOptions(
        hall=HALL, clock=CLOCK, port=mosquitto.port, state_dir=str(tmp_path / "state")
    )
    b = start_bridge(clock.link, hall=opts)
    b.wait_until(lambda s: s["line"] == "up")
    return b


def play(capsys, clock, moves):
    """Black's clock started by White's button, then `moves` presses a few seconds apart."""
    port = clock.link
    sides = ("black", "white")
    for i in range(moves):
        clock.fw.wait(3000)
        ok(capsys, "--port", port, "press", sides[i % 2])


def slices(sub, game):
    """The log slices the hall got: {rec: (offset, bytes)}, duplicates dropped by rec."""
    got = {}
    for _topic, payload, _r in sub.on("log/%d" % game):
        head, body = payload.split(b"\n", 1)
        rec, offset = (int(x) for x in head.split())
        got.setdefault(rec, (offset, body))
    return got


def joined(got):
    data = b""
    for rec in sorted(got):
        offset, body = got[rec]
        assert offset == len(data), "slice %d at %d, have %d bytes" % (rec, offset, len(data))
        data += body
    return data


def test_a_usb_clock_joins_the_hall(clock, runtime_dir, mosquitto, hall, tmp_path, capsys):
    b = publisher(clock, mosquitto, tmp_path)
    try:
        online = hall.wait_json("online", lambda m: m["online"])
        assert online["board"] == "desktop" and online["version"]
        new_game(capsys, clock.link, ("byo", "10m+3x30s"))
        play(capsys, clock, 4)
        ok(capsys, "--port", clock.link, "pause")
        pause = hall.wait_json("event", lambda m: m["event"] == "pause")
        game = pause["game"]
        assert isinstance(game, int) and isinstance(pause["rec"], int)
        state = hall.wait_json("state", lambda m: m["state"] == "paused")
        assert state["moves"] == 4 and state["game"] == game and state["turn"] == "black"
        assert isinstance(state["utc"], int) and state["seq"] >= 1 and state["t"] >= 12000
        assert "table" in state and state["black_name"] is None  # no assignment yet
        # Every record once, in order, byte for byte what `logs pull` reads.
        hall.wait(lambda t, p: t.endswith("/log/%d" % game) and p.startswith(b"%d " % pause["rec"]))
        got = slices(hall, game)
        assert sorted(got) == list(range(1, pause["rec"] + 1))
        data = joined(got)
        served = pulled(b, game)
        assert served.startswith(data)
        assert b"{" not in served[len(data) :]  # only progress marks after the last slice
        # Each event names its record.
        presses = [json.loads(p) for t, p, r in hall.on("event") if b'"press"' in p]
        assert [e["move"] for e in presses] == [1, 2, 3, 4]
        for ev in presses:
            record = json.loads(got[ev["rec"]][1].splitlines()[-1].lstrip(b"."))
            assert record["event"] == "press" and record["t"] == ev["t"]
        # The retained state and online are there for a hall view that joins late.
        late = Subscriber(mosquitto.port, ROOT + "/+", client_id="late-view")
        try:
            st = late.wait_json("state")
            assert st["state"] == "paused"
            assert [m[2] for m in late.on("online")] == [True]
        finally:
            late.close()
    finally:
        b.stop()
    assert hall.wait_json("online", lambda m: not m["online"]) == {"online": False}


def test_commands_from_the_hall_through_the_whitelist(
    clock, runtime_dir, mosquitto, hall, tmp_path, capsys
):
    b = publisher(clock, mosquitto, tmp_path)
    try:
        hall.wait_json("online", lambda m: m["online"])
        new_game(capsys, clock.link, ("sd", "1h"))

        def cmd(payload, rid):
            mark = hall.mark()
            hall.publish(ROOT + "/cmd", payload)
            return hall.wait_json("reply", lambda m: m.get("id") == rid, after=mark)

        assert cmd('{"id":1,"cmd":"pause"}', 1)["state"] == "paused"
        r = cmd('{"id":2,"cmd":"config.set","config":{"volume":0}}', 2)
        assert r == {"id": 2, "ok": False, "error": "not allowed over the network"}
        r = cmd('{"id":3,"cmd":"reset"}', 3)
        assert r["ok"] is False and "confirm" in r["error"]
        r = cmd('{"id":4,"cmd":"time.set","side":"black","main":600}', 4)
        assert r["ok"] is True and r["main_ms"] == 600000
        r = cmd(b'{"id":5,"cmd":"pause",}', None)
        assert r["error"].startswith("bad JSON")
        r = cmd(json.dumps({"id": 6, "cmd": "status", "pad": "x" * 1100}), None)
        assert r["error"] == "request over 1024 bytes"
        assert cmd('{"id":7,"cmd":"resume"}', 7)["state"] == "running"
        r = cmd('{"id":8,"cmd":"reset","confirm":true}', 8)  # the clock: never while running
        assert r == {"id": 8, "ok": False, "error": "a clock is running: pause it first"}
        st = json.loads(ok(capsys, "--port", clock.link, "--json", "status"))
        assert st["state"] == "running" and st["black"]["main_ms"] <= 600000
        assert cmd('{"id":"p","cmd":"pause"}', "p")["ok"] is True
        assert cmd('{"id":9,"cmd":"reset","confirm":true}', 9)["state"] == "idle"
    finally:
        b.stop()


def test_the_log_resumes_after_the_last_acknowledged_record(
    clock, runtime_dir, mosquitto, hall, tmp_path, capsys
):
    b = publisher(clock, mosquitto, tmp_path)
    try:
        new_game(capsys, clock.link, ("sd", "1h"))
        play(capsys, clock, 2)
        second = hall.wait_json("event", lambda m: m["event"] == "press" and m["move"] == 2)
        game = second["game"]
        hall.wait(
            lambda t, p: t.endswith("/log/%d" % game) and p.startswith(b"%d " % second["rec"])
        )
    finally:
        b.stop()  # its PUBACKs are in: the cursor on disk is at that record
    # Two more moves while no bridge runs (the tool opens the port itself), then a broker
    # restart (its retained messages gone: persistence is off), then the bridge again.
    play(capsys, clock, 2)
    mosquitto.restart()
    hall.wait_subscribed(2)  # the hall view is back before the bridge is
    before = len(hall.on("log/%d" % game))
    b = publisher(clock, mosquitto, tmp_path)
    try:
        hall.wait_json("online", lambda m: m["online"], timeout=30)
        hall.wait(lambda t, p: t.endswith("/log/%d" % game) and b'"move":4' in p, timeout=30)
        new = hall.on("log/%d" % game)[before:]
        first = int(new[0][1].split(b" ", 1)[0])
        assert first == second["rec"] + 1  # from the record after the acknowledged one
        got = slices(hall, game)
        assert sorted(got) == list(range(1, max(got) + 1))  # no gap
        assert pulled(b, game).startswith(joined(got))
        fourth_rec = max(got)
        assert fourth_rec > second["rec"]
    finally:
        b.stop()


def test_the_last_will_says_offline_when_the_bridge_dies(
    clock, runtime_dir, mosquitto, hall, tmp_path
):
    proc = subprocess.Popen(
        [
            GOCLOCK,
            "--port",
            clock.link,
            "bridge",
            "--hall",
            HALL,
            "--clock",
            CLOCK,
            "--broker",
            "127.0.0.1:%d" % mosquitto.port,
            "--state-dir",
            str(tmp_path / "st"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        assert hall.wait_json("online", lambda m: m["online"], timeout=30)["board"] == "desktop"
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        assert hall.wait_json("online", lambda m: not m["online"]) == {"online": False}
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()


def test_broker_restart_and_replug_while_publishing(
    clock, runtime_dir, mosquitto, hall, tmp_path, capsys
):
    b = publisher(clock, mosquitto, tmp_path)
    try:
        hall.wait_json("online", lambda m: m["online"])
        new_game(capsys, clock.link, ("sd", "1h"))
        play(capsys, clock, 2)
        game = json.loads(ok(capsys, "--port", clock.link, "--json", "status"))["game"]

        def has_move(n):
            hall.wait(
                lambda t, p: t.endswith("/log/%d" % game) and b'"move":%d,' % n in p, timeout=30
            )

        has_move(2)
        # The broker restarts (its sessions and retained messages gone); a move meanwhile.
        mark = hall.mark()
        mosquitto.restart()
        hall.wait_subscribed(2)
        play(capsys, clock, 1)
        has_move(3)
        online = hall.wait_json("online", lambda m: m["online"], timeout=30, after=mark)
        assert online["game"] == game
        # The clock's cable pulled: the hall sees it offline; plugged in: online, and on.
        mark = hall.mark()
        clock.unplug()
        assert hall.wait_json("online", lambda m: not m["online"], after=mark) == {"online": False}
        clock.plug()
        hall.wait_json("online", lambda m: m["online"], timeout=30, after=mark)
        ok(capsys, "--port", clock.link, "resume")  # the game came back paused
        clock.fw.wait(2000)
        ok(capsys, "--port", clock.link, "press", "white")  # move 4 is White's
        has_move(4)
        got = slices(hall, game)
        assert sorted(got) == list(range(1, max(got) + 1))  # every record, none missing
        assert pulled(b, game).startswith(joined(got))
    finally:
        b.stop()


def test_a_wiped_clock_is_not_taken_for_the_old_one(
    clock, runtime_dir, mosquitto, hall, tmp_path, capsys
):
    b = publisher(clock, mosquitto, tmp_path)
    try:
        new_game(capsys, clock.link, ("sd", "1h"))
        play(capsys, clock, 3)
        third = hall.wait_json("event", lambda m: m["event"] == "press" and m["move"] == 3)
        hall.wait(lambda t, p: t.endswith("/log/1") and p.startswith(b"%d " % third["rec"]))
    finally:
        b.stop()
    clock.stop()
    # Another clock (a fresh flash: its games counted from 1 again) on the same bridge state.
    other = PluggedClock(tmp_path / "wiped")
    try:
        mark = hall.mark()
        b = publisher(other, mosquitto, tmp_path)
        try:
            new_game(capsys, other.link, ("sd", "1h"))
            play(capsys, other, 1)
            hall.wait(lambda t, p: t.endswith("/log/1") and b'"move":1,' in p, after=mark)
            recs = [int(p.split(b" ", 1)[0]) for t, p, r in hall.messages[mark:] if "/log/" in t]
            assert recs[0] == 1  # from its start, not from the old clock's cursor
        finally:
            b.stop()
    finally:
        other.stop()


def test_the_hall_asks_for_a_log_again_from_what_it_holds(
    clock, runtime_dir, mosquitto, hall, tmp_path, capsys
):
    """log.resend (docs/hall.md): a hall that lost slices the broker had acknowledged (a
    broker restarted without persistence) asks again from its last whole record, as it asks
    a Wi-Fi clock; the bridge sends the log again from there, and refuses an offset that
    ends no record."""
    b = publisher(clock, mosquitto, tmp_path)
    try:
        hall.wait_json("online", lambda m: m["online"])
        new_game(capsys, clock.link, ("sd", "1h"))
        play(capsys, clock, 3)
        third = hall.wait_json("event", lambda m: m["event"] == "press" and m["move"] == 3)
        game = third["game"]
        hall.wait(lambda t, p: t.endswith("/log/%d" % game) and p.startswith(b"%d " % third["rec"]))
        got = slices(hall, game)
        keep = 2  # the hall holds records 1 and 2: the next one starts where record 2 ends
        offset = got[keep + 1][0]

        def cmd(req):
            mark = hall.mark()
            hall.publish(ROOT + "/cmd", json.dumps(req))
            return hall.wait_json("reply", lambda m: m.get("id") == req["id"], after=mark), mark

        r, _ = cmd({"id": 1, "cmd": "log.resend", "game": game, "offset": offset + 1, "rec": 2})
        assert r == {"id": 1, "ok": False, "error": "offset %d is not a slice's end" % (offset + 1)}
        r, _ = cmd({"id": 2, "cmd": "log.resend", "game": game, "rec": 2})
        assert r == {"id": 2, "ok": False, "error": "give 'game', 'offset', 'rec'"}
        r, mark = cmd({"id": 3, "cmd": "log.resend", "game": game, "offset": offset, "rec": keep})
        assert r == {"id": 3, "ok": True}
        head = b"%d %d\n" % (keep + 1, offset)
        again = hall.wait(
            lambda t, p: t.endswith("/log/%d" % game) and p.startswith(head), after=mark
        )
        assert again[1] == head + got[keep + 1][1]  # the same bytes, the same numbers
        hall.wait(
            lambda t, p: t.endswith("/log/%d" % game) and p.startswith(b"%d " % third["rec"]),
            after=mark,
        )
        assert pulled(b, game).startswith(joined(slices(hall, game)))
    finally:
        b.stop()


def test_a_usb_clocks_arbiter_call_shows_at_the_hall_until_answered(
    clock, runtime_dir, mosquitto, hall, tmp_path, capsys
):
    """The arbiter key held 2 s calls the arbiter (docs/hall.md): a bridged clock's call is
    the retained `arbiter` message a Wi-Fi clock publishes, until the hall answers it."""
    b = publisher(clock, mosquitto, tmp_path)
    try:
        hall.wait_json("online", lambda m: m["online"])
        new_game(capsys, clock.link, ("sd", "1h"))
        play(capsys, clock, 1)
        clock.fw.keys("!down arbiter\n")
        clock.fw.wait(2500)
        clock.fw.keys("!up arbiter\n")
        clock.fw.wait(100)
        call = hall.wait_json("arbiter", lambda m: m["calling"])
        assert call["calling"] is True
        late = Subscriber(mosquitto.port, ROOT + "/arbiter", client_id="late-view")
        try:
            assert late.wait_json("arbiter", lambda m: True)["calling"] is True  # retained
        finally:
            late.close()
        mark = hall.mark()
        hall.publish(ROOT + "/cmd", '{"id":1,"cmd":"arbiter.ack"}')
        assert hall.wait_json("reply", lambda m: m.get("id") == 1, after=mark)["ok"] is True
        answered = hall.wait_json("arbiter", lambda m: not m["calling"], after=mark)
        assert answered == {"calling": False, "by": "hall"}
    finally:
        b.stop()
