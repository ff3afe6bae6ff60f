"""The loop every board runs: it feeds the session time, edges and serial bytes, and shows it.

One pass: button edges recorded by the interrupts and the pin levels go to the session's
debouncer; the serial line is served (app/hostline.py: requests read only while a reply
can be queued); the session steps (presses, deadlines, calls, the log); its output is
handed to the serial line as far as the line takes it without waiting; the display, the
LED and the keyboard interrupt follow the session; then the board sleeps until the next
moment anything is due (app/wake.py) or an interrupt ends the sleep. (A reply to a host
that is not watching goes out before the step.)

The board is anything with the board interface (board/base.py): the loop calls its
methods, and never asks whether it has them.

Nothing here may stop the clock: an exception in a pass is noted and the next pass runs.
A pass allocates nothing while a clock runs and nothing is said (tests/test_firmware_heap.py).
"""

from goclockfw.app import wake
from goclockfw.app.buttons import LEFT, RIGHT
from goclockfw.app.session import Session
from goclockfw.app.wake import VIEW_MS
from goclockfw.core.ticks import ticks_diff

SCREEN_CLEAR_MS = 15  # a display step (<= 7 ms of I2C) starts only this far from a deadline
RUNNING = "running"


class Loop:
    def __init__(self, board, session=None):
        self.board = board
        now = board.ticks()
        # Both player buttons held at power-up: start without resuming the game cut off.
        held = board.level(LEFT) and board.level(RIGHT)
        self.session = s = session or Session(board, now, resume=not held)
        self.errors = 0
        self._last_view = None
        self._view_at = now
        self._led = -1
        self._kbd = None
        self.screen = None
        self._view = None  # app/display.py's view: a board with a display or a console only
        if board.display is not None:
            from goclockfw.app.screen import Screen  # framebuf: a board with a display only

            self.screen = Screen(board.display)
        if board.display is not None or board.has_console:
            from goclockfw.app.display import view

            self._view = view
        for text in board.notices:
            s.notice("hardware", text, now, speak=False)
        self._kbd = s.kbd_interrupt_ok()  # at once: a resumed game is protected
        board.kbd_intr(self._kbd)

    def run(self):
        # `step`'s body, inline: a call level less under every pass. The RP2040's C stack
        # is 8 KB and a game's first press over serial goes ~20 Python calls deep (measured:
        # the probe's stack_max, tools/rp2/README.md); each level takes 250-350 B of it.
        board = self.board
        while not board.quit:
            try:
                self._step()
            except Exception as e:
                self._failed(e)

    def step(self):
        """One pass, its errors caught (`run` does the same, inline)."""
        try:
            self._step()
        except Exception as e:
            self._failed(e)

    def _failed(self, e):
        if isinstance(e, MemoryError):
            import gc

            gc.collect()
            self.errors += 1
            return
        self.errors += 1  # a bug must not stop the clock: note it and go on
        if self.errors < 20:
            s = self.session
            s.notice("error", "%s: %s" % (type(e).__name__, e), s.now, speak=False)
        self.board.wait(1)

    def _step(self):
        b = self.board
        s = self.session
        now = b.ticks()
        b.poll_inputs(now)
        deb = s.deb
        ring = b.ring
        if ring.head != ring.tail:
            ring.drain(deb)
        deb.look(b.levels(), now)  # a missed edge is seen by the level; a burst settles
        line = s.line
        line.receive(b, now)
        if line.answered and s.out.used and not s.protocol.watching:
            # A request answered (a press over serial, a status) and no host watching: its
            # reply goes out before the session's step, not after it: the host has it
            # ~0.5 ms sooner on an RP2040, and a press's reply waits only for the press.
            # (A watching host's reply goes with the status line the step makes: one write.)
            self._send()
        s.step(now)
        if s.out.used:
            self._send()
        self._show(now)
        scr = self.screen
        if scr is not None and scr.dirty and s.upkeep.free_ms(now) >= SCREEN_CLEAR_MS:
            try:
                scr.step()  # a page or two of I2C: a few ms, never a whole redraw
            except OSError as e:
                self.screen = None
                s.notice("hardware", "display lost: %s" % e, now, speak=False)
        bat = s.battery
        if bat.present and bat.due(now):
            s.check_battery(b.battery_mv(), now)
        b.wait(wake.loop_ms(self, now))

    def _send(self):
        out = self.session.out
        k = out.take()
        if k:
            out.sent(self.board.serial_send(out.buf, out.head, k))

    def _show(self, now):
        b = self.board
        s = self.session
        running = s.clock.state == RUNNING
        if s.changed or (running and ticks_diff(now, self._view_at) >= VIEW_MS):
            self._view_at = now
            if self.screen is not None or b.has_console:
                self._draw(s, now)
            if s.changed:
                want = s.kbd_interrupt_ok()
                if want != self._kbd:
                    self._kbd = want
                    b.kbd_intr(want)
            s.changed = False
        on = s.led(now)
        if on != self._led:
            self._led = on
            b.set_led(on)

    def _draw(self, s, now):
        v = self._view(s.commands.status(), s.menu(), s.menu_time_control())
        if v == self._last_view:
            return
        b = self.board
        if self.screen is not None:
            self.screen.update(v)  # drawn in RAM; sent a few pages a pass (`_step`)
        self._last_view = v
        if b.has_console:
            b.console({"view": v})
