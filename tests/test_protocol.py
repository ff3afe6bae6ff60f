"""The serial protocol handler (protocol/commands.py) against the real session, in virtual time."""

import base64
import json

import pytest

from goclockfw.protocol.commands import MAX_LINE, Protocol
from goclockfw.storage import logline
from protocol_support import make_device, snapshot


@pytest.fixture
def dev(tmp_path):
    return make_device(tmp_path)


def ask(proto, **req):
    return json.loads(proto.handle_line(json.dumps(req).encode() + b"\n"))


def ok(proto, **req):
    r = ask(proto, **req)
    assert r["ok"] is True, r
    assert r["id"] == req.get("id")
    return r


def refused(proto, app, **req):
    before = snapshot(app)
    r = ask(proto, **req)
    assert r["ok"] is False, r
    assert isinstance(r["error"], str) and r["error"]
    assert snapshot(app) == before
    return r["error"]


def test_info_and_status(dev):
    app, proto, _ = dev
    r = ok(proto, id=1, cmd="info")
    assert r["protocol"] == 3 and r["board"] == "test" and r["flash_free"] > 0
    assert "battery_mv" in r and r["battery_mv"] is None
    st = ok(proto, id="s", cmd="status")
    assert st["state"] == "idle" and st["turn"] is None and st["moves"] == 0
    assert st["black"] == {"main_ms": 6900000, "flagged": False, "periods": 5, "period_ms": 60000}
    assert st["game"] == app.journal.current


def test_a_game_over_the_line(dev):
    app, proto, _ = dev
    assert ok(proto, id=1, cmd="press", side="white") == {"id": 1, "ok": True, "accepted": True}
    app.now = 65000
    r = ok(proto, id=2, cmd="press", side="white")
    assert r["accepted"] is False and r["reason"] == "it is not this side's move"
    assert ok(proto, id=3, cmd="press", side="black")["accepted"] is True
    app.now = 70000
    st = ok(proto, id=4, cmd="status")
    assert st["state"] == "running" and st["turn"] == "white" and st["moves"] == 1
    assert st["black"]["main_ms"] == 6900000 - 65000
    assert st["white"]["main_ms"] == 6900000 - 5000
    assert ok(proto, id=5, cmd="pause")["state"] == "paused"
    err = refused(proto, app, id=6, cmd="pause")
    assert err == "no clock is running"
    r = ok(proto, id=7, cmd="time.set", side="white", main=100)
    assert r == {
        "id": 7,
        "ok": True,
        "main_ms": 100000,
        "flagged": False,
        "periods": 5,
        "period_ms": 60000,
    }
    assert ok(proto, id=8, cmd="resume")["state"] == "running"
    refused(proto, app, id=9, cmd="time.set", side="white", main=50)
    # the log holds the whole game, and verifies
    data = app.journal.read(app.journal.current, 0, 100000)[0]
    result = logline.verify_bytes(data)
    assert result["ok"], result["errors"]
    kinds = [r["event"] for r in result["records"]]
    assert kinds == ["game", "start", "ignored", "press", "pause", "adjust", "resume"]
    adjust = result["records"][5]
    assert adjust["given"] == "main_ms" and adjust["main_ms"] == 100000  # what replay sets


def test_config_set_is_validated_and_refused_while_running(dev):
    app, proto, _ = dev
    r = ok(proto, id=1, cmd="config.set", config={"volume": 3})
    assert r["config"]["volume"] == 3 and r["config"]["voice"] == "zh"
    assert ok(proto, id=2, cmd="config.get")["config"]["volume"] == 3
    err = refused(proto, app, id=3, cmd="config.set", config={"volume": 11})
    assert "volume" in err
    err = refused(
        proto,
        app,
        id=4,
        cmd="config.set",
        config={"time_control": {"type": "byoyomi", "main": -1, "periods": 0}},
    )
    assert err.startswith("time_control.main")
    err = refused(proto, app, id=5, cmd="config.set", config={"colour": "red"})
    assert "colour" in err
    refused(proto, app, id=6, cmd="config.set", config=[1])
    ok(proto, id=7, cmd="press", side="white")
    err = refused(proto, app, id=8, cmd="config.set", config={"volume": 2})
    assert "running" in err
    # stored: a new store over the same files reads it back
    app.store.load()
    assert app.store.config["volume"] == 3 and app.store.warning is None


def test_presets_and_reset(dev):
    app, proto, _ = dev
    presets = ok(proto, id=1, cmd="presets.get")["presets"]
    assert 1 <= len(presets) <= 10
    mine = [{"name": "blitz", "time_control": {"type": "fischer", "main": 180, "increment": 2}}]
    r = ok(proto, id=2, cmd="presets.set", presets=mine)
    assert r["presets"][0]["name"] == "blitz"
    assert r["presets"][0]["time_control"]["increment"] == 2
    refused(proto, app, id=3, cmd="presets.set", presets=[{"name": "x"}] * 11)
    err = refused(proto, app, id=4, cmd="presets.set", presets=[{"name": "", "time_control": {}}])
    assert "presets[0].name" in err
    refused(proto, app, id=5, cmd="reset", preset=2)
    refused(proto, app, id=5, cmd="reset", preset=0)  # numbered from 1
    old_game = app.journal.current
    r = ok(proto, id=6, cmd="reset", preset=1)
    assert r["state"] == "idle" and r["time_control"]["type"] == "fischer"
    assert app.journal.current == old_game
    ok(proto, id=7, cmd="press", side="white")  # started: now a reset ends it
    assert "pause" in refused(proto, app, id=8, cmd="reset")
    ok(proto, id=9, cmd="pause")
    r = ok(proto, id=10, cmd="reset")
    assert r["time_control"]["type"] == "byoyomi" and app.journal.current == old_game + 1
    listed = ok(proto, id=11, cmd="logs.list")["logs"]
    assert [g["game"] for g in listed] == [old_game]  # the new game has no log until it starts
    assert listed[0]["records"] == 4  # "game", "start", "pause" and "end"


def test_logs_get_is_chunked_and_resumable(dev):
    app, proto, _ = dev
    ok(proto, id=1, cmd="press", side="white")
    for i in range(40):
        app.now += 1000
        ok(proto, id=2, cmd="press", side="black" if i % 2 == 0 else "white")
    game = app.journal.current
    got = b""
    offset = 0
    while True:
        r = ok(proto, id=3, cmd="logs.get", game=game, offset=offset)
        chunk = base64.b64decode(r["data"])
        assert len(chunk) <= 512 and r["offset"] == offset
        got += chunk
        offset += len(chunk)
        if r["eof"]:
            break
    assert len(got) == r["size"] > 1024
    assert logline.verify_bytes(got)["ok"]
    r = ok(proto, id=4, cmd="logs.get", game=game, offset=10, length=7)
    assert base64.b64decode(r["data"]) == got[10:17] and r["eof"] is False
    r = ok(proto, id=5, cmd="logs.get", game=game, offset=len(got))
    assert r["data"] == "" and r["eof"] is True
    assert "no game" in refused(proto, app, id=6, cmd="logs.get", game=999)
    refused(proto, app, id=7, cmd="logs.get", game=game, length=513)
    refused(proto, app, id=8, cmd="logs.get", game=game, offset=-1)
    refused(proto, app, id=9, cmd="logs.get")


def test_logs_clear_keeps_the_running_game(dev):
    app, proto, _ = dev
    first = app.journal.current
    for _ in range(2):  # two games played a little and reset
        ok(proto, id=1, cmd="press", side="white")
        ok(proto, id=1, cmd="pause")
        ok(proto, id=2, cmd="reset")
    ok(proto, id=1, cmd="press", side="white")
    now = app.journal.current
    assert "kept" in refused(proto, app, id=3, cmd="logs.clear", game=now)
    assert ok(proto, id=4, cmd="logs.clear", game=first)["removed"] == 1
    assert ok(proto, id=5, cmd="logs.clear")["removed"] == 1
    assert [g["game"] for g in ok(proto, id=6, cmd="logs.list")["logs"]] == [now]
    # ids are never reused, even after everything was cleared
    ok(proto, id=7, cmd="pause")
    ok(proto, id=7, cmd="reset")
    assert app.journal.current == now + 1


def test_watch_pushes_events(dev):
    app, proto, sent = dev
    ok(proto, id=1, cmd="press", side="white")
    assert sent == []
    assert ok(proto, id=2, cmd="watch", on=True)["on"] is True
    app.now = 5000
    ok(proto, id=3, cmd="press", side="black")
    assert [json.loads(s) for s in sent] == [
        {
            "event": "press",
            "t": 5000,
            "side": "black",
            "used_ms": 5000,
            "move": 1,
            "main_ms": 6895000,
            "flagged": False,
            "periods": 5,
            "period_ms": 60000,
        }
    ]
    proto.event("log", {"message": "low battery"})
    assert json.loads(sent[-1]) == {"event": "log", "message": "low battery"}
    ok(proto, id=4, cmd="watch", on=False)
    app.now = 9000
    ok(proto, id=5, cmd="press", side="white")
    assert len(sent) == 2
    refused(proto, app, id=6, cmd="watch", on="yes")


@pytest.mark.parametrize(
    "line, message",
    [
        (b"not json\n", "bad JSON"),
        (b"[1, 2]\n", "a request must be a JSON object"),
        (b'{"id": 1}\n', "missing 'cmd'"),
        (b'{"id": 1, "cmd": "launch"}\n', "unknown command 'launch'"),
        (b'{"id": 1.5, "cmd": "info"}\n', "'id' must be an integer or a string"),
        (b'{"id": 1, "cmd": "press", "side": "red"}\n', '\'side\' must be "black" or "white"'),
        (b'{"id": 1, "cmd": "press"}\n', '\'side\' must be "black" or "white"'),
        (b'{"id": 1, "cmd": "reset", "preset": true}\n', "'preset' must be an integer"),
        (b'{"id": 1, "cmd": "time.set", "side": "black"}\n', "give at least one of"),
        (
            b'{"id": 1, "cmd": "time.set", "side": "black", "main": "5"}\n',
            "'main' must be a number",
        ),
        (
            b'{"id": 1, "cmd": "time.set", "side": "black", "main": 1e999}\n',
            "bad JSON: number out of range",
        ),
        (b'{"id": 1, "cmd": "config.set", "config": 5}\n', "'config' must be an object"),
        (b"\xff\xfe\n", "bad JSON"),
    ],
)
def test_bad_requests_get_clear_errors(dev, line, message):
    app, proto, _ = dev
    before = snapshot(app)
    r = json.loads(proto.handle_line(line))
    assert r["ok"] is False and r["error"].startswith(message), r
    assert snapshot(app) == before


def test_line_length_limit(dev):
    app, proto, _ = dev
    pad = MAX_LINE - len(b'{"id":1,"cmd":"info","x":""}\n')
    line = b'{"id":1,"cmd":"info","x":"' + b"a" * pad + b'"}\n'
    assert len(line) == MAX_LINE
    assert json.loads(proto.handle_line(line))["ok"] is True
    long = line[:-3] + b'a"}\n'
    r = json.loads(proto.handle_line(long))
    assert r == {"id": None, "ok": False, "error": "request line over 1024 bytes"}
    # the same through the byte stream: the long line is never buffered whole
    replies = proto.feed(line + long + b"x" * 5000 + b"\n" + b'{"id":2,"cmd":"status"}\n')
    assert [json.loads(r)["ok"] for r in replies] == [True, False, False, True]
    assert json.loads(replies[-1])["id"] == 2


def test_feed_assembles_lines_split_anywhere(dev):
    app, proto, _ = dev
    stream = b'{"id":1,"cmd":"info"}\r\n\n{"id":2,"cmd":"status"}\r{"id":3,"cmd":"nope"}\n'
    for cut in range(len(stream)):
        replies = proto.feed(stream[:cut]) + proto.feed(stream[cut:])
        assert [json.loads(r)["id"] for r in replies] == [1, 2, 3]


class Broken:
    """An app whose every method fails in an unexpected way."""

    def __getattr__(self, name):
        def fail(*args):
            raise KeyError(name)

        return fail


def test_no_exception_escapes():
    proto = Protocol(Broken())
    for cmd in ("info", "status", "config.get", "pause", "reset", "press", "logs.list"):
        r = json.loads(proto.handle_line(json.dumps({"id": 1, "cmd": cmd, "side": "black"})))
        assert r["ok"] is False and r["error"].startswith("internal error"), r


# The usual press, as the host tools send it, takes a short way past the request's dict
# (jsontext.press_line, one viper call); the same request in another order or form goes
# the long way. Both must answer and act alike, refusals and errors included.
QUICK_CASES = [
    ("black", 0),  # idle: White's button starts the game, Black's is refused
    ("white", 0),
    ("black", 30000),
    ("black", 31000),  # not Black's turn now: refused
    ("white", 45000),
]


def test_the_usual_press_answers_and_acts_as_any_other_form_of_it():
    from protocol_support import set_time

    quick, _, _ = make_device()
    slow, _, _ = make_device()
    taken = []
    quick_request = quick.protocol._request
    quick.protocol._request = lambda *a: taken.append(a) or quick_request(*a)
    for i, (side, ms) in enumerate(QUICK_CASES):
        set_time(quick, ms)
        set_time(slow, ms)
        a = quick.protocol.handle_line(b'{"id":%d,"cmd":"press","side":"%s"}' % (i, side.encode()))
        b = slow.protocol.handle_line(b'{"cmd":"press","side":"%s","id":%d}' % (side.encode(), i))
        assert a == b, (side, ms)
        assert snapshot(quick) == snapshot(slow)
    assert taken == []  # every usual press took the short way
    assert json.loads(a)["accepted"] is True
    # Anything else is read as any request is: a string id, another side, an extra member.
    for line in (
        b'{"id":"x","cmd":"press","side":"black"}',
        b'{"id":1,"cmd":"press","side":"red"}',
        b'{"id":1,"cmd":"press","side":"black","x":1}',
        b'{"id":1,"cmd":"pause","side":"black"}',
    ):
        taken.clear()
        assert quick.protocol.handle_line(line) == slow.protocol.handle_line(line)
        assert len(taken) == 1, line
    assert snapshot(quick) == snapshot(slow)
