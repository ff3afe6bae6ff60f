"""The real firmware behind a serial port the host opens by path, as `goclock --port X` does.

The host's tests used to talk to a hand-written stand-in of the clock, whose answers drifted
from the firmware's. Here the clock is the firmware itself: a `VirtualClock` (vclock.py: the
board's loop over the real session, on a real littlefs flash, in virtual time) served on a
pty by a thread. Bytes the host writes go to the session as a board's loop gives them
(`session.serial`), what the session queues in `session.out` goes back, and nothing else
is in between but the faults a test asks for (linefaults.py: a foreign device, a broken
line).

    line = ClockLine()                  # a fresh clock, idle, on line.path
    line.clock.configure(tc); line.clock.start(); line.clock.run(5000)   # a game on the table
    main(["--port", line.path, "status"])
    line.requests                       # what the host asked, parsed, in order
    line.close()

Time is the test's: it moves only with `line.clock.run(...)`, or, while a host command runs
(`goclock watch --seconds S`), by `ms_per_request`: after each request is answered,
that much virtual time runs (events and all) before the next request is read. The line
sends a reply together with everything that time brought (it writes to the pty only when
the clock has nothing more to do), so when the host reads the reply, the events are
already waiting behind it: a watch sees the same events on any machine.

Served one pass of the loop at a time under the clock's lock, and only when a pass is owed
(`_due`); otherwise the thread sleeps on the pty and on a wake-up pipe that `close` and new
output poke. Once the host has its reply, the clock does nothing until the next request
or the test's next move: a test may then read the session as it is.
"""

import json
import os
import pty
import select
import threading
import tty

from support.linefaults import Faults
from support.vclock import VirtualClock

POLL_S = 1.0  # a safety net only: the pty and the wake-up pipe end every wait


class ClockLine:
    def __init__(self, clock=None, ms_per_request=0, faults=None, **clock_args):
        self.clock = clock or VirtualClock(**clock_args)
        self.session = self.clock.session
        self.ms_per_request = ms_per_request
        self.faults = faults or Faults()
        self.lines = []  # every line the host sent, as bytes, without its newline
        self.requests = []  # those that are JSON objects, parsed
        self.sent = []  # every line that went to the host, parsed when it is JSON
        self._in = bytearray()  # from the host, not yet a whole line
        self._from_clock = bytearray()  # from the loop, not yet a whole line
        self._out = bytearray()  # for the host, not yet taken by the pty
        self.master, self._slave = pty.openpty()
        tty.setraw(self._slave)
        os.set_blocking(self.master, False)
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        self.path = os.ttyname(self._slave)
        self.dropped = False  # the master side is closed: the line is gone
        self.error = None
        self._closed = False
        self._stop = threading.Event()
        with self.clock.lock:
            self.clock.board.reader = self._read
            self.clock.board.writer = self._write
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    # ----- the serving thread -----------------------------------------------------

    def _serve(self):
        try:
            while not self._stop.is_set():
                with self.clock.lock:
                    if self.dropped:
                        return
                    self._take_input()
                    if self._due():
                        self.clock.step()
                    busy = self._due()
                    if self.dropped:
                        return
                    if not busy:
                        self._flush()
                if not busy:
                    self._sleep()
        except BaseException as exc:  # a firmware bug: close() raises it in the test
            self.error = exc

    def _due(self):
        """Is a pass of the loop owed: time to run, output to hand over, a whole request
        to read? Only then does one run, so what the clock does (its flash work at quiet
        moments too) depends on the requests and the virtual time alone, never on how
        often this thread wakes."""
        if self.clock.busy():
            return True
        return b"\n" in self._in and self.clock.board.target is None

    def _sleep(self):
        """Until the host writes, the pty takes more output, or the line is poked."""
        out = [self.master] if self._out else []
        ready, _, _ = select.select([self.master, self._wake_r], out, [], POLL_S)
        if self._wake_r in ready:
            os.read(self._wake_r, 4096)

    def _poke(self):
        try:
            os.write(self._wake_w, b"!")
        except BlockingIOError:
            pass  # the pipe is full: the thread is woken already

    def _take_input(self):
        if self.dropped:
            return
        try:
            data = os.read(self.master, 4096)
        except (BlockingIOError, OSError):
            return
        self._in += data

    def _flush(self):
        if self.dropped or not self._out:
            return
        try:
            n = os.write(self.master, self._out)
        except (BlockingIOError, OSError):
            return
        del self._out[:n]

    # ----- the board's serial line ------------------------------------------------

    def _read(self):
        """The next whole request line for the loop, or None."""
        while True:
            end = self._in.find(b"\n")
            if end < 0:
                return None
            line = bytes(self._in[:end])
            del self._in[: end + 1]
            self.lines.append(line)
            if not line.strip():
                return line + b"\n"  # an empty line: the clock gives it no reply
            try:
                req = json.loads(line)
            except ValueError:
                req = None
            if isinstance(req, dict):
                self.requests.append(req)
            deliver, said = self.faults.request(line)
            for text in said:
                self._say(text, text.decode("utf-8", "replace"))
            if deliver:
                self.clock.hold(self.ms_per_request)  # runs once this request is answered
                return line + b"\n"

    def _write(self, data):
        """What the loop sends: all of it is taken; whole lines go through the faults."""
        self._from_clock += data
        while not self.dropped:
            end = self._from_clock.find(b"\n")
            if end < 0:
                break
            line = bytes(self._from_clock[:end])
            del self._from_clock[: end + 1]
            try:
                msg = json.loads(line)
            except ValueError:
                msg = line.decode("utf-8", "replace")
            out = self.faults.reply(line, msg)
            if out is None:
                self._drop()
                break
            self._say(out, msg if out is line else json.loads(out))
        return len(data)

    def _say(self, line, msg):
        self.sent.append(msg)
        self._out += line + b"\n"
        self._poke()  # output made by a test's own passes goes out at once

    def _drop(self):
        """The cable is pulled: the host's side of the pty reads no more."""
        self._flush()
        self.dropped = True
        os.close(self.master)

    # ----- the test's side ----------------------------------------------------------

    def garbage(self, data):
        """Raw bytes to the host, as a device talking nonsense sends them (in order with
        the clock's own output)."""
        with self.clock.lock:
            self._out += data
        self._poke()

    def events(self):
        """The event lines that went to the host, in order."""
        return [m for m in self.sent if isinstance(m, dict) and "event" in m]

    def replug(self):
        """This line closed and a new one on the same clock, as the cable plugged in again."""
        self.close()
        return ClockLine(self.clock, self.ms_per_request)

    def close(self):
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        self._poke()
        self._thread.join(timeout=5)
        if not self.dropped:
            os.close(self.master)
            self.dropped = True
        for fd in (self._slave, self._wake_r, self._wake_w):
            os.close(fd)
        with self.clock.lock:
            self.clock.board.reader = lambda: None
            self.clock.board.writer = len
        if self.error is not None:
            raise self.error

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
