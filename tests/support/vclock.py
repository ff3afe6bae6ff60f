"""The whole firmware on CPython in virtual time: the board's loop (app/loop.py) over the real
session, on a board of this module's that has no pins and no wall clock.

The host's tests need a clock that behaves exactly like one on a table: the loop a board
runs reads the serial line only while a reply can be queued, steps the session, sends what
the line takes and redraws nothing. So the loop is the firmware's own; only its board is
here (`VirtualBoard`): ticks that move when a test says so, a serial line made of two
callables (tests/support/clockline.py puts a pty behind them), the keyboard interrupt and
the LED kept for the test to read.

Time never moves by itself: `run(ms)` and `run_to(t)` move it, pass by pass, waking when the
session asks (the board's `wait` jumps instead of sleeping). While virtual time runs for a
`hold(ms)`, the board reads no serial bytes: what a host sends next is answered afterwards,
at a known tick, whatever the machine's speed.

Every method holds `lock`: clockline.py's serving thread steps the same clock.
"""

import json
import threading

from goclockfw.app.loop import Loop
from goclockfw.board.base import Board, take_pending
from goclockfw.core.ticks import ticks_add, ticks_diff
from support.sessions import make_session

SIDES = ("black", "white")


class VirtualBoard(Board):
    """The board interface (board/base.py) the loop uses, in virtual time. The session is given
    to the loop, so the board needs no file system, speaker or name of its own."""

    family = "test"
    virtual = True

    def __init__(self, now=0):
        Board.__init__(self)  # its edge ring stays empty: presses go to the session directly
        self.now = now
        self.target = None  # the tick virtual time runs to, or None: it stands still
        self.kbd = None  # the keyboard interrupt as the loop last set it
        self.led = 0
        self.reader = lambda: None  # bytes from the host, or None
        self._pending = bytearray()  # what the reader gave that a pass has not taken yet
        self.writer = len  # (bytes) -> how many the line took

    def ticks(self):
        return self.now

    def wait(self, ms):
        """The loop's sleep: a jump towards the target, never past it; no target: no time.
        The target is reached once the passes at its tick have run (what falls due there,
        and the passes the loop asks for at once: `ms` 0, records held to write)."""
        if self.target is None:
            return
        left = ticks_diff(self.target, self.now)
        if left <= 0:
            if ms > 0:
                self.target = None
            return
        self.now = ticks_add(self.now, ms if 0 < ms < left else (left if ms > 0 else 0))

    def read_serial(self, buf):
        # Nothing is read while virtual time runs for a request: its effects come first.
        if self.target is not None:
            return 0
        if not self._pending:
            self._pending.extend(self.reader() or b"")
        return take_pending(self._pending, buf)  # a pass takes what the line's buffer holds

    def serial_send(self, buf, start, n):
        return self.writer(bytes(buf[start : start + n]))

    def kbd_intr(self, enable):
        self.kbd = bool(enable)

    def set_led(self, on):
        self.led = on


class VirtualClock:
    """A clock on the table: the firmware's loop and session, time moved by the test."""

    def __init__(self, session=None, now=0, **session_args):
        self.lock = threading.RLock()
        self.session = session or make_session(now=now, **session_args)
        self.board = VirtualBoard(now)
        # The board's loop, given our session; its safety net (a bug noted, the clock goes
        # on) is not used: `step` calls the pass itself, so a firmware bug fails the test.
        self.loop = Loop(self.board, self.session)

    @property
    def now(self):
        return self.board.now

    def step(self):
        """One pass of the board's loop at the current tick (then the board's wait)."""
        with self.lock:
            self.loop._step()

    def busy(self):
        """Is there more to do before the clock waits for the host: time to run, output,
        request bytes the line has not taken yet (a pass reads 256 at most)?"""
        with self.lock:
            b = self.board
            return b.target is not None or self.session.out.used > 0 or len(b._pending) > 0

    def hold(self, ms):
        """Let `ms` of virtual time run before the next serial byte is read."""
        with self.lock:
            if ms > 0:
                self.board.target = ticks_add(self.board.now, ms)

    def run(self, ms):
        """`ms` of virtual time pass, pass by pass as the loop wakes, the last pass at the
        tick reached (run(0): one pass now)."""
        with self.lock:
            if ms <= 0:
                self.step()
                return
            self.hold(ms)
            while self.board.target is not None:
                self.step()

    def run_to(self, t):
        with self.lock:
            self.run(ticks_diff(t, self.board.now))

    # ----- what players and arbiters do -------------------------------------------

    def press(self, side):
        """A player's button (after its debouncing) now: (accepted, reason)."""
        with self.lock:
            commands = self.session.commands
            ok = commands.press(SIDES.index(side), self.board.now)
            reason = commands.reason
            self.step()
            return ok, reason

    def start(self):
        """The game starts: the side that does not move first presses its button."""
        with self.lock:
            starter = SIDES[1 - self.session.tc.first]
            ok, reason = self.press(starter)
            assert ok, reason

    def play(self, presses):
        """[(t, side)]: each side presses at tick t (absolute); every press must count."""
        for t, side in presses:
            self.run_to(t)
            ok, reason = self.press(side)
            assert ok, (t, side, reason)

    def ask(self, cmd, **args):
        """A request answered by the clock's protocol, not over the line (set-up): the reply."""
        with self.lock:
            line = json.dumps(dict(args, id=0, cmd=cmd)).encode()
            reply = json.loads(self.session.protocol.handle_line(line))
            self.step()
            assert reply["ok"], (cmd, reply)
            return reply

    def configure(self, time_control, **config):
        """The clock set to a time control (and other config fields), its game reset to it."""
        with self.lock:
            self.ask("config.set", config=dict(config, time_control=time_control))
            self.ask("reset")

    def log(self, game):
        """A game's log as the clock serves it."""
        with self.lock:
            return self.session.journal.read(game, 0, 1 << 24)[0]

    def damage_flash(self, old, new):
        """Bytes of the flash changed in place (a worn cell, a stray write), behind the
        firmware's back: every `old` becomes `new` (same length). The count changed."""
        assert len(old) == len(new)
        with self.lock:
            ram = self.session.board.flash._ram
            count = ram.count(old)
            ram[:] = bytes(ram).replace(old, new)
            return count

    def state(self):
        return self.session.clock.state
