"""The host tool's side of a running bridge: a transport like the serial one, over the
bridge's Unix socket.

`discovery.connect` picks it by itself when a bridge owns the port (runtime.lookup), so
every command works the same with or without one. The bridge speaks the serial protocol's
lines unchanged; it marks the replies it makes itself when the clock's line is down
(`"bridge": "offline"`), and those become the TransportError a pulled cable gives.
"""

import json
import socket
import time

from ..errors import TransportError
from ..link.transport import LineTransport


class BridgeTransport(LineTransport):
    """Lines to and from a bridge; `url` names the clock's port, as SerialTransport's does."""

    too_long = "the bridge for %s sent a line longer than %d bytes"

    def __init__(self, info, clock=time.monotonic):
        super().__init__(info["port"], clock)
        self.bridge_pid = info.get("pid")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.sock.connect(info["socket"])
        except OSError as exc:
            self.sock.close()
            raise TransportError(
                "the goclock bridge for %s (pid %s) does not answer: %s"
                % (self.url, self.bridge_pid, exc.strerror or exc)
            ) from None

    def _close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def write_line(self, text):
        try:
            self.sock.sendall(text.encode("utf-8") + b"\n")
        except OSError as exc:
            raise TransportError(
                "lost the goclock bridge for %s: %s" % (self.url, exc.strerror or exc)
            ) from None

    def _fill(self, left):
        self.sock.settimeout(left)
        try:
            chunk = self.sock.recv(65536)
        except socket.timeout:
            return
        except OSError as exc:
            raise TransportError(
                "lost the goclock bridge for %s: %s" % (self.url, exc.strerror or exc)
            ) from None
        if not chunk:
            raise TransportError("the goclock bridge for %s closed the line" % self.url)
        self._buf += chunk

    def _arrived(self, text):
        self._check_offline(text)
        return text

    def _check_offline(self, text):
        """A reply the bridge made because the clock's line is down: a lost line here."""
        if '"bridge"' not in text:
            return
        try:
            msg = json.loads(text)
        except ValueError:
            return
        if isinstance(msg, dict) and msg.get("bridge") == "offline" and "ok" in msg:
            raise TransportError(msg.get("error") or "the clock's line is down")

    def discard_input(self):
        self._buf.clear()
