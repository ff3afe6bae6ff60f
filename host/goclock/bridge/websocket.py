"""The bridge's WebSocket endpoint for web pages: the protocol's lines as text frames.

A WebSocket on the user's machine can be opened by any page the browser shows, from any
site, so the endpoint takes a connection only when all of these hold:

- its `Origin` header is one of the allowed origins (the pages `goclock web` served; a
  page elsewhere, or a DNS name rebound to 127.0.0.1, carries its own origin and is
  refused with 403). A client that sends no Origin at all is no browser page (browsers
  always send it); it still needs the token;
- its URL carries this run's token (`?token=…`, 32 random bytes, new at every start;
  compared in constant time): a foreign page cannot read it from the served pages;
- when the endpoint listens beyond loopback (only when asked), the first frame is
  `{"cmd":"bridge.login","password":"…"}` with the password it was started with; a bridge
  refuses to listen beyond loopback without one. The password is never logged or echoed.

Refusals are logged without the token or the password. Frames may carry several lines;
each line is one request, as on the serial line. The library is `websockets` (PyPI,
BSD-3-Clause), not a hand-written WebSocket.
"""

import asyncio
import hmac
import ipaddress
import json
import logging
import secrets
import urllib.parse
from http import HTTPStatus

from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed

from .peers import QUEUE_BYTES, Peer

log = logging.getLogger("goclock.bridge")

# The library's own log, kept above DEBUG whatever the bridge's level: at DEBUG it prints
# every frame, and a login frame holds the password.
_library_log = logging.getLogger("goclock.bridge.websockets")
_library_log.setLevel(logging.INFO)

LOGIN_TIMEOUT_S = 10.0
MAX_FRAME = 64 * 1024


class WebConfigError(Exception):
    """The endpoint cannot start as asked (beyond loopback without a password)."""


def is_loopback(host):
    if host in ("localhost", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class WebPeer(Peer):
    kind = "websocket"

    def __init__(self, hub, name, ws, queue_bytes=QUEUE_BYTES):
        super().__init__(hub, name, queue_bytes)
        self.ws = ws

    async def write(self, text):
        await self.ws.send(text)

    def goodbye(self, last_line):
        loop = asyncio.get_running_loop()
        loop.create_task(self._close(last_line))

    async def _close(self, last_line):
        try:
            if last_line is not None:
                await asyncio.wait_for(self.ws.send(last_line), 5.0)
            await self.ws.close(1008 if last_line else 1000)
        except (ConnectionClosed, asyncio.TimeoutError, OSError):
            pass


class WebEndpoint:
    """The WebSocket server of one bridge."""

    def __init__(
        self,
        hub,
        host="127.0.0.1",
        port=0,
        origins=(),
        password=None,
        ssl=None,
        queue_bytes=QUEUE_BYTES,
    ):
        if not is_loopback(host) and not password:
            raise WebConfigError(
                "the WebSocket endpoint listens on %s, beyond this machine, only with a "
                "password (--web-password-file FILE or $GOCLOCK_BRIDGE_PASSWORD)" % host
            )
        self.hub = hub
        self.host = host
        self.port = port
        self.origins = list(origins)
        self.token = secrets.token_urlsafe(32)
        self._password = password
        self.ssl = ssl
        self.queue_bytes = queue_bytes
        self.server = None
        self.refused = 0

    @property
    def needs_login(self):
        return self._password is not None

    async def start(self):
        self.server = await serve(
            self._handle,
            self.host,
            self.port,
            process_request=self._check,
            max_size=MAX_FRAME,
            ssl=self.ssl,
            compression=None,
            logger=_library_log,
        )
        sock = self.server.sockets[0]
        self.port = sock.getsockname()[1]

    @property
    def url(self):
        """The endpoint's address, without the token."""
        scheme = "wss" if self.ssl else "ws"
        host = "[%s]" % self.host if ":" in self.host else self.host
        return "%s://%s:%d/" % (scheme, host, self.port)

    @property
    def url_with_token(self):
        return "%s?token=%s" % (self.url, self.token)

    def _refuse(self, connection, status, why):
        self.refused += 1
        peer = connection.remote_address
        log.warning("WebSocket from %s refused: %s", peer[0] if peer else "?", why)
        return connection.respond(status, why + "\n")

    def _check(self, connection, request):
        """The opening handshake: Origin and token (before any frame is read)."""
        origin = request.headers.get("Origin")
        if origin is not None and origin not in self.origins:
            return self._refuse(connection, HTTPStatus.FORBIDDEN, "origin not allowed")
        query = urllib.parse.urlsplit(request.path).query
        tokens = urllib.parse.parse_qs(query).get("token", [])
        if len(tokens) != 1 or not hmac.compare_digest(tokens[0].encode(), self.token.encode()):
            return self._refuse(connection, HTTPStatus.FORBIDDEN, "missing or wrong token")
        return None

    async def _handle(self, ws):
        addr = ws.remote_address
        name = "websocket %s:%s" % (addr[0], addr[1]) if addr else "websocket"
        if self.needs_login and not await self._login(ws):
            return
        peer = WebPeer(self.hub, name, ws, self.queue_bytes)
        peer.start()
        log.info("%s joined", name)
        try:
            async for message in ws:
                data = message.encode("utf-8") if isinstance(message, str) else bytes(message)
                peer.feed(data + b"\n")
        except ConnectionClosed:
            pass
        finally:
            peer.close()
            log.info("%s left", name)

    async def _login(self, ws):
        try:
            first = await asyncio.wait_for(ws.recv(), LOGIN_TIMEOUT_S)
            msg = json.loads(first)
        except (asyncio.TimeoutError, ValueError, ConnectionClosed, TypeError):
            msg = None
        given = msg.get("password") if isinstance(msg, dict) else None
        ok = (
            isinstance(msg, dict)
            and msg.get("cmd") == "bridge.login"
            and isinstance(given, str)
            and hmac.compare_digest(given.encode("utf-8"), self._password.encode("utf-8"))
        )
        rid = msg.get("id") if isinstance(msg, dict) else None
        try:
            if not ok:
                self.refused += 1
                log.warning("WebSocket login refused (no or wrong password)")
                await ws.send(json.dumps({"id": rid, "ok": False, "error": "login refused"}))
                await ws.close(1008, "login refused")
                return False
            await ws.send(json.dumps({"id": rid, "ok": True, "login": True}))
        except ConnectionClosed:
            return False
        return True

    async def stop(self):
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()
