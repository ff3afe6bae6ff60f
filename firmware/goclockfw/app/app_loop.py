"""The application's main loop (a part of App, see app/app.py): one `step` at a time.

  1. inputs: button edges recorded by interrupts are drained and debounced;
     a confirmed press is charged at its FIRST edge (app/buttons.py);
  2. the clock is advanced to now, but never past an edge still waiting for
     confirmation, so a press just before a deadline is charged before it;
  3. calls are played (app/announcer.py), serial requests answered (protocol/commands.py);
  4. checkpoint, battery, LED, display, status events when due;
  5. the board sleeps until the next thing due (a deadline, a debounce
     window, a hold gesture), at most MAX_WAIT_MS.

Nothing here may stop the clock: an exception in a step is noted and the
next step runs. The tick path allocates nothing (checked under heap_lock by
tests/test_firmware_heap.py): no tuples, no bound methods made per step.
"""

from goclockfw.app.buttons import ARBITER, CHANNELS, NONE, PRESS
from goclockfw.core import gameclock
from goclockfw.core.ticks import ticks_diff

MAX_WAIT_MS = 20
VIEW_MS = 100  # how often the shown view is recomputed while a clock runs
STATUS_MS = 1000  # status events while a clock runs (when watched)
QUEUE = 8  # button changes handled per step, at most
QUIET_MS = 40  # no slow work (display, periodic checkpoint) this close to a deadline
RUNNING = gameclock.RUNNING
PAUSED = gameclock.PAUSED


class MainLoop:
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
                self._notice("error", "%s: %s" % (type(e).__name__, e), speak=False)
            self.board.wait(1)

    def _step(self):
        b = self.board
        deb = self.deb
        now = b.ticks()
        b.poll_inputs(now)
        b.ring.drain(deb)
        for ch in range(CHANNELS):
            level = b.level(ch)
            deb.observe(ch, level, now)
            deb.settle(ch, level, now)
        self._buttons(now)
        limit = deb.hold(now)
        if ticks_diff(limit, self.now) > 0:
            self.now = limit
        self.clock.advance(self.now)
        self.gestures.poll(now)
        self.announcer.pump(now)
        data = b.read_serial()
        if data is not None:
            for reply in self.protocol.feed(data):
                self._send(reply)
        self._periodic(now)
        b.wait(self._wait_ms(now))

    def _buttons(self, now):
        # Confirmed changes, handled in the order of their ticks (two in one step is rare).
        deb = self.deb
        n = 0
        while n < QUEUE:
            kind = deb.pop()
            if kind == NONE:
                break
            self._qkind[n] = kind
            self._qch[n] = deb.channel
            self._qtick[n] = deb.tick
            n += 1
        while n:
            pick = 0
            for i in range(1, n):
                if ticks_diff(self._qtick[i], self._qtick[pick]) < 0:
                    pick = i
            kind = self._qkind[pick]
            ch = self._qch[pick]
            tick = self._qtick[pick]
            n -= 1
            self._qkind[pick] = self._qkind[n]
            self._qch[pick] = self._qch[n]
            self._qtick[pick] = self._qtick[n]
            if ticks_diff(tick, self.now) < 0:
                tick = self.now  # held back no longer (a chattering switch): never charge the past
            if ch == ARBITER:
                if kind == PRESS:
                    self.gestures.on_arbiter_down(tick, now)
                else:
                    self.gestures.on_arbiter_up(now)
            elif kind == PRESS:
                self.gestures.on_press(self._side_of[ch], tick, now)

    def _periodic(self, now):
        clock = self.clock
        running = clock.state == RUNNING
        nd = clock.next_deadline()
        quiet = nd is None or ticks_diff(nd, now) > QUIET_MS
        if quiet and (self._cp_soon or (running and self.checkpoints.due(self.now))):
            self._cp_soon = False
            self._checkpoint()
        if self.battery.due(now) and self.battery.check(self.board.battery_mv(), now):
            self._notice("battery_low", "battery low: %d mV" % self.battery.mv)
        if self._changed or (running and ticks_diff(now, self._view_at) >= VIEW_MS):
            self._view_at = now
            if self.display is not None or self.board.has_console:
                self._show(quiet)
        if self.protocol.watching and (
            self._changed or (running and ticks_diff(now, self._status_at) >= STATUS_MS)
        ):
            self._status_at = now
            self.protocol.event("status", self.status())
        if self._changed:
            self._update_kbd()
        self._changed = False
        self._set_led(now)

    def _show(self, quiet):
        menu = None
        if self.gestures.menu >= 0:
            p = self.store.presets[self.gestures.menu]
            menu = "%d %s" % (self.gestures.menu + 1, p["name"])
        v = self._view(self.status(), menu)
        if v == self._last_view:
            return
        if self.display is not None:
            if not quiet:
                return  # drawing takes ~25 ms of I2C: not on top of a call
            try:
                self.display.draw(v)
            except OSError as e:
                self.display = None
                self._notice("hardware", "display lost: %s" % e, speak=False)
        self._last_view = v
        if self.board.has_console:
            self.board.console({"view": v})

    def _set_led(self, now):
        # Lit while Black's clock runs; slow blink paused, fast blink on a flag.
        c = self.clock
        if c.state == RUNNING:
            on = 1 if c.turn == 0 else 0
        elif c.state == PAUSED:
            on = (now >> 9) & 1
        elif c.state == gameclock.ENDED:
            on = (now >> 7) & 1
        else:
            on = 0
        if on != self._led:
            self._led = on
            self.board.set_led(on)

    def _wait_ms(self, now):
        ms = self.max_wait
        nd = self.clock.next_deadline()
        if nd is not None and self.now == now:  # held back by an edge: the debounce wakes us
            d = ticks_diff(nd, now)
            if d < ms:
                ms = d
        # One by one, not in a tuple: this runs every step and must not allocate.
        d = self.deb.next_due(now)
        if 0 <= d < ms:
            ms = d
        d = self.gestures.next_due(now)
        if d is not None and d < ms:
            ms = d
        d = self.board.next_input_ms(now)
        if d is not None and d < ms:
            ms = d
        if self.announcer.busy() and ms > 5:
            ms = 5
        if self.clock.state == RUNNING:
            d = self.checkpoints.interval_ms
            if self.checkpoints.last is not None:
                d -= ticks_diff(now, self.checkpoints.last)
            if 0 < d < ms:  # an overdue one waits for a quiet moment: no 0 ms spin
                ms = d
            if (self.display is not None or self.board.has_console) and VIEW_MS < ms:
                ms = VIEW_MS
        return ms if ms > 0 else 0
