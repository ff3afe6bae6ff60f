"""The link on a board with a radio (Pico W, ESP32): Wi-Fi joined in the background.

`network.WLAN(STA_IF)`: `connect()` only starts the join and returns; the link is up once
`isconnected()` says so. `up(now)` is asked by the MQTT client each step while it wants to
connect, so it only reads the status, at most every POLL_MS, and starts the join again
after JOIN_MS without success. Nothing here waits. The sockets are SockLink's (lwIP's
non-blocking sockets on both chips).

Only modelled on this project's test bench (docs/hall.md: no radio in the emulated Pico
and none on the desktop): the calls are the documented ones of MicroPython's `network`
module, type-checked against the port stubs (make typecheck).
"""

from goclockfw.core.ticks import ticks_diff
from goclockfw.net.socklink import SockLink

POLL_MS = 500
JOIN_MS = 20000


class WlanLink(SockLink):
    def __init__(self, network, wifi):
        SockLink.__init__(self)
        self._network = network
        self._wifi = wifi  # {"ssid", "password"} or None (no Wi-Fi configured)
        self._wlan = None
        self._joined_at = None
        self._polled_at = 0
        self._up = False

    def up(self, now):
        if self._up and ticks_diff(now, self._polled_at) < POLL_MS:
            return True
        if self._wifi is None:
            return False
        if self._wlan is None:
            self._wlan = self._network.WLAN(self._network.STA_IF)
            self._wlan.active(True)
        if not self._up and self._polled_at and ticks_diff(now, self._polled_at) < POLL_MS:
            return False
        self._polled_at = now
        w = self._wlan
        self._up = w.isconnected()
        if not self._up and (self._joined_at is None or ticks_diff(now, self._joined_at) > JOIN_MS):
            self._joined_at = now
            w.connect(self._wifi["ssid"], self._wifi["password"] or "")
        return self._up
