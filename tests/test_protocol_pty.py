"""The protocol over a real pty, under the MicroPython unix port.

A MicroPython process reads its stdin (the pty's slave side, raw mode) byte by
byte into Protocol.feed and writes the replies and event lines back, with the
real session (tests/support/sessions.py) behind it. The test plays every command, then
sends a few hundred malformed lines: each gets one error reply, and the clock's
state is the same afterwards.
"""

import base64
import json
import os
import pty
import random
import select
import subprocess
import time
import tty

import pytest

from support.mpy import ENV, driver_path

DRIVER = """
import sys
from protocol_support import make_device
out = sys.stdout.buffer
def send(text, n=-1):
    out.write(text.encode() if isinstance(text, str) else bytes(text[:len(text) if n < 0 else n]))
    out.write(b"\\n")
app, proto, _ = make_device(sys.argv[1], send)
inp = sys.stdin.buffer
while True:
    b = inp.read(1)
    if not b:
        break
    for reply in proto.feed(b):
        send(reply)
"""

COMMANDS = (
    "info status config.get config.set presets.get presets.set logs.list logs.get "
    "logs.clear watch time.set pause resume reset press"
).split()


class Line:
    def __init__(self, micropython, tmp_path):
        flash = tmp_path / "flash"
        flash.mkdir()
        self.master, slave = pty.openpty()
        tty.setraw(slave)
        self.proc = subprocess.Popen(
            [micropython, driver_path(tmp_path, DRIVER, "pty_driver.py"), str(flash)],
            stdin=slave,
            stdout=slave,
            stderr=subprocess.PIPE,
            env=ENV,
        )
        os.close(slave)
        self.buf = b""
        self.events = []

    def send(self, data):
        os.write(self.master, data)

    def line(self, timeout=10):
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            assert left > 0, "no reply from the device"
            if select.select([self.master], [], [], left)[0]:
                self.buf += os.read(self.master, 65536)
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def ask(self, req):
        """The reply to `req`; event lines that come first are kept in `events`."""
        self.send(json.dumps(req).encode() + b"\n")
        while True:
            msg = self.line()
            if "event" not in msg:
                return msg
            self.events.append(msg)

    def close(self):
        self.proc.kill()
        self.proc.wait()
        os.close(self.master)


@pytest.fixture
def line(micropython, tmp_path):
    ln = Line(micropython, tmp_path)
    yield ln
    ln.close()


def test_every_command_over_the_pty(line):
    r = line.ask({"id": 1, "cmd": "info"})
    assert r["ok"] and r["protocol"] == 3
    assert line.ask({"id": 2, "cmd": "watch", "on": True})["on"] is True
    # the event lines a request causes come before its reply
    assert line.ask({"id": 3, "cmd": "press", "side": "white"})["accepted"] is True
    assert line.events.pop() == {"event": "start", "t": 0, "side": "black"}
    assert line.ask({"id": 4, "cmd": "press", "side": "black"})["accepted"] is True
    assert line.events.pop()["event"] == "press"
    assert line.ask({"id": 5, "cmd": "status"})["turn"] == "white"
    assert line.ask({"id": 6, "cmd": "pause"})["state"] == "paused"
    assert line.events.pop()["event"] == "pause"
    r = line.ask({"id": 7, "cmd": "time.set", "side": "black", "main": 30})
    assert r["ok"] and r["main_ms"] == 30000
    assert line.events.pop()["event"] == "adjust"
    assert line.ask({"id": 8, "cmd": "resume"})["state"] == "running"
    assert line.events.pop()["event"] == "resume"
    assert line.events == []
    assert line.ask({"id": 9, "cmd": "config.set", "config": {"volume": 1}})["ok"] is False
    assert line.ask({"id": 10, "cmd": "watch", "on": False})["ok"]
    assert line.ask({"id": 11, "cmd": "config.get"})["config"]["volume"] == 7
    presets = line.ask({"id": 12, "cmd": "presets.get"})["presets"]
    assert not line.ask({"id": 13, "cmd": "presets.set", "presets": presets[:2]})["ok"]
    r = line.ask({"id": 13, "cmd": "reset"})
    assert r["ok"] is False and r["error"] == "a clock is running: pause it first"
    assert line.ask({"id": 13, "cmd": "pause"})["state"] == "paused"
    assert line.ask({"id": 13, "cmd": "presets.set", "presets": presets[:2]})["ok"]
    r = line.ask({"id": 14, "cmd": "reset", "preset": 2})
    assert r["state"] == "idle" and r["time_control"] == presets[1]["time_control"]
    assert (
        line.ask({"id": 15, "cmd": "config.set", "config": {"volume": 1}})["config"]["volume"] == 1
    )
    logs = line.ask({"id": 16, "cmd": "logs.list"})["logs"]
    assert [g["game"] for g in logs] == [1]  # game 2 has no log until it starts
    got = b""
    while True:  # chunk by chunk, as goclock logs pull reads it
        r = line.ask({"id": 17, "cmd": "logs.get", "game": 1, "offset": len(got)})
        assert r["ok"] and r["size"] == logs[0]["size"]
        got += base64.b64decode(r["data"])
        if r["eof"]:
            break
    assert len(got) == logs[0]["size"] and got.endswith(b"\n")
    assert line.ask({"id": 18, "cmd": "logs.clear"})["removed"] == 1
    # a request split across writes, with a CR-LF ending, then two in one write (the
    # driver feeds the protocol a byte at a time: no pause between the writes is needed)
    line.send(b'{"id": 19, "cm')
    line.send(b'd": "status"}\r\n{"id": 20, "cmd": "info"}\n{"id": 21, "cmd": "info"}\n')
    assert [line.line()["id"] for _ in range(3)] == [19, 20, 21]


def malformed_lines(rng):
    lines = []
    for _ in range(100):  # random bytes, no line ends
        b = bytes(
            rng.choice([x for x in range(256) if x not in (10, 13)])
            for _ in range(rng.randint(1, 120))
        )
        try:
            obj = json.loads(b)
            if isinstance(obj, dict) and obj.get("cmd") in COMMANDS:
                continue
        except ValueError:
            pass
        lines.append(b)
    for _ in range(40):  # JSON that is not an object
        lines.append(json.dumps(rng.choice([1, "info", [1, "cmd"], None, True, 2.5, []])).encode())
    for _ in range(40):  # unknown or missing commands
        lines.append(
            json.dumps(
                {"id": rng.randint(0, 99), "cmd": rng.choice(["", "INFO", "info ", 5, None])}
            ).encode()
        )
    wrong = [None, True, 1.5, "x", [], {}, -1, 10**12]
    args = {
        "press": ("side", [v for v in wrong]),
        "time.set": ("side", wrong),
        "watch": ("on", [None, 1, "true", [], {}]),
        "reset": ("preset", [True, 1.5, "0", -1, 99, []]),
        "logs.get": ("game", [None, "1", 1.5, -1, 777]),
        "logs.clear": ("game", ["1", 1.5, -1, 777, []]),
        "config.set": ("config", [None, 1, "x", [], {"volume": 99}, {"voice": ""}]),
        "presets.set": ("presets", [None, 1, {}, [1], [{"name": ""}]]),
    }
    for _ in range(120):  # a known command with an argument that cannot be right
        cmd = rng.choice(sorted(args))
        key, values = args[cmd]
        lines.append(
            json.dumps({"id": rng.randint(0, 99), "cmd": cmd, key: rng.choice(values)}).encode()
        )
    for _ in range(10):  # a wrong id
        lines.append(json.dumps({"id": rng.choice([1.5, [], {}, True]), "cmd": "info"}).encode())
    for _ in range(15):  # too long
        lines.append(b'{"id":1,"cmd":"info","pad":"' + b"x" * rng.randint(1000, 4000) + b'"}')
    return lines


def test_malformed_lines_over_the_pty(line):
    assert line.ask({"id": 1, "cmd": "press", "side": "white"})["accepted"]
    assert line.ask({"id": 2, "cmd": "press", "side": "black"})["accepted"]
    before = [
        line.ask({"id": 3, "cmd": c}) for c in ("status", "config.get", "presets.get", "logs.list")
    ]
    lines = malformed_lines(random.Random(11))
    assert len(lines) >= 300
    for i in range(0, len(lines), 20):  # in bursts: the line discipline keeps up
        burst = lines[i : i + 20]
        line.send(b"".join(ln + b"\n" for ln in burst))
        for ln in burst:
            r = line.line()
            assert r["ok"] is False and r["error"], (ln, r)
    after = [
        line.ask({"id": 3, "cmd": c}) for c in ("status", "config.get", "presets.get", "logs.list")
    ]
    assert after == before
    assert line.proc.poll() is None  # still running
