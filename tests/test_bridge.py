# ruff: noqa: F811  (fixtures imported from tests/support are parameters here)
"""`goclock bridge`: one process owns the clock's line and shares it (docs/bridge.md).

The clock is the real firmware under the MicroPython unix port behind a pty, in virtual
time (support/bridgeclock.py); the bridge's peers are real `goclock` commands (in this
process, and as processes of their own) and raw sockets that read only when told to.
Every wait is on a line, a reply or the bridge's own change notice, bounded in time.
"""

import json
import os
import select
import signal
import subprocess
import sys
import time

import pytest

from goclock.bridge import BridgeBusy, runtime, start_bridge
from support.bridgeclock import RawPeer, clock, new_game, ok, runtime_dir  # noqa: F401
from support.cli import own_home, run  # noqa: F401 (autouse)

GOCLOCK = os.path.join(os.path.dirname(sys.executable), "goclock")


def started(port, **options):
    b = start_bridge(port, **options)
    b.wait_until(lambda s: s["line"] == "up")
    return b


@pytest.fixture
def bridge(clock, runtime_dir):
    b = started(clock.link)
    yield b
    b.stop()


class Process:
    """A `goclock` command as a process of its own; its output read line by line."""

    def __init__(self, *argv):
        self.proc = subprocess.Popen(
            [GOCLOCK, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self.buf = b""

    def until(self, pred, timeout=20.0):
        got = []
        end = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                msg = json.loads(line)
                got.append(msg)
                if pred(msg):
                    return got
            left = end - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError("no such line; got %r" % got[-3:])
            chunk = os.read(fd, 65536)
            if not chunk:
                raise EOFError(self.proc.stderr.read().decode())
            self.buf += chunk

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self.proc.stdout.close()
        self.proc.stderr.close()


def test_watch_in_one_window_pause_in_another(clock, bridge, capsys):
    port = clock.link
    new_game(capsys, port)
    watch = Process("--port", port, "--json", "watch")
    try:
        watch.until(lambda m: m.get("event") == "status")
        bridge.wait_until(lambda s: s["clock_watch"] and s["watchers"] == 1)
        clock.fw.wait(2500)
        assert ok(capsys, "--port", port, "pause").strip() == "clock paused"
        seen = watch.until(lambda m: m.get("event") == "pause")
        assert seen[-1]["side"] == "black"
        st = json.loads(ok(capsys, "--port", port, "--json", "status"))  # a third one
        assert st["state"] == "paused" and st["moves"] == 0
    finally:
        watch.kill()  # killed as a crash kills it, in the middle of its stream
    # Nobody watches any more: the bridge turns the clock's watch off.
    st = bridge.wait_until(lambda s: s["peers"] == 0 and not s["clock_watch"])
    assert st["line"] == "up"


def test_each_peer_gets_its_own_replies_whatever_its_ids(bridge):
    a, b = RawPeer(bridge), RawPeer(bridge)
    try:
        a.send(b"\n")  # a peer's own opening newline: no answer
        a.send('{"id":7,"cmd":"status"}\n')
        b.send('{"id":7,"cmd":"info"}\n')
        ra = a.until(lambda m: "ok" in m)[-1]
        rb = b.until(lambda m: "ok" in m)[-1]
        assert ra["id"] == 7 and ra["ok"] and "state" in ra
        assert rb["id"] == 7 and rb["ok"] and rb["protocol"] == 3
        # A line the clock cannot read: the clock's own error goes to its sender alone.
        a.send('{"id":8,"cmd":"pause",}\n')
        bad = a.until(lambda m: "ok" in m)[-1]
        assert bad["id"] is None and bad["error"].startswith("bad JSON"), bad
        assert b.ask({"id": "x", "cmd": "bridge.status"})["peers"] == 2  # nothing else came
        # No id: the reply has none either, as from the clock.
        a.send('{"cmd":"status"}\n')
        r = a.until(lambda m: "ok" in m)[-1]
        assert r["id"] is None and r["ok"] is True
        a.send(b'{"id":9,"cmd":"\xc0\xae"}\n')  # not UTF-8: forwarded as it came
        bad = a.until(lambda m: "ok" in m)[-1]
        assert bad["id"] is None and "UTF-8" in bad["error"], bad
        a.send(b"{" + b"x" * 2000 + b"}\n")
        assert a.until(lambda m: "ok" in m)[-1]["error"] == "request line over 1024 bytes"
    finally:
        a.close()
        b.close()


def test_a_flood_of_requests_is_bounded_and_each_answered(bridge):
    flood, other = RawPeer(bridge), RawPeer(bridge)
    try:
        flood.send("".join('{"id":%d,"cmd":"status"}\n' % i for i in range(300)))
        assert other.ask({"id": 1, "cmd": "info"})["ok"] is True  # not stalled behind it
        replies = []
        while len(replies) < 300:  # the refusals come at once, the clock's answers after
            replies += [m for m in flood.until(lambda m: "ok" in m, timeout=30)[-1:]]
        assert sorted(m["id"] for m in replies) == list(range(300))  # one reply each
        refused = [m for m in replies if not m["ok"]]
        assert all("too many requests waiting" in m["error"] for m in refused)
        assert bridge.wait_until(lambda s: s["waiting"] == 0)["peers"] == 2
    finally:
        flood.close()
        other.close()


def test_a_peer_killed_mid_request_leaves_nothing_behind(clock, bridge, capsys):
    dead = RawPeer(bridge)
    # A whole request, then half of the next one, then the process is gone.
    dead.send('{"id":1,"cmd":"status"}\n{"id":2,"cmd":"pa')
    dead.close(reset=True)
    bridge.wait_until(lambda s: s["peers"] == 0 and s["waiting"] == 0)
    # The half line never reached the clock: the next request is read whole.
    live = RawPeer(bridge)
    try:
        r = live.ask({"id": 1, "cmd": "pause"})
        assert r == {"id": 1, "ok": False, "error": "no clock is running"}
    finally:
        live.close()
    # A command as a process, killed while its request is with the clock: the bridge goes on.
    proc = Process("--port", clock.link, "--json", "logs", "list")
    proc.kill()
    assert json.loads(ok(capsys, "--port", clock.link, "--json", "status"))["state"] == "idle"


def test_a_slow_peer_is_dropped_and_stalls_nobody(clock, runtime_dir, capsys):
    b = started(clock.link, queue_bytes=8192)
    try:
        new_game(capsys, clock.link)
        slow, fast = RawPeer(b), RawPeer(b)
        assert slow.ask({"id": 1, "cmd": "watch", "on": True})["on"] is True
        assert fast.ask({"id": 1, "cmd": "watch", "on": True})["on"] is True
        statuses = 0
        for minute in range(1, 150):  # the game is 3 h; the drop comes long before
            clock.fw.wait(60000)
            left = 3 * 3600000 - minute * 60000 + 1000  # Black's time after this minute
            got = fast.until(
                lambda m, left=left: m.get("event") == "status" and m["black"]["main_ms"] <= left
            )
            statuses += sum(1 for m in got if m.get("event") == "status")
            if fast.ask({"id": minute, "cmd": "bridge.status"})["peers"] == 1:
                break
        else:
            pytest.fail("the peer that never reads was never dropped")
        assert statuses >= minute * 59  # the fast one got every second's status meanwhile
        r = fast.ask({"id": "after", "cmd": "status"})
        assert r["state"] == "running" and r["id"] == "after"
        # The slow one, reading at last: what was queued for it, then why it was dropped.
        last = slow.until(lambda m: m.get("notice") == "bridge", timeout=30)[-1]
        assert last["line"] == "dropped" and "stopped reading" in last["message"]
        assert slow.line(10) is None  # and the bridge closed its connection
    finally:
        b.stop()


def test_the_line_dropped_and_back(clock, bridge, capsys):
    port = clock.link
    new_game(capsys, port)
    w = RawPeer(bridge)
    try:
        assert w.ask({"id": 1, "cmd": "watch", "on": True})["on"] is True
        clock.fw.wait(3000)
        clock.unplug()
        down = w.until(lambda m: m.get("notice") == "bridge")[-1]
        assert down["line"] == "down"
        rc, out, err = run(capsys, "--port", port, "status")
        assert rc == 1 and "down" in err and "Traceback" not in err
        r = w.ask({"id": 2, "cmd": "status"})
        assert r["ok"] is False and r["bridge"] == "offline" and r["id"] == 2
        clock.plug()  # the same flash: the game comes back, paused
        up = w.until(lambda m: m.get("notice") == "bridge", timeout=30)[-1]
        assert up["line"] == "up"
        st = bridge.wait_until(lambda s: s["line"] == "up" and s["clock_watch"])
        assert st["watchers"] == 1  # the watch was put back on the new line
        assert json.loads(ok(capsys, "--port", port, "--json", "status"))["state"] == "paused"
        ok(capsys, "--port", port, "resume")
        assert w.until(lambda m: m.get("event") == "resume")[-1]["side"] == "black"
    finally:
        w.close()


def test_one_bridge_per_port_and_stale_files_cleared(clock, bridge, runtime_dir, capsys):
    # Another bridge for the same clock, by its link or by the pty it resolves to: refused.
    for name in (clock.link, os.path.realpath(clock.link)):
        with pytest.raises(BridgeBusy):
            start_bridge(name)
    # A command told to open the port itself finds it busy: the bridge has it.
    os.environ["GOCLOCK_NO_BRIDGE"] = "1"
    try:
        rc, out, err = run(capsys, "--port", clock.link, "status")
    finally:
        del os.environ["GOCLOCK_NO_BRIDGE"]
    assert rc == 1 and "busy" in err
    # A bridge that crashed leaves its files; the next lookup sees no lock and clears them.
    script = (
        "import os, sys; from goclock.bridge import runtime\n"
        "r = runtime.Registration('socket://127.0.0.1:9', runtime.socket_path_for('socket://127.0.0.1:9'))\n"
        "r.claim(); open(r.socket_path, 'w').close(); print('claimed', flush=True)\n"
        "sys.stdin.read()\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert proc.stdout.readline().strip() == b"claimed"
    assert runtime.lookup("socket://127.0.0.1:9")["pid"] == proc.pid
    proc.kill()
    proc.wait(10)
    proc.stdin.close()
    proc.stdout.close()
    assert runtime.lookup("socket://127.0.0.1:9") is None
    left = sorted(os.listdir(runtime_dir))
    assert not [
        f
        for f in left
        if f.endswith(".json")
        and runtime.read_info(os.path.join(runtime_dir, f[:-5]))
        and runtime.read_info(os.path.join(runtime_dir, f[:-5]))["port"] == "socket://127.0.0.1:9"
    ]
    assert os.path.basename(runtime.socket_path_for("socket://127.0.0.1:9")) not in left
