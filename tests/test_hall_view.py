# ruff: noqa: F811  (fixtures imported from tests/support are parameters here)
"""The hall view: times counted down from the state's reference time (injected), rounded
up, never drifting between messages; offline clocks, arbiter calls, flags; and
`goclock hall` itself through a broker restart, collecting a bridge-published clock.
"""

import json
import os
import select
import signal
import subprocess
import sys
import time

from goclock.hall import view
from goclock.hall.model import Hall, left_text, project, used_text
from goclockfw.storage.logline import verify_bytes
from support.bridgeclock import runtime_dir  # noqa: F401 (a fixture)
from support.cli import own_home  # noqa: F401 (autouse)
from support.hallbridge import HALL, HallClock
from support.mosquitto import mosquitto  # noqa: F401 (a fixture)

T0 = 1_800_000_000_000  # a time of day, ms since the epoch
BYO = {"type": "byoyomi", "main": 600, "periods": 3, "period": 30}


def state(black, white, utc, seq, turn="black", run="running", tc=BYO, **kw):
    msg = {
        "state": run,
        "turn": turn,
        "black": black,
        "white": white,
        "time_control": tc,
        "game": 4,
        "moves": 10,
        "table": 12,
        "black_name": "Ana",
        "white_name": "Bo",
        "t": 100000,
        "utc": utc,
        "seq": seq,
    }
    msg.update(kw)
    return json.dumps(msg).encode()


def side(main_ms, periods=3, period_ms=30000, flagged=False):
    return {"main_ms": main_ms, "flagged": flagged, "periods": periods, "period_ms": period_ms}


def black_at(hall, now, clock="t12"):
    return view.side_cell(hall.clocks[clock].sides(now)["black"])


def test_rounding_up_left_down_used():
    assert [left_text(x) for x in (0, 1, 999, 1000, 1001, 59999, 3600000)] == [
        "0:00",
        "0:01",
        "0:01",
        "0:01",
        "0:02",
        "1:00",
        "1:00:00",
    ]
    assert [used_text(x) for x in (0, 999, 1000, 59999)] == ["0:00", "0:00", "0:01", "0:59"]


def test_the_running_side_counts_down_from_the_reference_time():
    h = Hall()
    # Arrives 300 ms after its utc: the clocks agree, so it counts from utc.
    h.take("t12", "state", state(side(65000), side(600000), T0, 1), T0 + 300)
    assert black_at(h, T0 + 300) == "1:05 3×0:30"  # 64.7 s up to 1:05
    assert black_at(h, T0 + 5001) == "1:00 3×0:30"
    assert black_at(h, T0 + 65000) == "0:00 3×0:30"  # main gone, the period untouched
    assert black_at(h, T0 + 65001) == "0:00 3×0:30"  # 29.999 s shows 0:30
    assert black_at(h, T0 + 94999) == "0:00 3×0:01"
    assert black_at(h, T0 + 95000) == "0:00 2×0:30"  # the next period starts whole
    assert black_at(h, T0 + 95000 + 60000) == "0:00 1×0:00"  # the last one: never below 0
    # The side not to move does not run.
    assert view.side_cell(h.clocks["t12"].sides(T0 + 50000)["white"]) == "10:00 3×0:30"


def test_a_clock_whose_time_of_day_is_off_counts_from_arrival():
    h = Hall()
    h.take("t12", "state", state(side(65000), side(600000), T0 - 5000, 1), T0)
    assert black_at(h, T0 + 1000) == "1:04 3×0:30"  # from arrival: 64 s left
    h.take("t12", "state", state(side(65000), side(600000), None, 2), T0)
    assert black_at(h, T0 + 1000) == "1:04 3×0:30"  # no time of day: the same


def test_no_drift_between_states_and_an_older_state_dropped():
    h = Hall()
    # States every 5 s, as the clock sends them while running: the shown time agrees at
    # every instant with what the last state says, never runs ahead of a later one.
    for k in range(10):
        left = 600000 - 5000 * k
        h.take(
            "t12",
            "state",
            state(side(left), side(600000), T0 + 5000 * k, k + 1),
            T0 + 5000 * k + 50,
        )
        for dt in (0, 1, 2500, 4999):
            expect = left_text(left - dt)
            assert black_at(h, T0 + 5000 * k + dt).startswith(expect + " ")
    # A state overtaken by a newer one (QoS 0 has no order) is dropped.
    h.take("t12", "state", state(side(1000), side(600000), T0, 3), T0 + 50000)
    assert h.clocks["t12"].state["seq"] == 10
    # A clock that booted again (online) counts its states from 1 again.
    h.take("t12", "online", b'{"online":true,"version":"x","board":"desktop","game":4}', T0)
    h.take("t12", "state", state(side(1000), side(600000), T0, 1), T0)
    assert h.clocks["t12"].state["seq"] == 1


def test_paused_offline_calling_flagged_in_the_rows():
    h = Hall()
    h.take("t12", "state", state(side(0, 0, 0, True), side(1000), T0, 1, run="paused"), T0)
    h.take("t12", "online", b'{"online":false}', T0)
    h.take("t3", "state", state(side(5000), side(5000), T0, 1, table=3), T0)
    h.take("t3", "arbiter", b'{"calling":true,"since_utc":1,"t":5}', T0)
    rows = {r["clock"]: r for r in view.rows(h, T0 + 10000)}
    assert "OFFLINE" in rows["t12"]["notes"] and "black flagged" in rows["t12"]["notes"]
    assert "paused" in rows["t12"]["notes"]
    assert rows["t12"]["black"].endswith("FLAG")
    assert rows["t3"]["notes"] == "CALLS THE ARBITER"
    assert [r["table"] for r in view.rows(h, T0)] == ["3", "12"]  # by table number
    assert [c.name for c in h.calls()] == ["t3"]
    h.take("t3", "arbiter", b'{"calling":false,"by":"hall"}', T0)
    assert h.calls() == []
    # Unreadable messages are noted, nothing raised.
    h.take("t3", "state", b"{nope", T0)
    h.take("t3", "state", b"[1]", T0)
    assert len(h.notices) == 2 and h.clocks["t3"].state["table"] == 3


def test_projection_of_other_time_controls():
    untimed = project({"main_ms": 0, "spent_ms": 1000}, {"type": "untimed"}, 2500)
    assert untimed["spent_ms"] == 3500
    canadian = project({"main_ms": 0, "moves": 10, "period_ms": 300000}, {"type": "canadian"}, 1000)
    assert canadian["period_ms"] == 299000 and canadian["moves"] == 10
    sd = project({"main_ms": 1000, "flagged": False}, {"type": "sudden_death"}, 5000)
    assert sd["main_ms"] == 0


def until(proc, text, timeout=60.0, stream=None):
    """The child's output lines (stdout, or `stream`) up to the one that completes
    `text` (a string, or a tuple of strings each in some line), bounded in time."""
    wanted = set(text) if isinstance(text, tuple) else {text}
    lines, buf = [], b""
    end = time.monotonic() + timeout
    fd = (stream or proc.stdout).fileno()
    while True:
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            lines.append(line.decode())
            wanted = {w for w in wanted if w not in lines[-1]}
            if not wanted:
                return lines
        left = end - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise AssertionError("no %r from goclock hall; got %r" % (wanted, lines[-5:]))
        chunk = os.read(fd, 65536)
        if not chunk:
            raise AssertionError("goclock hall stopped: %r" % proc.stderr.read()[-800:])
        buf += chunk


def test_goclock_hall_through_a_broker_restart(runtime_dir, mosquitto, tmp_path, capsys):
    """The command itself, in a pipe: lines as clocks change, the log collected whole and
    verified though the broker restarted in the middle of the game."""
    folder = tmp_path / "hall"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    cmd = [sys.executable, "-m", "goclock.cli", "hall", "--hall", HALL]
    cmd += ["--broker", "127.0.0.1:%d" % mosquitto.port, "--folder", str(folder)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    until(proc, "Ctrl-C to stop", stream=proc.stderr)  # subscribed before the clock plays
    table = HallClock(tmp_path, "table-5", mosquitto.port)
    try:
        table.new_game(capsys)
        game = table.status()["game"]
        table.moves(capsys, 3)
        # Restarted once the hall has what was sent: a slice in flight when a broker
        # without persistence dies is gone for the hall, and only `log.resend` brings it
        # back (the firmware's; the bridge has none: docs/hall-host.md).
        have = len(verify_bytes(table.pulled(game))["records"])
        until(proc, ("table-5", "  %d rec" % have))
        mosquitto.restart()
        table.moves(capsys, 2, first="white")
        table.end(capsys)
        path = folder / "table-5" / ("game-%05d.log" % game)
        want = table.pulled(game)
        # The hall writes as slices arrive: wait on its output saying the log is checked.
        lines = until(proc, "table-5 game %d collected: intact" % game)
        assert path.read_bytes() == want
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        table.stop()
    assert proc.returncode == 0, err
    text = out.decode()
    assert "table-5 game %d: " % game in text and ", intact," in text
    assert any("table-5" in x and "running" in x for x in lines)


def test_the_acknowledge_key_sends_arbiter_ack(runtime_dir, mosquitto, tmp_path, capsys):
    """`a` in the view: arbiter.ack to the clock calling longest, its answer noted, and a
    refusal shown as one (never as a call acknowledged). The call is injected (the bridge
    does not publish the arbiter topic); the clock answers that nobody calls."""
    from goclock.cli.hall import acknowledge
    from support.hallbridge import hall_service
    from support.mqttsub import Subscriber

    svc = hall_service(mosquitto.port, tmp_path / "hall")
    table = HallClock(tmp_path, "table-9", mosquitto.port)
    watch = Subscriber(mosquitto.port, "goclock/v1/%s/table-9/cmd" % HALL, client_id="cmd-watch")
    try:
        svc.take("goclock/v1/%s/table-9/arbiter" % HALL, b'{"calling":true,"since_utc":1}')
        assert [c.name for c in svc.model.calls()] == ["table-9"]
        acknowledge(svc, svc.model.calls()[0].name)
        sent = watch.wait_json("cmd")
        assert sent["cmd"] == "arbiter.ack" and sent["by"] == "hall"
        svc.wait(lambda: any("table-9: arbiter.ack" in n for _, n in svc.model.notices), 20)
        with svc.cond:
            note = [n for _, n in svc.model.notices if "arbiter.ack" in n][-1]
        # The call here was the test's, not the board's: the clock says nobody calls.
        assert note == "table-9: arbiter.ack refused: nobody calls the arbiter"
    finally:
        watch.close()
        table.stop()
        svc.stop()
