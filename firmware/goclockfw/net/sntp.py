"""The time of day from an SNTP server (RFC 4330), asked only while no clock runs.

One request (48 bytes over UDP, a non-blocking socket), its answer looked for in the
passes that follow, up to WAIT_MS; then the clock's time of day (app/timeofday.py) is the
server's transmit time plus half the round trip. Asked at boot (once the link is up) and
again every RESYNC_MS while idle; a name is looked up only then (DNS blocks: no clock
runs). The values are big ints on MicroPython: this runs at idle, never in a running
clock's pass.
"""

import socket

from goclockfw.core.ticks import ticks_add, ticks_diff

WAIT_MS = 2000
RETRY_MS = 60000
RESYNC_MS = 6 * 3600 * 1000
NTP_TO_UNIX_S = 2208988800


class Sntp:
    def __init__(self, host, port):
        self.host = host
        self.port = port
        self.sock = None
        self.sent_at = 0
        self.next_at = 0
        self.synced = 0
        self.error = None

    def step(self, tod, now):
        """One look: send when due, read the answer when there. True when `tod` was set."""
        if self.sock is None:
            if ticks_diff(now, self.next_at) < 0:
                return False
            try:
                addr = socket.getaddrinfo(self.host, self.port, 0, socket.SOCK_DGRAM)[0][-1]
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                s.setblocking(False)
                req = bytearray(48)
                req[0] = 0x1B  # no leap warning, version 3, client
                s.sendto(req, addr)
            except OSError as e:
                self.error = "SNTP: %s" % (e,)
                self.next_at = ticks_add(now, RETRY_MS)
                return False
            self.sock = s
            self.sent_at = now
            return False
        try:
            b = self.sock.recv(64)  # a bytes object: this runs at idle only
        except OSError as e:
            if e.args[0] not in (11, 115):
                self._close(now, RETRY_MS)
                return False
            if ticks_diff(now, self.sent_at) > WAIT_MS:
                self._close(now, RETRY_MS)
            return False
        if len(b) < 48 or (b[0] & 7) not in (4, 5):  # a server's (or broadcast) answer
            self._close(now, RETRY_MS)
            return False
        secs = (b[40] << 24) | (b[41] << 16) | (b[42] << 8) | b[43]
        frac = (b[44] << 24) | (b[45] << 16) | (b[46] << 8) | b[47]
        rtt = ticks_diff(now, self.sent_at)
        utc = (secs - NTP_TO_UNIX_S) * 1000 + ((frac * 1000) >> 32) + rtt // 2
        tod.set(utc, now, "sntp")
        self.synced += 1
        self._close(now, RESYNC_MS)
        return True

    def _close(self, now, wait):
        try:
            self.sock.close()
        except OSError:
            pass
        self.sock = None
        self.next_at = ticks_add(now, wait)
