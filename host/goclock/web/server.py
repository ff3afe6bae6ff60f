"""The web app over HTTP on loopback, and the bridge its pages reach the clock through.

What a page needs to reach the clock is `bridge.json`: the bridge's WebSocket address
with this run's token. The bridge takes a connection only from the origins of the pages
served here (http://127.0.0.1:N and http://localhost:N) and only with that token. A page
of another site cannot read bridge.json (the browser keeps other origins' responses from
it: no CORS header is ever sent), and a name of another site rebound to 127.0.0.1 (DNS
rebinding) arrives with its own Host header, which is refused here with 403.

The logs page's exports (POST /export: exports.py runs `goclock logs export`/`logs sgf` on
the log it sends) and the configurator's notation (POST /notation: tcnotation.py, the host
tool's own parser) need this run's API token from bridge.json in a header, which a page of
another site can neither read nor send without a preflight this server never answers.
"""

import base64
import binascii
import functools
import hmac
import http.server
import json
import os
import secrets
import threading

from ..errors import DeviceIOError, UsageError

WEB_DIST_ENV = "GOCLOCK_WEB_DIST"


class WebError(UsageError):
    """What the user must change: a built app, the simulated clock's flash folder."""


def default_dist():
    """The built app: $GOCLOCK_WEB_DIST, else web/dist of the checkout this package is in."""
    env = os.environ.get(WEB_DIST_ENV)
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", "..", "web", "dist"))


class _Handler(http.server.SimpleHTTPRequestHandler):
    # Set per server (functools.partial): the Host names it answers, and bridge.json.
    hosts = ()
    bridge_info = None
    api_token = ""

    def log_message(self, *args):
        pass

    def end_headers(self):
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()

    def _host_ok(self):
        return (self.headers.get("Host") or "") in self.hosts

    def _json(self, obj):
        body = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if not self._host_ok():
            self.send_error(403, "this server answers only as %s" % self.hosts[0])
            return
        if self.path.split("?", 1)[0] == "/bridge.json":
            self._json(self.bridge_info())
            return
        super().do_GET()

    def do_POST(self):
        from . import exports, tcnotation

        if not self._host_ok():
            self.send_error(403)
            return
        given = (self.headers.get("X-Goclock-Token") or "").encode("utf-8", "replace")
        if self.path not in ("/export", "/notation") or not hmac.compare_digest(
            given, self.api_token.encode()
        ):
            self.send_error(403)
            return
        try:
            n = int(self.headers.get("Content-Length") or "0")
            if not 0 < n <= exports.MAX_BYTES * 2:
                raise ValueError("size")
            req = json.loads(self.rfile.read(n))
            if self.path == "/notation":
                self._json(tcnotation.read(req["text"]))
                return
            log = base64.b64decode(req["log"], validate=True)
            sgf = base64.b64decode(req["sgf"], validate=True) if req.get("sgf") else None
            fmt = req["format"]
        except (ValueError, KeyError, TypeError, binascii.Error):
            self.send_error(400, "a JSON object: text, or format and log (base64)")
            return
        self._json(exports.export(fmt, log, sgf, bool(req.get("force"))))

    def do_HEAD(self):
        if not self._host_ok():
            self.send_error(403)
            return
        super().do_HEAD()


class Web:
    """The HTTP server, the bridge (when a clock is given) and the simulated clock (sim)."""

    def __init__(self, httpd, bridge, sim, port_name, reason, api_token):
        self.httpd = httpd
        self.bridge = bridge
        self.sim = sim
        self.port_name = port_name
        self.reason = reason  # why there is no clock, when there is none
        self.api_token = api_token
        host, port = httpd.server_address[:2]
        self.url = "http://%s:%d/" % (host, port)
        self._thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        self._thread.start()

    def info(self):
        """What bridge.json says: the WebSocket with its token, or why there is none, and
        the token of this server's own API (the exports)."""
        b = self.bridge
        if b is None:
            return {"url": None, "reason": self.reason, "api_token": self.api_token}
        if isinstance(b, dict):  # a bridge started elsewhere (goclock bridge --web)
            url, token, login = b.get("web_url"), b.get("token"), b.get("needs_login")
        else:
            url, token, login = b.web_url, b.token, b.needs_login
        return {
            "url": "%s?token=%s" % (url, token),
            "port": self.port_name,
            "needs_login": bool(login),
            "simulated": self.sim is not None,
            "api_token": self.api_token,
        }

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        if self.bridge is not None and not isinstance(self.bridge, dict):
            self.bridge.stop()
        if self.sim is not None:
            self.sim.stop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def _bridge_for(port, origins):
    """The bridge for `port`: a new one, or the one `goclock bridge --web` runs already."""
    from ..bridge import running, start_bridge

    other = running(port)
    if other is not None:
        if not other.get("web_url"):
            raise WebError(
                "a bridge without --web runs for %s (pid %s): stop it, or start it with "
                "--web --origin %s" % (port, other.get("pid"), origins[0])
            )
        return other
    return start_bridge(port, web=True, origins=origins)


def start_web(serial_port=None, host="127.0.0.1", port=0, dist=None, sim=False, sim_flash=None):
    """Serve the app at http://HOST:PORT/ (port 0: a free one) and bridge `serial_port`
    (or, with sim, a simulated clock's pty) to its pages. Returns a `Web`; `stop()` it."""
    dist = dist or default_dist()
    if not os.path.exists(os.path.join(dist, "index.html")):
        raise WebError(
            "no built web app in %s: build it with `make web-build` (or give "
            "$GOCLOCK_WEB_DIST)" % dist
        )
    state = {}
    api_token = secrets.token_urlsafe(32)

    class Handler(_Handler):
        bridge_info = staticmethod(lambda: state["web"].info())

    Handler.api_token = api_token

    try:
        httpd = http.server.ThreadingHTTPServer(
            (host, port), functools.partial(Handler, directory=dist)
        )
    except OSError as exc:
        raise DeviceIOError(
            "cannot listen on %s:%d: %s (another program has that port? try --port 0)"
            % (host, port, exc.strerror or exc)
        ) from None
    httpd.daemon_threads = True
    n = httpd.server_address[1]
    Handler.hosts = ("%s:%d" % (host, n), "localhost:%d" % n, "127.0.0.1:%d" % n)
    origins = ["http://127.0.0.1:%d" % n, "http://localhost:%d" % n]
    simclock = bridge = None
    reason = "goclock web was started without a clock (give --port PATH or --sim)"
    try:
        if sim:
            from ..unixport import FlashBusy
            from .simclock import SimulatedClock

            try:
                simclock = SimulatedClock(sim_flash)
            except FlashBusy as exc:
                raise WebError(str(exc)) from None
            serial_port = simclock.port
        if serial_port:
            bridge = _bridge_for(serial_port, origins)
    except BaseException:
        httpd.server_close()
        if simclock is not None:
            simclock.stop()
        raise
    state["web"] = web = Web(httpd, bridge, simclock, serial_port, reason, api_token)
    return web
