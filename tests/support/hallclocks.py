"""Firmware clocks in a hall, for tests: the real firmware under the MicroPython unix port
(virtual time) publishing to a real Mosquitto (tests/support/mosquitto.py), and the hall
side's bookkeeping of a game's log as docs/hall.md tells a subscriber to keep it."""

import json
import os
import subprocess

from support.firmware import boot, pull_log

HALL = "h"


def network(port, clock, user=None, password=None, keepalive=60, tls=False):
    mqtt = {"host": "127.0.0.1", "port": port, "keepalive": keepalive, "tls": tls}
    if user is not None:
        mqtt.update(user=user, password=password)
    return {"mqtt": mqtt, "hall": HALL, "clock": clock}


def clock(tmp_path, name, port, env=None, **kw):
    """A booted firmware clock configured for the hall (its config set over serial)."""
    fw = boot(tmp_path / ("flash-" + name), env=env)
    fw.name = name
    r = fw.request({"cmd": "config.set", "config": {"network": network(port, name, **kw)}})
    assert r["ok"], r
    return fw


def press(fw, button, ms=1000):
    """A move: the button goes down and up, then `ms` of virtual time pass."""
    fw.keys("!down %s\n" % button)
    fw.wait(30)
    fw.keys("!up %s\n" % button)
    return fw.wait(ms)


def play(fw, moves, first="right"):
    """Start the game (White's button starts Black's clock) and make `moves` moves."""
    press(fw, first, 200)
    side = "left" if first == "right" else "right"
    for _ in range(moves):
        press(fw, side)
        side = "left" if side == "right" else "right"


class LogView:
    """One game's log as the hall collects it: slices appended when their offset is the
    length held, resends (a rec already held) counted and dropped, gaps counted."""

    def __init__(self):
        self.data = b""
        self.rec = 0
        self.duplicates = 0
        self.gaps = 0
        self.seen = 0

    def take(self, payload):
        head, _, body = payload.partition(b"\n")
        rec, off = (int(x) for x in head.split())
        self.seen += 1
        if rec <= self.rec:
            self.duplicates += 1
            assert self.data[off : off + len(body)] == body, "a resent slice differs"
            return
        if off != len(self.data) or rec != self.rec + 1:
            self.gaps += 1
            return
        self.data += body
        self.rec = rec


def collect(sub, name, game):
    """Every log/<game> slice of clock `name` the subscriber has, through a LogView."""
    view = LogView()
    topic = "goclock/v1/%s/%s/log/%d" % (HALL, name, game)
    for t, payload, _ in sub.messages[:]:
        if t == topic:
            view.take(payload)
    return view


def wait_log(sub, fw, game, timeout=30.0):
    """Until the hall holds the clock's whole log of `game`, byte for byte as `logs.get`
    serves it (what goclock logs pull reads): (the LogView, those bytes)."""
    want = pull_log(fw, game)
    found = []

    def whole(t, payload):
        view = collect(sub, fw.name, game)
        found[:] = [view]
        return view.data == want

    sub.wait(whole, timeout)
    return found[0], want


def cursor_file(flash_dir):
    """The hall cursor a stopped clock left in its flash (net/cursor.py), or None."""
    from support.firmware import flash_journal

    fs = flash_journal(flash_dir).pool.fs
    data = fs.read("hallcursor.json")
    return None if data is None else json.loads(data)["games"]


def passwords(folder, users):
    """A Mosquitto password file for {user: password} (mosquitto_passwd, Debian's)."""
    path = os.path.join(str(folder), "passwd")
    first = True
    for user, pw in users.items():
        args = ["mosquitto_passwd", "-b"] + (["-c"] if first else []) + [path, user, pw]
        subprocess.run(args, check=True, capture_output=True)
        first = False
    os.chmod(path, 0o644)
    return path
