"""`goclock web` in front of a simulated clock, and a Web Serial test double, for the pages.

The clock is the firmware under the MicroPython unix port (support/firmware.py) in virtual
time: it moves only when a test says `fw.wait(ms)`, so what the pages show is exact.
`goclock web` (goclock.web.start_web, the command's own code) serves the built app and
bridges the clock's pty to the pages through the bridge's WebSocket.

The Web Serial double replaces `navigator.serial` in the page (an init script): its port's
streams carry raw bytes over a WebSocket to a relay here that writes them to the clock's
pty and sends back what the clock writes, so the page's Web Serial code talks to the same
firmware, byte for byte, as it would over USB.
"""

import os
import select
import threading

import pytest

from goclock.web import start_web
from support.bridgeclock import runtime_dir  # noqa: F401 (a fixture, for the tests)
from support.firmware import boot

DIST = os.environ.get("GOCLOCK_WEB_DIST") or os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "web", "dist"
)


@pytest.fixture
def fw(tmp_path):
    f = boot(tmp_path / "flash")
    yield f
    f.stop()


@pytest.fixture
def web(fw, runtime_dir):  # noqa: F811 (the fixture imported above)
    w = start_web(fw.port, port=0, dist=DIST)
    w.bridge.wait_until(lambda s: s["line"] == "up", timeout=20)
    yield w
    w.stop()


def connect_page(context, url, how="bridge"):
    """A page of the app connected to the clock (its Connect button `how`), watching."""
    page = context.new_page()
    page.goto(url)
    page.click("#connect-" + how)
    page.wait_for_selector("body[data-ready]", timeout=60_000)
    return page


SERIAL_DOUBLE = """
(() => {
  const relay = %r;
  class Port {
    async open() {
      const ws = new WebSocket(relay);
      ws.binaryType = "arraybuffer";
      await new Promise((ok, bad) => { ws.onopen = ok; ws.onerror = () => bad(new Error("relay")); });
      this.ws = ws;
      this.readable = new ReadableStream({
        start(c) {
          ws.onmessage = (e) => c.enqueue(new Uint8Array(e.data));
          ws.onclose = () => { try { c.close(); } catch {} };
        },
      });
      this.writable = new WritableStream({ write: (chunk) => ws.send(chunk) });
      window.__serialOpened = (window.__serialOpened || 0) + 1;
    }
    async close() { this.ws.close(); }
    getInfo() { return { usbVendorId: 0x2e8a, usbProductId: 0x0005 }; }
  }
  const serial = {
    requestPort: async () => new Port(),
    getPorts: async () => [],
    addEventListener() {},
    removeEventListener() {},
  };
  Object.defineProperty(Navigator.prototype, "serial", { get: () => serial, configurable: true });
})();
"""

NO_SERIAL = "delete Navigator.prototype.serial;"


class SerialRelay:
    """Raw bytes between a WebSocket and the clock's pty (the Web Serial double's far end)."""

    def __init__(self, fw):
        from websockets.sync.server import serve

        self.fw = fw
        self.server = serve(self._handle, "127.0.0.1", 0)
        self.url = "ws://127.0.0.1:%d/" % self.server.socket.getsockname()[1]
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def _handle(self, ws):
        from websockets.exceptions import ConnectionClosed

        stop = threading.Event()

        def pump():  # the clock's bytes to the page
            while not stop.is_set():
                if not select.select([self.fw.slave], [], [], 0.1)[0]:
                    continue
                try:
                    data = os.read(self.fw.slave, 4096)
                    if data:
                        ws.send(data)
                except (OSError, ConnectionClosed):
                    return

        t = threading.Thread(target=pump, daemon=True)
        t.start()
        try:
            for msg in ws:
                data = msg if isinstance(msg, bytes) else msg.encode()
                while data:
                    n = os.write(self.fw.slave, data)
                    data = data[n:]
        except ConnectionClosed:
            pass
        finally:
            stop.set()
            t.join(2)

    def stop(self):
        self.server.shutdown()
