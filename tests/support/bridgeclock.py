"""A simulated clock behind `goclock bridge`, and raw peers of the bridge, for tests.

The clock is the firmware under the MicroPython unix port (support/firmware.py: virtual
time, moved only by the test), reached by a symlink, as /dev/serial/by-id/… reaches a
board: `replug()` kills it and starts it again on the same flash behind a new pty, and
points the link there, as a cable pulled and plugged in again. The bridge's runtime
folder is a fresh one per test (short: a Unix socket's path has at most 107 bytes).

`RawPeer` is a program on the bridge's Unix socket that reads only when told to: lines
are taken with `line(timeout)` / `until(pred)`, bounded in time; no sleeps.
"""

import json
import os
import select
import shutil
import socket
import tempfile
import time

import pytest

from goclock.bridge import runtime
from support.cli import run
from support.firmware import boot


@pytest.fixture
def runtime_dir(monkeypatch):
    path = tempfile.mkdtemp(prefix="gcb")
    os.chmod(path, 0o700)
    monkeypatch.setenv("GOCLOCK_RUNTIME_DIR", path)
    monkeypatch.delenv("GOCLOCK_NO_BRIDGE", raising=False)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def clock(tmp_path):
    """A simulated clock on a link that `replug()` moves (see PluggedClock)."""
    c = PluggedClock(tmp_path)
    yield c
    c.stop()


def ok(capsys, *argv):
    """A `goclock` command, in this process, that must succeed; its output."""
    rc, out, err = run(capsys, *argv)
    assert rc == 0, (argv, err)
    return out


def new_game(capsys, port, tc=("sd", "3h")):
    """A game on the clock with Black's clock running (White's button starts it)."""
    ok(capsys, "--port", port, "config", "set", *tc)
    ok(capsys, "--port", port, "reset")
    ok(capsys, "--port", port, "press", "white")


class PluggedClock:
    """The firmware behind a symlink that a replug moves to the new pty."""

    def __init__(self, folder):
        self.folder = str(folder)
        os.makedirs(self.folder, exist_ok=True)
        self.flash = os.path.join(self.folder, "flash")
        self.link = os.path.join(self.folder, "ttyGOCLOCK")
        self.fw = None
        self.plug()

    def plug(self):
        self.fw = boot(self.flash)
        tmp = self.link + ".new"
        os.symlink(self.fw.port, tmp)
        os.replace(tmp, self.link)

    def unplug(self):
        self.fw.kill()
        os.unlink(self.link)

    def replug(self):
        self.unplug()
        self.plug()

    def stop(self):
        if self.fw is not None:
            self.fw.stop()


class RawPeer:
    def __init__(self, bridge_or_path):
        path = getattr(bridge_or_path, "socket_path", bridge_or_path)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.buf = b""
        self.eof = False

    def send(self, data):
        if isinstance(data, dict):
            data = json.dumps(data)
        if isinstance(data, str):
            data = data.encode()
        self.sock.sendall(data)

    def ask(self, req, timeout=10.0):
        self.send(json.dumps(req) + "\n")
        return self.until(lambda m: isinstance(m, dict) and "ok" in m, timeout)[-1]

    def line(self, timeout=10.0):
        """The next line (parsed), or None at the end of the stream."""
        end = time.monotonic() + timeout
        while b"\n" not in self.buf:
            if self.eof:
                return None
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.sock], [], [], left)[0]:
                raise TimeoutError("no line from the bridge; have %r" % self.buf[-200:])
            chunk = self.sock.recv(65536)
            if not chunk:
                self.eof = True
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        try:
            return json.loads(line)
        except ValueError:
            return line.decode("utf-8", "replace")

    def until(self, pred, timeout=10.0):
        """Lines up to and including the first for which `pred` holds."""
        got = []
        end = time.monotonic() + timeout
        while True:
            msg = self.line(max(0.0, end - time.monotonic()))
            if msg is None:
                raise EOFError("the bridge closed the line; got %r" % got[-5:])
            got.append(msg)
            if pred(msg):
                return got

    def close(self, reset=False):
        if reset:  # as a killed process leaves it: no orderly shutdown
            import struct

            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.sock.close()


def registered(port):
    return runtime.lookup(port)
