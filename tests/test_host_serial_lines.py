"""DTR and RTS around opening and closing the port (host/goclock/transport.py), on every OS.

A fake pyserial port records what is done to it, in order, and what an ESP32 board's
auto-reset circuit would make of each moment: RTS asserted while DTR is not pulls EN low
(a reset, which would pause a game in progress). The port must never pass through that
state, and must end with DTR raised (MicroPython's native USB serial sends only then).
"""

import errno

import pytest

from goclock.errors import TransportError
from goclock.link.transport import SerialTransport


class FakePort:
    """The part of pyserial's Serial that the transport uses, recording every step."""

    def __init__(self, log, fail_lines=None, busy=False):
        self.log = log
        self.is_open = False
        self._dtr = True  # pyserial's defaults before anything is set
        self._rts = True
        self.fail_lines = fail_lines
        self.busy = busy
        self.in_waiting = 0

    def _line(self, name, value):
        if self.is_open and self.fail_lines:
            raise OSError(self.fail_lines, "Inappropriate ioctl for device")
        setattr(self, "_" + name, value)
        self.log.append((name, value))
        if self.is_open:
            self.log.append(("state", self._dtr, self._rts))

    dtr = property(lambda self: self._dtr, lambda self, v: self._line("dtr", v))
    rts = property(lambda self: self._rts, lambda self, v: self._line("rts", v))

    def open(self):
        if self.busy:
            raise OSError(errno.EBUSY, "Device or resource busy")
        self.is_open = True
        self.log.append(("open",))
        self.log.append(("state", self._dtr, self._rts))  # pyserial applies both as it opens

    def close(self):
        self.is_open = False
        self.log.append(("close",))


def opener(log, **kw):
    def open_url(url, **options):
        assert options["do_not_open"] is True  # so the lines can be set before opening
        log.append(("created", options["exclusive"]))
        return FakePort(log, **kw)

    return open_url


def resets(log):
    """The moments an ESP32's EN would be pulled low: RTS asserted, DTR not, port open."""
    return [e for e in log if e[0] == "state" and e[2] and not e[1]]


def test_open_then_close_in_the_safe_order():
    log = []
    t = SerialTransport("COM3", opener=opener(log))
    assert log == [
        ("created", True),
        ("dtr", False),
        ("rts", False),
        ("open",),
        ("state", False, False),
        ("dtr", True),
        ("state", True, False),  # GPIO0 low for a moment: no reset without EN
        ("rts", True),
        ("state", True, True),
    ]
    assert t.serial.dtr is True and t.serial.rts is True
    del log[:]
    t.close()
    assert log == [
        ("rts", False),
        ("state", True, False),
        ("dtr", False),
        ("state", False, False),
        ("close",),
    ]


def test_never_pulls_en_low():
    log = []
    SerialTransport("/dev/ttyUSB0", opener=opener(log)).close()
    assert resets(log) == []


def test_a_pty_without_modem_lines_still_opens():
    log = []
    t = SerialTransport("/dev/pts/3", opener=opener(log, fail_lines=errno.ENOTTY))
    assert t.serial.is_open
    t.close()
    assert log[-1] == ("close",)


def test_busy_port_is_reported():
    with pytest.raises(TransportError, match="is busy"):
        SerialTransport("COM3", opener=opener([], busy=True))
