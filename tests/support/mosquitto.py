"""A real Mosquitto broker for tests: Debian's `mosquitto` (`make mqtt-tools` installs it),
started on a free loopback port with a config of the test's own, stopped afterwards.

It is ready when it says so on its log (running, its listener open), not after a sleep.
`Mosquitto.restart()` stops it and starts it again on the same port (a broker restart in
the middle of a game). Tests that need it are skipped, saying why, when it is not installed.
"""

import os
import select
import shutil
import socket
import subprocess
import threading
import time

import pytest

BINARY = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
LOG_KEPT = 256 * 1024  # bytes of the broker's log kept in `log`; the rest is read and dropped


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Mosquitto:
    """`websockets=True` adds a listener for MQTT over WebSockets (web pages) on `ws_port`.

    Mosquitto 2.0's WebSocket listener (libwebsockets) binds to an interface, not to an
    address: `listener PORT 127.0.0.1` would listen on every interface, so it is given
    `lo`, loopback. It cannot be the only listener either: the plain one stays first."""

    def __init__(self, folder, extra="", websockets=False):
        self.folder = str(folder)
        self.port = free_port()
        self.ws_port = free_port() if websockets else None
        self.conf = os.path.join(self.folder, "mosquitto.conf")
        if websockets:
            extra = "listener %d lo\nprotocol websockets\n%s" % (self.ws_port, extra)
        with open(self.conf, "w") as f:
            f.write(
                "listener %d 127.0.0.1\nallow_anonymous true\npersistence false\n"
                "log_dest stderr\nlog_type error\nlog_type warning\nlog_type notice\n"
                "log_type information\n%s" % (self.port, extra)
            )
        self.proc = None
        self.log = []
        self.start()

    def start(self, timeout=20.0):
        self.proc = subprocess.Popen(
            [BINARY, "-c", self.conf], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        # Said once every listener is open (the "Opening ... socket" line comes before).
        self._wait_for(b" running", timeout)

    def _wait_for(self, text, timeout):
        end = time.monotonic() + timeout
        buf = b""
        fd = self.proc.stderr.fileno()
        while text not in buf:
            left = end - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError("mosquitto did not start: %r" % buf[-500:])
            chunk = os.read(fd, 65536)
            if not chunk:
                raise RuntimeError("mosquitto stopped: %r" % buf[-500:])
            buf += chunk
        self.log.append(buf)
        # Drained from now on: a broker whose log pipe fills (a line or two per connection)
        # blocks on its next log line, and so stops serving every client.
        threading.Thread(target=self._drain, args=(self.proc.stderr,), daemon=True).start()

    def _drain(self, pipe):
        kept = 0
        try:
            for line in iter(pipe.readline, b""):
                if kept < LOG_KEPT:  # the first lines are kept for a failing test's message
                    self.log.append(line)
                    kept += len(line)
        except (OSError, ValueError):  # the pipe closed by stop()
            pass

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def restart(self):
        self.stop()
        self.start()


@pytest.fixture
def mosquitto(tmp_path):
    if not os.path.exists(BINARY):
        pytest.skip("Debian's mosquitto is not installed (make mqtt-tools installs it)")
    broker = Mosquitto(tmp_path)
    yield broker
    broker.stop()


@pytest.fixture
def mosquitto_ws(tmp_path):
    """A broker with a WebSocket listener too (`ws_port`), for the hall page."""
    if not os.path.exists(BINARY):
        pytest.skip("Debian's mosquitto is not installed (make mqtt-tools installs it)")
    broker = Mosquitto(tmp_path, websockets=True)
    yield broker
    broker.stop()
