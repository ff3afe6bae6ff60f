# ruff: noqa: F811  (fixtures imported from tests/support are parameters here)
"""Faults at the hall (issue 19 item 7, host side), several clocks at once through a real
Mosquitto: a clock's power cut mid-game, a hall view that stops reading, a view that
joins late, malformed and oversized commands. Each: no record lost or doubled at the
hall, every collected log complete and verified, refusals change nothing.

The clocks are the firmware under the MicroPython unix port behind `goclock bridge
--hall` (the Wi-Fi firmware client is not on main yet); waits are on messages, bounded.
"""

import json
import os
import signal
import subprocess
import sys
import threading

from support.bridgeclock import runtime_dir  # noqa: F401 (a fixture)
from support.cli import own_home  # noqa: F401 (autouse)
from support.hallbridge import HALL, HallClock, collected, hall_service
from support.mosquitto import mosquitto  # noqa: F401 (a fixture)
from support.mqttsub import Subscriber
from test_hall_view import until

ROOT = "goclock/v1/" + HALL


def verified(svc, table, game, moves):
    g = collected(svc, table.name, game)
    assert g.data() == table.pulled(game)
    check = g.check()
    assert check.ok, check.verdict
    presses = [r["move"] for r in check.record.records if r.get("event") == "press"]
    assert presses == list(range(1, moves + 1))
    return check


def test_a_power_cut_mid_game_loses_and_doubles_nothing(runtime_dir, mosquitto, tmp_path, capsys):
    svc = hall_service(mosquitto.port, tmp_path / "hall")
    tables = [HallClock(tmp_path, "table-%d" % n, mosquitto.port) for n in (1, 2)]
    try:
        for t in tables:
            t.new_game(capsys)
        games = [t.status()["game"] for t in tables]
        for t in tables:
            t.moves(capsys, 3)
        cut = tables[0]
        cut.clock.replug()  # the firmware killed mid-game and booted on the same flash
        cut.bridge.wait_until(lambda s: s["line"] == "up")
        st = cut.status()
        assert st["state"] == "paused" and st["game"] == games[0]  # resumed from flash
        cut.cli(capsys, "resume")
        cut.moves(capsys, 2, first="white")
        tables[1].moves(capsys, 2, first="white")
        for t in tables:
            t.end(capsys)
        check = verified(svc, cut, games[0], 5)
        assert any(r.get("notice") == "power_resume" for r in check.record.records)
        verified(svc, tables[1], games[1], 5)
        assert svc.collector.game("table-1", games[0]).conflicts == 0
    finally:
        for t in tables:
            t.stop()
        svc.stop()


def test_a_hall_view_that_stops_reading(runtime_dir, mosquitto, tmp_path, capsys):
    """`goclock hall` frozen (SIGSTOP) while two clocks play on: the clocks go on (every
    press answered), the broker keeps the view's messages, and once it reads again it
    has every record of both games."""
    folder = tmp_path / "hall"
    cmd = [sys.executable, "-m", "goclock.cli", "hall", "--hall", HALL]
    cmd += ["--broker", "127.0.0.1:%d" % mosquitto.port, "--folder", str(folder)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    tables = []
    try:
        until(proc, "Ctrl-C to stop", stream=proc.stderr)  # said once connected and subscribed
        tables = [HallClock(tmp_path, "table-%d" % n, mosquitto.port) for n in (1, 2)]
        for t in tables:
            t.new_game(capsys)
        games = [t.status()["game"] for t in tables]
        proc.send_signal(signal.SIGSTOP)
        for t in tables:
            t.moves(capsys, 12)  # the clocks do not wait for a hall that does not read
        for t in tables:
            t.end(capsys)
        proc.send_signal(signal.SIGCONT)
        until(
            proc, tuple("%s game %d collected: intact" % (t.name, g) for t, g in zip(tables, games))
        )
        for t, g in zip(tables, games):
            path = folder / t.name / ("game-%05d.log" % g)
            assert path.read_bytes() == t.pulled(g)
    finally:
        proc.send_signal(signal.SIGCONT)
        proc.send_signal(signal.SIGTERM)  # as a service manager stops it (Ctrl-C: test_hall_view)
        out, err = proc.communicate(timeout=30)
        for t in tables:
            t.stop()
    assert proc.returncode == 0, err  # ended, not killed: its summary printed
    for t, g in zip(tables, games):
        assert ("%s game %d: " % (t.name, g)) in out.decode(), out


def test_a_view_that_joins_late_has_every_clock_at_once(runtime_dir, mosquitto, tmp_path, capsys):
    first = hall_service(mosquitto.port, tmp_path / "hall")
    tables = [HallClock(tmp_path, "table-%d" % n, mosquitto.port) for n in (1, 2, 3)]
    late = None
    try:
        for t in tables:
            t.new_game(capsys, ("byo", "10m+3x30s"))
            t.moves(capsys, 2)
        tables[2].cli(capsys, "pause")
        first.wait(lambda: (first.model.clock("table-3").state or {}).get("state") == "paused", 20)
        # A second view (its own folder and client id) joins now: the retained online and
        # state of every clock come at once, the paused one paused, the others running.
        late = hall_service(mosquitto.port, tmp_path / "late", client_id="late-view")
        late.wait(
            lambda: all((late.model.clock(t.name).state or {}).get("moves") == 2 for t in tables),
            20,
        )
        with late.cond:
            states = {n: c.state["state"] for n, c in late.model.clocks.items()}
            online = {n: c.online for n, c in late.model.clocks.items()}
        assert states == {"table-1": "running", "table-2": "running", "table-3": "paused"}
        assert online == {"table-1": True, "table-2": True, "table-3": True}
        # Its logs start where it joined: what was sent before is not retained, so it
        # says which records it waits for instead of writing a log with a gap.
        tables[0].moves(capsys, 1, first="white")
        late.wait(lambda: any(g["waiting_for"] for g in late.summary()), 20)
        g = late.collector.game("table-1", tables[0].status()["game"])
        assert g.size == 0 and g.missing[:1] == [1]
        assert not os.path.exists(g.path)
    finally:
        for t in tables:
            t.stop()
        first.stop()
        if late:
            late.stop()


def test_malformed_and_oversized_commands_change_nothing(runtime_dir, mosquitto, tmp_path, capsys):
    svc = hall_service(mosquitto.port, tmp_path / "hall")
    table = HallClock(tmp_path, "table-4", mosquitto.port)
    watch = Subscriber(mosquitto.port, ROOT + "/table-4/reply", client_id="reply-watch")
    try:
        table.new_game(capsys)
        table.moves(capsys, 1)
        before = table.status()
        topic = ROOT + "/table-4/cmd"
        for payload, says in (
            (b'{"cmd":"pause",}', "bad JSON"),
            (b'{"id":1,"cmd":"pause","cmd":"reset"}', "bad JSON"),
            (b"[1,2]", "JSON object"),
            (json.dumps({"id": 2, "cmd": "status", "pad": "x" * 2000}).encode(), "over 1024"),
            (b'{"id":3,"cmd":"config.set","config":{}}', "not allowed over the network"),
            (b'{"id":4,"cmd":"logs.clear"}', "not allowed over the network"),
        ):
            mark = watch.mark()
            watch.publish(topic, payload)
            reply = watch.wait_json("reply", after=mark)
            assert reply["ok"] is False and says in reply["error"], (payload[:40], reply)
        after = table.status()
        for k in ("state", "turn", "game", "moves"):
            assert after[k] == before[k]
        # A good one still works.
        reply = svc.request("table-4", "status")
        assert reply["ok"] and reply["moves"] == 1
    finally:
        watch.close()
        table.stop()
        svc.stop()


def test_a_hall_told_to_stop_stops_though_its_network_thread_does_not(tmp_path, caplog):
    """`HallService.stop` waits a bounded time for the MQTT thread (here one that never
    ends: loop_stop held until the test lets it go), then reports where it is and returns,
    so `goclock hall` ends. No broker: the client never connects."""
    from goclock.hall.service import HallService

    svc = HallService(HALL, tmp_path / "hall", port=1)
    release = threading.Event()
    entered = threading.Event()

    def stuck_loop_stop():
        entered.set()
        release.wait()

    svc.client.loop_stop = stuck_loop_stop
    try:
        svc.stop(wait_s=0.05)
        assert entered.wait(10)  # it was asked to end
        assert "did not end within 0.05 s" in caplog.text
    finally:
        release.set()
