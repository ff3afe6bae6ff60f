"""Running the real firmware (firmware/main.py) under the MicroPython unix port on the desktop board.

The launcher is tools/sim.py's `Firmware`: a pty for the serial line, the
keys on stdin, console lines on stdout. Tests use virtual time (the clock
moves only with "!wait N"), so every tick they check is exact.
"""

import os
import sys

from conftest import REPO, micropython_path

sys.path.insert(0, os.path.join(REPO, "tools"))

from sim import Firmware  # noqa: E402


def boot(flash, virtual=True, env=None, **kw):
    """A started firmware whose loop has run once; console lines of the boot in `fw.boot`."""
    e = {"GOCLOCK_VIEW": "0"}
    e.update(env or {})
    fw = Firmware(str(flash), virtual=virtual, env=e, binary=micropython_path(), **kw)
    fw.boot = fw.wait(0) if virtual else fw.lines(0.5)
    return fw


def set_tc(fw, tc):
    """Configure a time control and reset to it (both over the serial line)."""
    r = fw.request({"cmd": "config.set", "config": {"time_control": tc}})
    assert r["ok"], r
    r = fw.request({"cmd": "reset"})
    assert r["ok"], r


def status(fw):
    r = fw.request({"cmd": "status"})
    assert r["ok"], r
    return r


def said(lines):
    return [x["say"] for x in lines if isinstance(x, dict) and "say" in x]


def notices(lines):
    return [x["notice"] for x in lines if isinstance(x, dict) and "notice" in x]


def tap(fw, button, hold_ms=50):
    """Press and release a button (left/right/arbiter) in virtual time."""
    fw.keys("!down %s\n" % button)
    out = fw.wait(hold_ms)
    fw.keys("!up %s\n" % button)
    return out + fw.wait(20)


def log_bytes(flash, game):
    with open(os.path.join(str(flash), "logs", "%05d.log" % game), "rb") as f:
        return f.read()
