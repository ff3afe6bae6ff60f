"""A chip's costs on the desktop board's virtual timeline (figures: desktop/chipcosts.py).

The firmware runs as it is; what it does to hardware is charged here, in integer µs:
a flash erase or page program (told by desktop/flash.py's `on_op`), bytes handed to the
serial line, bytes sent to the display on I2C. Each charge is a *window* of the timeline
in which the chip is busy in one of these ways:

  IRQ_OFF    RP2040 flash write: interrupts off; only the PIO edge timers run
  SCHED_OFF  a blocking C call (ESP32 flash write, I2C, a UART write waiting for its
             FIFO): hard interrupts run, scheduled (soft) handlers wait for its end
  LOOP_WAIT  the loop waits in C but scheduled callbacks run (a Pico USB write)

and `sleep(ms)` is the loop's idle time, in which handlers run as things happen.

What happens meanwhile comes from scripted events: button edges at given µs (`edge`),
and the I2S's "buffer taken" interrupt (ModelI2S). An edge is stamped as the chip stamps
it: RP2040 player buttons by PIO (the exact tick, whatever the CPU does; 8 words a FIFO,
read by the loop's `poll_inputs`, more are lost); ESP32 buttons by a soft handler that
reads ticks_ms() when it runs: at once when idle, at the end of a window otherwise,
through the scheduler's queue of 8, which drops what does not fit; and each ESP32 button's
pulse counter counts its presses in hardware meanwhile (`pcnt`). After its first edge
an ESP32 pin is disarmed until the loop reads the ring, as board/mcu.py does, and the
loop's sleep ends within a slice once an edge waits (board/esp32board.py's wait).

No wall clock anywhere: the timeline moves only by charges and sleeps.
"""

from goclockfw.app.buttons import ARBITER
from goclockfw.core.ticks import TICKS_MAX
from goclockfw.desktop.chipcosts import chip_costs

IDLE = 0
IRQ_OFF = 1
SCHED_OFF = 2
LOOP_WAIT = 3
# A pass's own CPU time is not modelled, except this floor: a loop that asks to sleep 0 ms
# spins, and on a chip a spin takes time (tens of µs a pass in MicroPython at least).
SPIN_US = 100
_EDGE = 0
_AUDIO = 1


class ChipModel:
    def __init__(self, chip, ring, t0_ms=0, erase_max=False):
        self.chip = chip
        self.c = c = chip_costs(chip)
        self.ring = ring  # the board's EdgeRing (app/buttons.py)
        self.pio = c["irq"] == "pio"
        self.us = 0
        self.t0 = t0_ms
        self.erase_us = c["erase_max_us"] if erase_max else c["erase_us"]
        self.audio = None  # a ModelI2S: its callback goes through the scheduler
        self.on_flash = None  # callable(kind, us), told of each flash operation first
        self.drop_audio = 0  # I2S callbacks to lose (a test of the player's watchdog)
        self._events = []  # (t_us, kind, a, b), oldest first
        self._levels = bytearray(3)  # 1 while pressed
        self._armed = bytearray(b"\x01\x01\x01")  # ESP32: the pin's soft interrupt is on
        self._fifo = [[], [], []]  # RP2040: PIO words not read yet, as (tick, level)
        # ESP32: each button's pulse counter (esp32.PCNT): falling edges (presses), counted
        # in hardware whatever the CPU does (board/esp32board.py reads it around an erase).
        self.pcnt = [0, 0, 0]
        self._sched = []  # handlers waiting for a window's end: (kind, channel)
        self._pass_at = 0
        # The figures.
        self.erases = 0
        self.programs = 0  # page programs
        self.flash_us = 0  # all flash time
        self.longest_stall_us = 0  # interrupts off (RP2040) / soft handlers held (ESP32)
        self.longest_flash_us = 0
        self.longest_pass_us = 0  # a loop pass, from its wake to its next sleep
        self.spins = 0  # passes that slept 0 ms
        self.pass_erases_max = 0  # erases in one loop pass, at most
        self.pass_flash_max_us = 0  # flash time in one loop pass, at most
        self._pass_erases = 0
        self._pass_flash_us = 0
        self.sched_max = 0  # deepest the scheduler queue got
        self.sched_dropped = 0
        self.pio_lost = 0  # edges a full PIO FIFO could not keep
        self._line = _Line(c)

    # ----- time -----------------------------------------------------------------------

    def reset_figures(self):
        """Start counting again (a game starts: what its set-up cost is not its own)."""
        self.erases = self.programs = self.flash_us = 0
        self.longest_stall_us = self.longest_flash_us = self.longest_pass_us = 0
        self.spins = self.sched_max = self.sched_dropped = self.pio_lost = 0
        self.pass_erases_max = self.pass_flash_max_us = 0
        self._line.blocking_bytes = self._line.longest_wait_us = 0

    def tick(self):
        """The chip's ticks_ms() now."""
        return (self.t0 + self.us // 1000) & TICKS_MAX

    def tick_at(self, us):
        return (self.t0 + us // 1000) & TICKS_MAX

    def sleep(self, ms, slice_ms=0):
        """The loop sleeps `ms` (time.sleep_ms: handlers run meanwhile, nothing wakes it).

        With `slice_ms` (board/esp32board.py's wait): in pieces of that many ms, ending after
        the piece in which an edge was put in the ring, or at once if one waits there."""
        d = self.us - self._pass_at
        if d > self.longest_pass_us:
            self.longest_pass_us = d
        if self._pass_erases > self.pass_erases_max:
            self.pass_erases_max = self._pass_erases
        if self._pass_flash_us > self.pass_flash_max_us:
            self.pass_flash_max_us = self._pass_flash_us
        self._pass_erases = self._pass_flash_us = 0
        ring = self.ring
        if slice_ms and ring.head != ring.tail:
            ms = 0
        if ms > 0 and slice_ms:
            while ms > 0 and ring.head == ring.tail:
                step = ms if ms < slice_ms else slice_ms
                self._advance(self.us + step * 1000, IDLE)
                ms -= step
        elif ms > 0:
            self._advance(self.us + ms * 1000, IDLE)
        else:
            self.spins += 1
            self._advance(self.us + SPIN_US, IDLE)
        self._pass_at = self.us

    def busy(self, us, mode):
        """Charge a window of `us` in which the chip is busy in `mode`."""
        if us <= 0:
            return
        if mode != LOOP_WAIT and us > self.longest_stall_us:
            self.longest_stall_us = us
        self._advance(self.us + us, mode)

    def _advance(self, end, mode):
        ev = self._events
        while ev and ev[0][0] <= end:
            t, kind, a, b = ev.pop(0)
            if t < self.us:
                t = self.us
            if mode == IDLE or (mode == LOOP_WAIT and kind == _AUDIO):
                self.us = t
            if kind == _EDGE:
                self._edge(t, a, b, mode)
            else:
                self._handler(_AUDIO, 0, t, mode)
        if end > self.us:
            self.us = end
        sched = self._sched
        while sched:  # what waited runs now, in the order it was queued
            kind, ch = sched.pop(0)
            self._run(kind, ch, self.us)

    def schedule(self, t_us, kind, a=0, b=0):
        ev = self._events
        i = len(ev)
        while i and ev[i - 1][0] > t_us:
            i -= 1
        ev.insert(i, (t_us, kind, a, b))

    # ----- buttons --------------------------------------------------------------------

    def edge(self, t_us, ch, level):
        """A button edge at `t_us`: `level` 1 it went down, 0 it came up."""
        self.schedule(t_us, _EDGE, ch, level)

    def tap(self, t_us, ch, hold_ms=80, bounces=0):
        """A press at `t_us` held `hold_ms`, its contact bouncing `bounces` times (0.3 ms each)."""
        self.edge(t_us, ch, 1)
        for i in range(bounces):
            self.edge(t_us + 300 * (2 * i + 1), ch, 0)
            self.edge(t_us + 300 * (2 * i + 2), ch, 1)
        self.edge(t_us + hold_ms * 1000, ch, 0)

    def _edge(self, t, ch, level, mode):
        self._levels[ch] = level
        if level and not self.pio:
            self.pcnt[ch] += 1
        if self.pio:
            if ch == ARBITER:
                return  # BOOTSEL: no interrupt, the loop samples it
            fifo = self._fifo[ch]
            if len(fifo) >= self.c["pio_fifo"]:
                self.pio_lost += 1
            else:
                fifo.append((self.tick_at(t), level))
            return
        if not self._armed[ch]:
            return
        self._handler(_EDGE, ch, t, mode)

    def _handler(self, kind, ch, t, mode):
        """A soft handler (or the I2S callback) is due: run now, or queue for the window's end."""
        if kind == _AUDIO and self.drop_audio:  # a test's lost callback
            self.drop_audio -= 1
            self.audio.dropped += 1
            return
        if mode == IDLE or (mode == LOOP_WAIT and kind == _AUDIO):
            self._run(kind, ch, t)
            return
        if len(self._sched) >= self.c["sched_depth"]:
            self.sched_dropped += 1
            if self.audio is not None and kind == _AUDIO:
                self.audio.dropped += 1
            return
        self._sched.append((kind, ch))
        if len(self._sched) > self.sched_max:
            self.sched_max = len(self._sched)

    def _run(self, kind, ch, t):
        if kind == _AUDIO:
            if self.audio is not None:
                self.audio.taken()
            return
        # board/mcu.py's on_edge_once: the tick and the pin as they are now; then disarmed.
        self.ring.put(ch, self.tick_at(t), self._levels[ch])
        self._armed[ch] = 0

    def poll_inputs(self):
        """The loop's look at the inputs: PIO words into the ring (RP2040); pins re-armed (ESP32)."""
        for ch in range(3):
            fifo = self._fifo[ch]
            while fifo:
                tick, level = fifo.pop(0)
                self.ring.put(ch, tick, level)
            self._armed[ch] = 1

    def level(self, ch):
        return self._levels[ch]

    # ----- flash, serial, display -----------------------------------------------------

    def flash_op(self, kind, block, nbytes):
        """desktop/flash.py's on_op: an erase or a program, charged with interrupts off
        (RP2040) or the soft handlers held (ESP32)."""
        if kind == "erase":
            us = self.erase_us
            self.erases += 1
            self._pass_erases += 1
        else:
            # Page by page: the first byte's time, then each further byte's (datasheet tBP1,
            # tBP2): a whole 256-byte page comes to the page program time, tPP.
            page = self.c["page"]
            us = 0
            left = nbytes if nbytes > 0 else 1
            while left > 0:
                n = left if left < page else page
                us += self.c["byte1_us"] + (n - 1) * self.c["byte_ns"] // 1000
                left -= n
                self.programs += 1
        if self.on_flash is not None:
            self.on_flash(kind, us)
        self.flash_us += us
        self._pass_flash_us += us
        if us > self.longest_flash_us:
            self.longest_flash_us = us
        self.busy(us, IRQ_OFF if self.pio else SCHED_OFF)

    def host_reads(self, reading):
        """The host reads the serial line (True) or has stopped (False)."""
        self._line.update(self.us)
        self._line.reading = reading

    def line_drained(self):
        """The host had all the time it wanted (the desktop's virtual time stands still
        while it waits for input): what the FIFO held has gone."""
        if self._line.reading or not self._line.usb:
            self._line.used = 0

    def serial_ready(self):
        """select.poll's POLLOUT on the console: room for a piece (USB, goclock's image) or
        always (UART)."""
        return self._line.ready(self.us)

    def serial_write(self, n):
        """`n` bytes written to the console now: the count the line took (the rest is lost).
        A write that does not fit waits, as the chip's driver does."""
        line = self._line
        wait_us, took = line.write(self.us, n)
        if wait_us:
            self.busy(wait_us, LOOP_WAIT if line.usb else SCHED_OFF)
            line.update(self.us)
        return took

    def serial_figures(self):
        line = self._line
        return line.blocking_bytes, line.longest_wait_us

    def i2c_write(self, nbytes):
        """A blocking I2C write of `nbytes` (address byte included) to the display."""
        self.busy(nbytes * self.c["i2c_ns_per_byte"] // 1000, SCHED_OFF)


class _Line:
    """The console's transmit side: a FIFO the line (UART) or the host (USB) empties."""

    def __init__(self, c):
        self.usb = c["serial"] == "usb_cdc"
        self.size = c["tx_fifo"]
        self.pollout_room = 1
        if self.usb:
            self.byte_ns = 1000000 // c["usb_packet"]  # a packet a 1 ms frame
            self.timeout_us = c["usb_timeout_us"]
            self.pollout_room = c["usb_pollout_room"]
        else:
            self.byte_ns = 10 * 1000000000 // c["baud"]
        self.reading = True
        self.used = 0
        self._t_ns = 0
        self.blocking_bytes = 0  # bytes written while the FIFO had no room for them
        self.longest_wait_us = 0

    def update(self, us):
        now = us * 1000
        if self.used and (self.reading or not self.usb):
            n = (now - self._t_ns) // self.byte_ns
            if n >= self.used:
                self.used = 0
            elif n > 0:
                self.used -= n
                self._t_ns += n * self.byte_ns
                return
        if not self.used:
            self._t_ns = now

    def ready(self, us):
        self.update(us)
        return not self.usb or self.size - self.used >= self.pollout_room

    def write(self, us, n):
        self.update(us)
        room = self.size - self.used
        if n <= room:
            self.used += n
            return 0, n
        over = n - room
        self.blocking_bytes += over
        if self.usb and not self.reading:
            # MicroPython's CDC write waits for room up to its timeout, then writes what fits.
            # (The write says how much it took: the firmware keeps the rest for later.)
            wait = self.timeout_us
            self.used = self.size
            took = room
        else:
            # The FIFO empties byte by byte: wait until `over` bytes have gone.
            wait = (over * self.byte_ns + 999) // 1000
            self.used = self.size
            took = n
        if wait > self.longest_wait_us:
            self.longest_wait_us = wait
        return wait, took


class ModelI2S:
    """machine.I2S in non-blocking TX mode, on the model's timeline, for the real I2SPlayer.

    `write(buf)` queues the buffer behind what the internal buffer (`ibuf` bytes) holds; the
    callback is raised once the whole buffer is in it, and runs as a scheduled handler (at
    the end of a window that holds handlers; dropped by a full ESP32 queue). A buffer written
    from the callback after the sound already ran out is an underrun (a gap in the clip)."""

    def __init__(self, model, rate, ibuf=4096):
        self.model = model
        self.rate = rate
        self.ibuf_us = (ibuf // 2) * 1000000 // rate  # 16-bit mono
        self._cb = None
        self._end = 0  # µs at which all that was written has played
        self._in_cb = False
        self.buffers = 0
        self.underruns = 0
        self.longest_gap_us = 0
        self.dropped = 0  # callbacks a full scheduler queue dropped
        self.onset_due = None  # µs a call was due: its first buffer's start is its onset
        self.onsets = []  # ms late, per call
        model.audio = self

    def irq(self, handler):
        self._cb = handler

    def write(self, buf):
        m = self.model
        now = m.us
        gap = now - self._end
        if self._in_cb and gap > 0:
            self.underruns += 1
            if gap > self.longest_gap_us:
                self.longest_gap_us = gap
        start = self._end if self._end > now else now
        if self.onset_due is not None:
            self.onsets.append((start - self.onset_due) // 1000)
            self.onset_due = None
        self._end = start + (len(buf) // 2) * 1000000 // self.rate
        at = self._end - self.ibuf_us
        m.schedule(at if at > now else now, _AUDIO)
        self.buffers += 1
        return len(buf)

    def taken(self):
        if self._cb is not None:
            self._in_cb = True
            try:
                self._cb(self)
            finally:
                self._in_cb = False

    def deinit(self):
        self._cb = None
