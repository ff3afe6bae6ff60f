# ruff: noqa: F811  (fixtures imported from tests/support are parameters here)
"""The bridge's WebSocket endpoint: the web pages' line to the clock, and who may use it.

A WebSocket on the user's machine is open to every page the browser shows, so: a page of
another origin is refused, so is a missing or wrong token, and beyond loopback the
endpoint does not even start without a password (never logged). Real WebSocket clients
(the `websockets` library's), a real firmware behind the bridge, loopback only.
"""

import json
import logging
import os

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from goclock.bridge import BridgeError, runtime, start_bridge
from support.bridgeclock import clock, runtime_dir  # noqa: F401 (fixtures)

PAGE = "http://127.0.0.1:8123"  # the origin of the pages `goclock web` would serve


@pytest.fixture
def web(clock, runtime_dir):
    b = start_bridge(clock.link, web=True, origins=[PAGE, "http://localhost:8123"])
    b.wait_until(lambda s: s["line"] == "up")
    yield b
    b.stop()


def ask(ws, req):
    ws.send(json.dumps(req))
    while True:
        msg = json.loads(ws.recv(timeout=10))
        if "ok" in msg:
            return msg


def refused(url, **kw):
    with pytest.raises(InvalidStatus) as caught:
        connect(url, open_timeout=10, **kw).close()
    return caught.value.response.status_code


def test_the_page_it_served_talks_to_the_clock(web):
    assert web.web_url.startswith("ws://127.0.0.1:")
    with connect(web.web_url + "?token=" + web.token, origin=PAGE, open_timeout=10) as ws:
        assert ask(ws, {"id": 1, "cmd": "info"})["protocol"] == 3
        assert ask(ws, {"id": 2, "cmd": "watch", "on": True}) == {"id": 2, "ok": True, "on": True}
        # Several lines in one frame are several requests, answered in order.
        ws.send('{"id":3,"cmd":"status"}\n{"id":4,"cmd":"pause"}')
        replies = []
        while len(replies) < 2:
            msg = json.loads(ws.recv(timeout=10))
            if "ok" in msg:
                replies.append(msg)
        assert replies[0]["id"] == 3 and replies[0]["state"] == "idle"
        assert replies[1] == {"id": 4, "ok": False, "error": "no clock is running"}


def test_a_running_bridge_tells_its_web_address_to_its_user(web, clock, runtime_dir):
    from goclock.bridge import running

    info = running(clock.link)
    assert info["web_url"] == web.web_url and info["token"] == web.token
    assert info["needs_login"] is False
    for f in os.listdir(runtime_dir):  # the token's file: this user's alone
        if f.endswith(".json"):
            assert os.stat(os.path.join(runtime_dir, f)).st_mode & 0o077 == 0


def test_a_page_of_another_origin_is_refused(web):
    url = web.web_url + "?token=" + web.token
    assert refused(url, origin="http://evil.example") == 403
    assert refused(url, origin="http://127.0.0.1:9999") == 403  # another local page too
    assert refused(url, origin="null") == 403  # a sandboxed frame or a file:// page
    assert web.status()["peers"] == 0


def test_a_missing_or_wrong_token_is_refused(web):
    assert refused(web.web_url, origin=PAGE) == 403
    assert refused(web.web_url + "?token=", origin=PAGE) == 403
    assert refused(web.web_url + "?token=" + web.token[:-1] + "x", origin=PAGE) == 403
    assert refused(web.web_url + "?token=a&token=" + web.token, origin=PAGE) == 403


def test_a_program_without_an_origin_needs_the_token(web):
    with connect(web.web_url + "?token=" + web.token, open_timeout=10) as ws:
        assert ask(ws, {"id": 1, "cmd": "status"})["ok"] is True
    assert refused(web.web_url) == 403


def test_beyond_loopback_only_with_a_password(clock, runtime_dir, monkeypatch):
    # Tests name loopback only: the bridge is made to take 127.0.0.1 for an address beyond
    # it, so a regression of the check could never open a port on another interface.
    from goclock.bridge import websocket

    monkeypatch.setattr(websocket, "is_loopback", lambda host: False)
    with pytest.raises(BridgeError, match="only with a password"):
        start_bridge(clock.link, web=True, web_host="127.0.0.1", origins=[PAGE])
    monkeypatch.undo()
    # Refused before it listened or claimed anything: a bridge can start at once.
    assert runtime.lookup(clock.link) is None
    b = start_bridge(clock.link)
    b.stop()


def test_the_password_is_asked_and_never_logged(clock, runtime_dir, caplog):
    secret = "s3cret-hall-pass"
    caplog.set_level(logging.DEBUG, logger="goclock")
    b = start_bridge(clock.link, web=True, origins=[PAGE], password=secret)
    try:
        url = b.web_url + "?token=" + b.token
        with connect(url, origin=PAGE, open_timeout=10) as ws:
            ws.send(json.dumps({"id": 1, "cmd": "bridge.login", "password": "guess-1234"}))
            assert json.loads(ws.recv(timeout=10)) == {
                "id": 1,
                "ok": False,
                "error": "login refused",
            }
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=10)
            assert closed.value.rcvd.code == 1008
        with connect(url, origin=PAGE, open_timeout=10) as ws:  # a request before logging in
            ws.send(json.dumps({"id": 1, "cmd": "status"}))
            assert json.loads(ws.recv(timeout=10))["ok"] is False
        with connect(url, origin=PAGE, open_timeout=10) as ws:
            ws.send(json.dumps({"id": 1, "cmd": "bridge.login", "password": secret}))
            assert json.loads(ws.recv(timeout=10)) == {"id": 1, "ok": True, "login": True}
            assert ask(ws, {"id": 2, "cmd": "status"})["state"] == "idle"
    finally:
        b.stop()
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "login refused" in logged
    assert secret not in logged and "guess-1234" not in logged and b.token not in logged
