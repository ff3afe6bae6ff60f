"""Clocks in a hall, for tests: each the firmware under the MicroPython unix port (virtual
time) published by `goclock bridge --hall` through a real Mosquitto, and `goclock hall`'s
service (HallService) collecting them into a folder. Waits are on messages, bounded.
"""

import base64
import os

from goclock.bridge import start_bridge
from goclock.bridge.hall import HallOptions
from goclock.hall.service import HallService
from support.bridgeclock import PluggedClock, RawPeer, ok

HALL = "club-open"


class HallClock:
    """One table: a simulated clock, its bridge publishing it as `name`."""

    def __init__(self, folder, name, broker_port):
        self.name = name
        self.clock = PluggedClock(os.path.join(str(folder), name))
        opts = HallOptions(
            hall=HALL, clock=name, port=broker_port, state_dir=os.path.join(str(folder), name, "st")
        )
        self.bridge = start_bridge(self.clock.link, hall=opts)
        self.bridge.wait_until(lambda s: s["line"] == "up")

    @property
    def port(self):
        return self.clock.link

    def cli(self, capsys, *argv):
        return ok(capsys, "--port", self.port, *argv)

    def new_game(self, capsys, tc=("sd", "1h")):
        self.cli(capsys, "config", "set", *tc)
        self.cli(capsys, "reset", "--yes")
        self.cli(capsys, "press", "white")  # Black's clock starts

    def moves(self, capsys, n, first="black", gap_ms=2000):
        sides = ("black", "white") if first == "black" else ("white", "black")
        for i in range(n):
            self.clock.fw.wait(gap_ms)
            self.cli(capsys, "press", sides[i % 2])

    def end(self, capsys):
        """Pause (when a clock runs) and reset: the game's `end` record closes its log."""
        if self.status()["state"] == "running":
            self.cli(capsys, "pause")
        self.cli(capsys, "reset", "--yes")

    def status(self):
        peer = RawPeer(self.bridge)
        try:
            return peer.ask({"id": 1, "cmd": "status"})
        finally:
            peer.close()

    def pulled(self, game):
        return pulled(self.bridge, game)

    def stop(self):
        self.bridge.stop()
        self.clock.stop()


def hall_service(broker_port, folder, **kw):
    svc = HallService(HALL, str(folder), port=broker_port, **kw).start()
    svc.wait_connected()
    return svc


def collected(svc, clock, game, timeout=30.0):
    """Wait until the hall has the game whole (its `end` record); its GameLog."""
    svc.wait(
        lambda: (clock, game) in svc.collector.games and svc.collector.games[(clock, game)].ended,
        timeout,
        "%s game %d collected whole" % (clock, game),
    )
    return svc.collector.games[(clock, game)]


def pulled(bridge, game):
    """The game's log as `goclock logs pull` reads it (logs.get through the bridge)."""
    peer = RawPeer(bridge)
    data = b""
    try:
        while True:
            r = peer.ask({"id": 1, "cmd": "logs.get", "game": game, "offset": len(data)})
            data += base64.b64decode(r["data"])
            if r["eof"]:
                return data
    finally:
        peer.close()
