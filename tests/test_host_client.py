"""The protocol client and the serial transport: against the real firmware on a pty
(tests/support/clockline.py), a scripted line source, and pyserial's loop:// URL."""

import itertools
import json

import pytest

from goclock.errors import DeviceError, DeviceTimeout, GoclockError, ProtocolError, TransportError
from goclock.link.client import Client
from goclock.link.transport import SerialTransport
from support.games import play_game
from support.scripted import Script

# Black's main time runs out at 65 s; "30秒" is called 30 s into a 60 s period, at 1:35.
BYO_60 = {"type": "byoyomi", "main": 65, "periods": 5, "period": 60}


@pytest.fixture
def client(line):
    transport = SerialTransport(line.path)
    yield Client(transport, timeout=2.0, first_id=1)
    transport.close()


def test_request_and_reply(client, line):
    info = client.check_firmware()
    assert info["protocol"] == 3
    assert client.request("press", side="white") == {"accepted": True}  # White starts the game
    assert line.requests[-1] == {"id": 2, "cmd": "press", "side": "white"}
    assert line.session.clock.state == "running"


def test_refusal_becomes_device_error(client):
    with pytest.raises(DeviceError) as err:
        client.request("resume")
    assert "the clocks are not paused" == str(err.value)  # the words, not `resume`
    assert (err.value.cmd, err.value.reason) == ("resume", "the clocks are not paused")


def reply_at(line, rid):
    """Where the reply to request `rid` is among the lines the clock sent."""
    return [i for i, m in enumerate(line.sent) if isinstance(m, dict) and m.get("id") == rid][0]


def test_events_are_kept_aside(client, line):
    line.clock.configure(BYO_60)
    line.clock.start()
    line.clock.run(94000)
    line.ms_per_request = 2000  # the clock runs 2 s after answering `watch`: "30秒" at 1:35
    assert client.request("watch", on=True) == {"on": True}
    line.ms_per_request = 0
    # The events arrive after the reply; the next request must skip over them.
    assert client.request("status")["state"] == "running"
    between = line.sent[reply_at(line, 1) + 1 : reply_at(line, 2)]
    assert {"event": "call", "t": 95000, "side": "black", "phrase": "30秒"} in between
    assert [m["event"] for m in between].count("status") >= 2  # one a second while watched
    assert list(client.events) == between
    # Then what came after the reply (the pass that answered went on), and nothing more:
    # no time ran after `status`.
    for ev in between + line.sent[reply_at(line, 2) + 1 :]:
        assert client.next_event(0.1) == ev
    assert client.next_event(0.05) is None


def test_stale_replies_and_banners_are_skipped():
    script = Script(
        [
            "MicroPython v1.28 booting",
            '{"id": 999, "ok": true, "state": "old"}',
            '{"event": "status", "state": "running"}',
            lambda rid: json.dumps({"id": rid, "ok": True, "state": "paused"}),
        ]
    )
    client = Client(script)
    assert client.request("pause") == {"state": "paused"}
    assert list(client.events) == [{"event": "status", "state": "running"}]


def test_unreadable_request_reply():
    client = Client(Script(['{"id": null, "ok": false, "error": "bad JSON"}']))
    with pytest.raises(DeviceError, match="bad JSON"):
        client.request("status")


def test_garbage_is_a_protocol_error(client, line):
    line.faults.mode = "garbage"
    client.timeout = 0.3
    with pytest.raises(ProtocolError, match="does not speak the goclock protocol"):
        client.request("info")


def test_silence_is_a_timeout(client, line):
    line.faults.mode = "silent"
    client.timeout = 0.2
    with pytest.raises(DeviceTimeout, match="did not answer info within 0.2 s"):
        client.request("info")


def test_boot_banner_before_reply_is_tolerated(client, line):
    line.faults.mode = "banner"
    assert client.request("info")["board"] == "test"
    assert line.sent[0] == "MicroPython v1.28 on unix; booting goclock"


@pytest.mark.parametrize(
    "proto,fix", [(4, "update this host tool"), (2, "update the clock's firmware")]
)
def test_other_protocol_version_refused(client, line, proto, fix):
    line.faults.info = {"protocol": proto}
    with pytest.raises(GoclockError, match=fix):
        client.check_firmware()


def test_request_over_1024_bytes_never_sent(client, line):
    with pytest.raises(GoclockError, match="over the clock's limit of 1024"):
        client.request("config.set", config={"voice": "x" * 1100})
    assert line.lines == []


def test_busy_port(line):
    first = SerialTransport(line.path)
    try:
        with pytest.raises(TransportError, match="is busy"):
            SerialTransport(line.path)
    finally:
        first.close()


def test_lost_line(client, line):
    gid = play_game(line.clock, BYO_60, [(10000, "black"), (20000, "white")])
    line.faults.cut_after = 0  # the cable is pulled as the first bytes of a log would go
    with pytest.raises(TransportError, match="lost the connection"):
        client.request("logs.get", game=gid, timeout=1.0)
    assert line.requests[-1]["cmd"] == "logs.get" and line.dropped


def test_loop_url_lines_and_deadline():
    # A clock that moves 0.6 s each time it is read: the second wait runs out at once.
    ticks = itertools.count(0.0, 0.6)
    transport = SerialTransport("loop://", clock=lambda: next(ticks))
    transport.write_line('{"id": 1}')
    assert transport.read_line(1.0) == '{"id": 1}'
    # Nothing more comes: the deadline passes after two readings of the clock.
    with pytest.raises(DeviceTimeout):
        transport.read_line(1.0)
    transport.close()


def test_overlong_line_is_garbage(line):
    transport = SerialTransport(line.path)
    line.garbage(b"x" * (70 * 1024))  # the line sends it as the pty drains
    try:
        with pytest.raises(ProtocolError, match="longer than"):
            transport.read_line(5.0)
    finally:
        transport.close()
