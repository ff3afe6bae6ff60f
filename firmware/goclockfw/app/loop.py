"""The loop every board runs: it feeds the session time, edges and serial bytes, and shows it.

One pass: button edges recorded by the interrupts and the pin levels go to the session;
serial bytes are read (only while a reply can be queued); the session steps (presses,
deadlines, calls, the log); its output is handed to the serial line as far as the line
takes it without waiting; the display, the LED and the keyboard interrupt follow the
session; then the board sleeps until the session's next moment (or an interrupt).

Nothing here may stop the clock: an exception in a pass is noted and the next pass runs.
A pass allocates nothing while a clock runs and nothing is said (tests/test_firmware_heap.py).
"""

from goclockfw.app import display
from goclockfw.app.buttons import CHANNELS, LEFT, RIGHT
from goclockfw.app.session import Ports, Session
from goclockfw.core.ticks import ticks_diff

VIEW_MS = 100  # how often the shown view is recomputed while a clock runs
SCREEN_CLEAR_MS = 15  # a display step (<= 7 ms of I2C) starts only this far from a deadline
RUNNING = "running"


class BoardPorts(Ports):
    """A board seen as the session's Ports."""

    def __init__(self, board):
        self.board = board
        self.name = board.name
        self.fs = board.fs
        self.flash = board.flash
        self.sounds = board.sounds
        self.console = board.console if board.has_console else None
        self._erasing = getattr(board, "erasing", None)  # the ESP32 board's (esp32board.py)
        self.erases_while_running = getattr(board, "erases_while_running", True)

    def erasing(self, on):
        if self._erasing is not None:
            self._erasing(on)

    def make_player(self, rate, volume):
        return self.board.make_player(rate, volume)

    def ram_free(self):
        return self.board.ram_free()

    def unique_id(self):
        return self.board.unique_id() if hasattr(self.board, "unique_id") else None


class Loop:
    def __init__(self, board, session=None):
        self.board = board
        now = board.ticks()
        # Both player buttons held at power-up: start without resuming the game cut off.
        held = board.level(LEFT) and board.level(RIGHT)
        self.session = session or Session(BoardPorts(board), now, resume=not held)
        self.errors = 0
        self._last_view = None
        self._view_at = now
        self._led = -1
        self._kbd = None
        self._screen = None
        if board.display is not None:
            from goclockfw.app.screen import Screen  # framebuf: a board with a display only

            self._screen = Screen(board.display)
        for text in getattr(board, "notices", ()):
            self.session.notice("hardware", text, now, speak=False)
        self._kbd = self.session.kbd_interrupt_ok()  # at once: a resumed game is protected
        board.kbd_intr(self._kbd)

    def run(self):
        while not self.board.quit:
            self.step()

    def step(self):
        try:
            self._step()
        except MemoryError:
            import gc

            gc.collect()
            self.errors += 1
        except Exception as e:  # a bug must not stop the clock: note it and go on
            self.errors += 1
            if self.errors < 20:
                s = self.session
                s.notice("error", "%s: %s" % (type(e).__name__, e), s.now, speak=False)
            self.board.wait(1)

    def _step(self):
        b = self.board
        s = self.session
        now = b.ticks()
        b.poll_inputs(now)
        s.edges(b.ring)
        for ch in range(CHANNELS):
            s.level(ch, b.level(ch), now)
        reading = s.reading()
        b.watch_serial = reading  # a board that sleeps on the line stops doing so when full
        if reading:
            data = b.read_serial()
            if data is not None:
                s.serial(data, now)
        s.step(now)
        self._send()
        self._show(now)
        scr = self._screen
        if scr is not None and scr.dirty and s.free_ms(now) >= SCREEN_CLEAR_MS:
            try:
                scr.step()  # a page or two of I2C: a few ms, never a whole redraw
            except OSError as e:
                self._screen = None
                s.notice("hardware", "display lost: %s" % e, now, speak=False)
        if s.battery.due(now):
            s.check_battery(b.battery_mv(), now)
        b.wait(self._wait_ms(now))

    def _send(self):
        out = self.session.out
        data = out.take()
        if data is not None:
            out.sent(self.board.serial_send(data))

    def _show(self, now):
        b = self.board
        s = self.session
        running = s.clock.state == RUNNING
        if s.changed or (running and ticks_diff(now, self._view_at) >= VIEW_MS):
            self._view_at = now
            if self._screen is not None or b.has_console:
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
        v = display.view(s.status(), s.menu(), s.menu_time_control())
        if v == self._last_view:
            return
        b = self.board
        if self._screen is not None:
            self._screen.update(v)  # drawn in RAM; sent a few pages a pass (`_step`)
        self._last_view = v
        if b.has_console:
            b.console({"view": v})

    def _wait_ms(self, now):
        b = self.board
        s = self.session
        ms = s.wait_ms(now)
        d = b.wake_ms(s.clock.state == RUNNING)  # a board wakes for no button: look often
        if d is not None and d < ms:
            ms = d
        d = b.next_input_ms(now)
        if d is not None and d < ms:
            ms = d
        if ms > 1 and s.upkeep_waits(now):
            ms = 1  # one erase a pass: the next pass at once (the loop's sleep is long now)
        if s.out.used and ms > 5:
            ms = 5  # output waiting for the host: come back soon to send more
        if self._screen is not None and self._screen.dirty and ms > 5:
            ms = 5  # pages waiting for the display
        if (self._screen is not None or b.has_console) and s.clock.state == RUNNING:
            if VIEW_MS < ms:
                ms = VIEW_MS
        return ms
