"""A client that dies mid-line must not spoil the next one's first request.

The host opens every connection with a bare newline: a half line left in the clock's reader
is ended there and answered with a null-id error, which the host skips as stale, as it skips
replies whose id it did not send. The firmware's side: an empty line gets no reply, a half
line one error reply that is valid UTF-8 JSON whatever bytes it held.
"""

import json

import pytest

from goclock.cli import main
from goclock.errors import DeviceError
from goclock.link.client import Client
from goclock.link.transport import SerialTransport
from protocol_support import make_device
from support.scripted import Script


def die_mid_line(line, half):
    """A client that wrote `half` a request and went away."""
    t = SerialTransport(line.path)
    t.serial.write(half)
    t.serial.flush()
    t.close()


def test_the_next_client_gets_its_answer(line, capsys):
    die_mid_line(line, b'{"id":7,"cmd":"pre')
    rc = main(["--port", line.path, "--json", "status"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert json.loads(out)["state"] == "idle"
    # what the clock saw: the half line ended by our newline, then our request, whole
    assert line.lines[0] == b'{"id":7,"cmd":"pre'
    assert json.loads(line.lines[1])["cmd"] == "info"
    # and what it answered: the half line refused with a null id (skipped as stale), then ours
    assert line.sent[0]["id"] is None and line.sent[0]["error"].startswith("bad JSON")
    assert line.sent[1]["id"] == json.loads(line.lines[1])["id"] and line.sent[1]["ok"]


def test_a_bare_newline_first(line):
    t = SerialTransport(line.path)
    try:
        client = Client(t, timeout=2.0)
        client.open_line()
        assert client.request("status")["state"] == "idle"
    finally:
        t.close()
    assert line.lines[0] == b""  # nothing else on the line before our newline
    assert json.loads(line.lines[1])["cmd"] == "status"


def reply(**fields):
    return lambda rid: json.dumps(dict(fields, id=rid, ok=True))


STALE = '{"id": null, "ok": false, "error": "bad JSON: unterminated string at byte 17"}'


def test_stale_replies_are_skipped_until_the_first_answer():
    script = Script(
        [
            STALE,
            '{"id": 7, "ok": false, "error": "no clock is running"}',  # the dead client's
            '{"ok": true}',  # no id at all
            reply(state="idle"),
            STALE,
        ]
    )
    client = Client(script)
    client.open_line()
    assert script.written == [""]
    assert client.request("status") == {"state": "idle"}
    # After our first answer, a null-id error is about our own request again.
    with pytest.raises(DeviceError, match="bad JSON"):
        client.request("status")


def test_ids_differ_between_connections():
    firsts = {Client(Script([]))._next_id for _ in range(20)}
    assert len(firsts) > 1
    assert Client(Script([]), first_id=5)._next_id == 5


def test_firmware_reader_on_half_lines(tmp_path):
    app, proto, _ = make_device(tmp_path)
    assert proto.feed(b"\n") == []  # an empty line: no reply
    assert proto.feed(b"\r\n\n") == []
    assert proto.feed(b'{"id":7,"cmd":"pre') == []
    replies = proto.feed(b'\n{"id":1,"cmd":"info"}\n')
    first = json.loads(replies[0])
    assert first["id"] is None and first["error"].startswith("bad JSON")
    assert json.loads(replies[1])["id"] == 1 and len(replies) == 2
    # a half line cut inside a UTF-8 character: the reply is still valid UTF-8
    proto.feed(b'{"id":8,"cmd":"\xe4\xb8')
    (r,) = proto.feed(b"\n")
    raw = r.encode("utf-8") if isinstance(r, str) else r
    assert json.loads(raw.decode("utf-8", "strict"))["error"].startswith("bad JSON")
