"""The protocol client and the serial transport: against a scripted fake clock on a pty,
a scripted line source, and pyserial's loop:// URL."""

import itertools
import json
import os
import threading

import pytest

from goclock.client import Client
from goclock.errors import DeviceError, DeviceTimeout, GoclockError, ProtocolError, TransportError
from goclock.transport import SerialTransport
from host_fakedev import FakeClock


@pytest.fixture
def fake():
    clock = FakeClock()
    yield clock
    clock.close()


@pytest.fixture
def client(fake):
    transport = SerialTransport(fake.path)
    yield Client(transport, timeout=2.0, first_id=1)
    transport.close()


class Script:
    """A transport reading prepared lines; records what was written."""

    def __init__(self, lines):
        self.lines = list(lines)
        self.written = []
        self.url = "script"

    def write_line(self, text):
        self.written.append(json.loads(text))

    def read_line(self, timeout):
        if not self.lines:
            raise DeviceTimeout("silent")
        line = self.lines.pop(0)
        return line(self.written[-1]["id"]) if callable(line) else line


def test_request_and_reply(client, fake):
    info = client.check_firmware()
    assert info["protocol"] == 2
    assert client.request("press", side="white") == {"accepted": True}
    assert fake.requests[-1] == {"id": 2, "cmd": "press", "side": "white"}


def test_refusal_becomes_device_error(client):
    with pytest.raises(DeviceError) as err:
        client.request("resume")
    assert "the clock refused resume: not paused" == str(err.value)


def test_events_are_kept_aside(client, fake):
    fake.events_on_watch = [{"event": "call", "t": 95000, "side": "black", "phrase": "30秒"}]
    assert client.request("watch", on=True) == {"on": True}
    # The event arrives after the reply; the next request must skip over it.
    assert client.request("status")["state"] == "idle"
    assert client.next_event(0.1) == fake.events_on_watch[0]
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


def test_garbage_is_a_protocol_error(client, fake):
    fake.mode = "garbage"
    client.timeout = 0.3
    with pytest.raises(ProtocolError, match="does not speak the goclock protocol"):
        client.request("info")


def test_silence_is_a_timeout(client, fake):
    fake.mode = "silent"
    client.timeout = 0.2
    with pytest.raises(DeviceTimeout, match="did not answer info within 0.2 s"):
        client.request("info")


def test_boot_banner_before_reply_is_tolerated(client, fake):
    fake.mode = "banner"
    assert client.request("info")["board"] == "fake"


@pytest.mark.parametrize(
    "proto,fix", [(3, "update this host tool"), (1, "update the clock's firmware")]
)
def test_other_protocol_version_refused(client, fake, proto, fix):
    fake.protocol = proto
    with pytest.raises(GoclockError, match=fix):
        client.check_firmware()


def test_request_over_1024_bytes_never_sent(client, fake):
    with pytest.raises(GoclockError, match="over the clock's limit of 1024"):
        client.request("config.set", config={"voice": "x" * 1100})
    assert fake.requests == []


def test_busy_port(fake):
    first = SerialTransport(fake.path)
    try:
        with pytest.raises(TransportError, match="is busy"):
            SerialTransport(fake.path)
    finally:
        first.close()


def test_lost_line(client, fake):
    fake.logs = {1: b"x" * 2000}
    fake.cut_after = 0
    with pytest.raises((TransportError, DeviceTimeout)):
        client.request("logs.get", game=1, timeout=1.0)


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


def test_overlong_line_is_garbage(fake):
    transport = SerialTransport(fake.path)
    # Written from a thread: the pty holds only a few KB until the reader drains it.
    writer = threading.Thread(target=os.write, args=(fake.master, b"x" * (70 * 1024)))
    writer.start()
    try:
        with pytest.raises(ProtocolError, match="longer than"):
            transport.read_line(5.0)
    finally:
        writer.join(timeout=5)
        transport.close()
