"""The running bridge: its event loop (in a thread of its own), the line, the servers.

`start_bridge` opens the port first (a missing or busy port is an error at once, with the
host tool's usual message), claims the port's names in the runtime folder (a second
bridge for the same port is refused), then serves the Unix socket and, when asked, the
WebSocket endpoint and the hall publisher. It returns once they listen and the clock has
answered `info` (or after `ready_timeout`, when it has not: the bridge keeps trying).
"""

import asyncio
import contextlib
import logging
import os
import threading

from ..errors import GoclockError
from . import runtime
from .hub import Hub
from .peers import QUEUE_BYTES, StreamPeer
from .serialline import SerialLine
from .websocket import WebConfigError, WebEndpoint

log = logging.getLogger("goclock.bridge")


class BridgeError(GoclockError):
    exit_code = 2


class Bridge:
    def __init__(
        self,
        port,
        web=False,
        web_host="127.0.0.1",
        web_port=0,
        origins=(),
        password=None,
        ssl=None,
        hall=None,
        queue_bytes=QUEUE_BYTES,
        opener=None,
    ):
        self.port = port
        self.queue_bytes = queue_bytes
        self._web_args = (web_host, web_port, tuple(origins), password, ssl) if web else None
        self._hall_options = hall
        self._opener = opener
        self.loop = asyncio.new_event_loop()
        self._thread = None
        self.hub = None
        self.line = None
        self.web = None
        self.hall = None
        self.socket_path = runtime.socket_path_for(port)
        self.registration = runtime.Registration(port, self.socket_path)
        self._server = None
        self._ready = threading.Event()
        self._change = threading.Condition()
        self._state = {}
        self._stopped = threading.Event()

    # ----- what `goclock web` uses ------------------------------------------------------

    @property
    def web_url(self):
        """The WebSocket endpoint's ws:// URL (without the token), or None."""
        return self.web.url if self.web else None

    @property
    def token(self):
        return self.web.token if self.web else None

    @property
    def needs_login(self):
        return bool(self.web and self.web.needs_login)

    def status(self):
        """The bridge's state, as its `bridge.status` command answers (thread-safe)."""
        fut = asyncio.run_coroutine_threadsafe(self._status(), self.loop)
        return fut.result(5)

    async def _status(self):
        return self._snapshot()

    def _snapshot(self):
        st = self.hub._local(None, "bridge.status", {}, None)
        del st["id"], st["ok"]
        return st

    def _note_change(self):
        snap = self._snapshot()
        with self._change:
            self._state = snap
            self._change.notify_all()

    def wait_until(self, predicate, timeout=10.0):
        """Block until `predicate(status)` holds (woken by each change of peers, watch or
        line, never by a timer); the status then. Raises TimeoutError after `timeout`."""
        with self._change:
            if not self._change.wait_for(lambda: predicate(self._state), timeout):
                raise TimeoutError("the bridge never got there; it is %r" % (self._state,))
            return dict(self._state)

    # ----- life --------------------------------------------------------------------------

    def start(self, ready_timeout=5.0):
        other = runtime.lookup(self.port)
        if other is not None:
            raise runtime.BridgeBusy(
                "a goclock bridge (pid %s) already owns %s: its commands and pages share it"
                % (other.get("pid"), self.port)
            )
        kwargs = {} if self._opener is None else {"opener": self._opener}
        self.line = SerialLine(self.port, self._on_line, self._on_up, self._on_down, **kwargs)
        self.line.open_once()  # the port's own error, now, if it cannot be opened
        try:
            self.registration.claim()
        except GoclockError:
            self.line.stop()
            raise
        self._thread = threading.Thread(target=self._run, name="bridge-loop", daemon=True)
        self._thread.start()
        try:
            asyncio.run_coroutine_threadsafe(self._setup(), self.loop).result(15)
        except BaseException:
            self.stop()
            raise
        self.line.start()
        self._ready.wait(ready_timeout)
        return self

    def _run(self):
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    async def _setup(self):
        self.hub = Hub(self.loop, self.port, self.line.send)
        self.hub.on_ready.append(self._ready.set)
        self.hub.on_change.append(self._note_change)
        self._note_change()
        self._server = await asyncio.start_unix_server(self._serve_socket, path=self.socket_path)
        os.chmod(self.socket_path, 0o600)
        if self._web_args:
            host, port, origins, password, ssl = self._web_args
            try:
                self.web = WebEndpoint(
                    self.hub, host, port, origins, password, ssl, self.queue_bytes
                )
            except WebConfigError as exc:
                raise BridgeError(str(exc)) from None
            await self.web.start()
            self.registration.publish(
                web_url=self.web.url, token=self.web.token, needs_login=self.web.needs_login
            )
        if self._hall_options is not None:
            from .hall import HallPublisher

            self.hall = HallPublisher(self.hub, self._hall_options)
            await self.hall.start()

    _peer_count = 0

    async def _serve_socket(self, reader, writer):
        Bridge._peer_count += 1
        peer = StreamPeer(
            self.hub, "client %d" % Bridge._peer_count, reader, writer, self.queue_bytes
        )
        await peer.serve()

    def _on_line(self, text):
        self.loop.call_soon_threadsafe(self.hub.line_text, text)

    def _on_up(self):
        self.loop.call_soon_threadsafe(self.hub.line_up)

    def _on_down(self, reason):
        self.loop.call_soon_threadsafe(self.hub.line_down, reason)
        self.loop.call_soon_threadsafe(self._reclaim)

    def _reclaim(self):
        """After a replug the port's path may resolve elsewhere: register that name too."""
        with contextlib.suppress(GoclockError, OSError):
            self.registration.claim(self.port)

    def wait(self, timeout=None):
        """Until the bridge stops (`stop()` from another thread, or a signal handler)."""
        return self._stopped.wait(timeout)

    def stop(self):
        if self._stopped.is_set():
            return
        if self.line is not None:
            self.line.stop()
        if self._thread is not None and self._thread.is_alive():
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(self._teardown(), self.loop).result(10)
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout=10)
        self.registration.release()
        with contextlib.suppress(OSError):
            os.unlink(self.socket_path)
        self._stopped.set()

    async def _teardown(self):
        if self.hall is not None:
            await self.hall.stop()
        if self.web is not None:
            await self.web.stop()
        if self._server is not None:
            self._server.close()
        for peer in list(self.hub.peers if self.hub else ()):
            peer.close()
        if self.hub is not None:
            self.hub.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def start_bridge(port, **options):
    """A running bridge for `port` (see Bridge for the options); stop it with .stop()."""
    return Bridge(port, **options).start()
