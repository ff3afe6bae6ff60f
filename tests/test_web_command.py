"""`goclock web` without a browser: what it serves, to whom, and its errors (the pages
themselves are tested in chromium: tests/web)."""

import http.client
import json

import pytest

from goclock.web import WebError, start_web
from support.bridgeclock import runtime_dir  # noqa: F401 (a fixture)
from support.cli import run


def get(url_port, path, host=None):
    conn = http.client.HTTPConnection("127.0.0.1", url_port, timeout=10)
    conn.request("GET", path, headers={"Host": host or "127.0.0.1:%d" % url_port})
    r = conn.getresponse()
    body = r.read()
    conn.close()
    return r.status, r.getheader("Content-Type"), body


@pytest.fixture
def dist(tmp_path):
    d = tmp_path / "dist"
    d.mkdir()
    (d / "index.html").write_text("<!doctype html><title>goclock</title>")
    (d / "bridge.json").write_text('{"url": null, "reason": "static"}')
    return str(d)


def test_the_pages_alone_say_why_there_is_no_clock(dist):
    with start_web(None, port=0, dist=dist) as web:
        port = int(web.url.rsplit(":", 1)[1].strip("/"))
        assert web.url == "http://127.0.0.1:%d/" % port
        status, _, body = get(port, "/index.html")
        assert status == 200 and b"goclock" in body
        status, kind, body = get(port, "/bridge.json")  # answered by the server, not the file
        assert status == 200 and kind == "application/json"
        info = json.loads(body)
        assert info["url"] is None and "--port PATH or --sim" in info["reason"]


def test_another_host_name_is_refused_dns_rebinding(dist):
    with start_web(None, port=0, dist=dist) as web:
        port = int(web.url.rsplit(":", 1)[1].strip("/"))
        assert get(port, "/bridge.json", host="localhost:%d" % port)[0] == 200
        assert get(port, "/bridge.json", host="evil.example:%d" % port)[0] == 403
        assert get(port, "/index.html", host="evil.example")[0] == 403


def test_without_a_built_app_it_says_how_to_build_it(tmp_path):
    with pytest.raises(WebError, match="make web-build"):
        start_web(None, port=0, dist=str(tmp_path))


def test_the_command_refuses_a_bad_port(capsys):
    rc, _, err = run(capsys, "web", "--port", "70000")
    assert rc == 2 and "from 0 to 65535" in err


def test_a_web_port_in_use_and_a_missing_clock_have_their_statuses(
    dist,
    tmp_path,
    capsys,
    runtime_dir,  # noqa: F811
):
    with start_web(None, port=0, dist=dist) as web:
        port = web.url.rsplit(":", 1)[1].strip("/")
        rc, _, err = run(capsys, "web", "--port", port, "--dist", dist)
        assert rc == 1 and "cannot listen on 127.0.0.1:%s" % port in err
    missing = str(tmp_path / "ttyNONE")
    rc, _, err = run(capsys, "--port", missing, "web", "--port", "0", "--dist", dist)
    assert rc == 3 and err.count("\n") == 1, err


def post(port, body, token=None, host=None, path="/export"):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Host": host or "127.0.0.1:%d" % port, "Content-Type": "application/json"}
    if token is not None:
        headers["X-Goclock-Token"] = token
    conn.request("POST", path, body=json.dumps(body), headers=headers)
    r = conn.getresponse()
    out = r.status, r.read()
    conn.close()
    return out


def test_the_exports_are_goclocks_own_and_need_the_runs_token(dist, tmp_path, capsys):
    import base64

    from test_host_logs_rulings import BYO, RULED, play

    log = play(tmp_path / "flash", BYO, RULED)
    (tmp_path / "game.log").write_bytes(log)
    rc, _, err = run(
        capsys,
        "logs",
        "export",
        str(tmp_path / "game.log"),
        "--format",
        "csv",
        "-o",
        str(tmp_path / "want.csv"),
    )
    assert rc == 0, err
    body = {"format": "csv", "log": base64.b64encode(log).decode()}
    with start_web(None, port=0, dist=dist) as web:
        port = int(web.url.rsplit(":", 1)[1].strip("/"))
        token = web.info()["api_token"]
        assert post(port, body)[0] == 403  # no token: a page of another site
        assert post(port, body, token="x" + token)[0] == 403
        assert post(port, body, token=token, host="evil.example:%d" % port)[0] == 403
        assert post(port, dict(body, log="not base64!"), token=token)[0] == 400
        status, answer = post(port, body, token=token)
        assert status == 200
        got = json.loads(answer)
        assert got["ok"] and base64.b64decode(got["data"]) == (tmp_path / "want.csv").read_bytes()
        status, answer = post(port, dict(body, format="pdf"), token=token)
        assert json.loads(answer) == {
            "ok": False,
            "error": "no such export: 'pdf' (json, csv, sgf)",
        }


def test_the_configurators_notation_is_read_by_goclocks_own_parser(dist, capsys):
    from goclock.timecontrol import notation

    with start_web(None, port=0, dist=dist) as web:
        port = int(web.url.rsplit(":", 1)[1].strip("/"))
        token = web.info()["api_token"]

        def read(text, **kw):
            status, answer = post(port, {"text": text}, path="/notation", **kw)
            return status, (json.loads(answer) if status == 200 else None)

        assert read("byo 30m+3x30s")[0] == 403  # no token
        assert read("byo 30m+3x30s", token=token, host="evil.example:%d" % port)[0] == 403
        status, got = read("byo 30m+3x30s", token=token)
        assert status == 200 and got["ok"]
        assert got["time_control"] == notation.parse("byo 30m+3x30s")
        assert got["text"] == notation.format(got["time_control"])
        # The same words as goclock config set, suggestion and all.
        status, got = read("fisher 5m+10s", token=token)
        assert got == {"ok": False, "error": str(_refusal("fisher 5m+10s"))}
        assert "did you mean fischer" in got["error"]
        assert read("x" * 201, token=token)[1]["ok"] is False
        assert read(5, token=token)[1] == {"ok": False, "error": "no time control given"}
        assert post(port, {"txt": "byo"}, token=token, path="/notation")[0] == 400


def _refusal(text):
    from goclock.errors import NotationError
    from goclock.timecontrol import notation

    try:
        notation.parse(text)
    except NotationError as exc:
        return exc
    raise AssertionError("%r was read" % text)
