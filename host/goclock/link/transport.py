"""The serial line to a clock: lines in, lines out, with deadlines.

The port is opened with `serial.serial_for_url`, so a device path (`/dev/ttyACM0`, the pty
that `make sim` prints) and any pyserial URL (`loop://`, `socket://host:port`) work alike;
tests use a pty or `loop://`. Deadlines are measured with `time.monotonic()`, never with
the wall clock, and the clock function can be injected.

DTR and RTS are set in a safe order around opening and closing, on every OS. On an ESP32
board's USB-serial bridge they drive the auto-reset circuit: RTS asserted while DTR is not
pulls EN low (the chip resets: a game in progress is paused by a power-resume), DTR
asserted while RTS is not pulls GPIO0 low (harmless unless the chip resets just then); both
equal leave the chip alone. Windows drivers (the CP210x's among them) raise the two lines
one after the other when a port opens, so a plain open can reset the clock. We therefore
create the port unopened, lower both lines (pyserial applies them as it opens), open it,
then raise DTR before RTS — passing through "GPIO0 low", never "EN low" — and lower RTS
before DTR when closing. DTR must end up raised: MicroPython's native USB serial (RP2040)
only sends to a host that asserts it. (The same facts guide mpremote's serial transport.)
"""

import errno
import os
import time

import serial

from ..errors import DeviceTimeout, NoClockError, ProtocolError, TransportError

try:
    import termios

    _TERMIOS_ERRORS = (termios.error,)
except ImportError:  # Windows
    _TERMIOS_ERRORS = ()

# What pyserial raises when the device goes away: its own exception, an OSError from the fd,
# termios.error from tcdrain on a vanished pty, TypeError from a closed fd on some platforms.
_LINE_ERRORS = (serial.SerialException, OSError, TypeError) + _TERMIOS_ERRORS

# Replies may be long (a log chunk, a status with a time control); nothing legitimate comes
# near this, so a line past it is a device talking nonsense, not a reply to wait for.
MAX_LINE = 64 * 1024


def _busy(exc):
    text = str(exc).lower()
    return (
        getattr(exc, "errno", None) in (errno.EBUSY, errno.EAGAIN)
        or "busy" in text
        or "lock" in text
    )


def _set_line(port, name, value):
    """Set DTR or RTS; a pty or a socket has no such line, and says so with an error."""
    try:
        setattr(port, name, value)
    except (OSError, serial.SerialException) as exc:
        if getattr(exc, "errno", None) not in (errno.ENOTTY, errno.EINVAL):
            raise


def _absent_hint(url):
    """Why a serial device may be missing: a board unplugged, or `make sim` not running
    (its line is named `serial` in its flash directory only while it runs)."""
    folder = os.path.dirname(os.path.abspath(url)) if "://" not in url else ""
    if os.path.basename(url) == "serial" and os.path.exists(os.path.join(folder, "flash.img")):
        return "the simulated clock is not running: start it with make sim"
    return "is the clock plugged in? `goclock ports` lists the ports"


def open_port(url, baudrate, opener=serial.serial_for_url):
    """The port opened with DTR and RTS set in the order that never resets an ESP32."""
    # exclusive: a second program on the same port would steal half of the replies.
    port = opener(url, baudrate=baudrate, timeout=0.05, exclusive=True, do_not_open=True)
    port.dtr = False  # before open(): pyserial opens the port with both lines low
    port.rts = False
    port.open()
    _set_line(port, "dtr", True)
    _set_line(port, "rts", True)
    return port


def close_port(port):
    """RTS down before DTR (the reverse would pull EN low), then close."""
    try:
        _set_line(port, "rts", False)
        _set_line(port, "dtr", False)
    finally:
        port.close()


class LineTransport:
    """Lines in and out with deadlines; a subclass moves the bytes (`write_line`, `_fill`,
    `_close`) and says what its far end is in errors (`url`)."""

    too_long = "%s sent a line longer than %d bytes: not a goclock"

    def __init__(self, url, clock):
        self.url = url
        self.clock = clock
        self._buf = bytearray()

    def close(self):
        self._close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def read_line(self, timeout):
        """Return the next line (without its newline) as text; wait at most `timeout` seconds."""
        deadline = self.clock() + timeout
        while True:
            end = self._buf.find(b"\n")
            if end >= 0:
                line = bytes(self._buf[:end])
                del self._buf[: end + 1]
                return self._arrived(line.rstrip(b"\r").decode("utf-8", "replace"))
            if len(self._buf) > MAX_LINE:
                self._buf.clear()
                raise ProtocolError(self.too_long % (self.url, MAX_LINE))
            left = deadline - self.clock()
            if left <= 0:
                raise DeviceTimeout("no answer from %s within %.1f s" % (self.url, timeout))
            self._fill(left)

    def _arrived(self, text):
        """A whole line read: what read_line returns (a subclass may check it first)."""
        return text


class SerialTransport(LineTransport):
    """A line-oriented serial connection. `url` is a device path or a pyserial URL."""

    def __init__(self, url, baudrate=115200, clock=time.monotonic, opener=serial.serial_for_url):
        super().__init__(url, clock)
        try:
            self.serial = open_port(url, baudrate, opener)
        except (serial.SerialException, OSError, ValueError) as exc:
            if _busy(exc):
                raise TransportError(
                    "%s is busy: another program (a terminal, mpremote, another goclock) has it "
                    "open; close it and try again" % url
                ) from None
            if getattr(exc, "errno", None) == errno.ENOENT or "No such file" in str(exc):
                raise NoClockError(
                    "no such serial device: %s (%s)" % (url, _absent_hint(url))
                ) from None
            if getattr(exc, "errno", None) == errno.EACCES or "Permission denied" in str(exc):
                raise TransportError(
                    "no permission to open %s (on Linux: add yourself to the dialout group, "
                    "then log in again)" % url
                ) from None
            raise TransportError("cannot open %s: %s" % (url, _reason(exc))) from None

    def _close(self):
        try:
            close_port(self.serial)
        except _LINE_ERRORS:
            pass

    def write_line(self, text):
        """Send one line (the newline is added): text, or bytes sent as they are."""
        data = (text if isinstance(text, bytes) else text.encode("utf-8")) + b"\n"
        try:
            self.serial.write(data)
            self.serial.flush()
        except _LINE_ERRORS as exc:
            raise TransportError(
                "lost the connection to %s: %s" % (self.url, _reason(exc))
            ) from None

    def _fill(self, left):
        try:
            waiting = self.serial.in_waiting
            chunk = self.serial.read(waiting or 1)
        except _LINE_ERRORS as exc:
            raise TransportError(
                "lost the connection to %s: %s" % (self.url, _reason(exc))
            ) from None
        if chunk:
            self._buf += chunk

    def discard_input(self):
        """Drop whatever the device sent before we asked (boot messages, stale replies)."""
        self._buf.clear()
        try:
            self.serial.reset_input_buffer()
        except _LINE_ERRORS:
            pass


def _reason(exc):
    text = str(exc).strip()
    return text or exc.__class__.__name__
