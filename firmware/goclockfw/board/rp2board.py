"""The RP2040 board (Raspberry Pi Pico): PIO edge timers, BOOTSEL as the arbiter key, VSYS.

Everything else comes from board/mcu.py and the pin map in /board.json
(boards/pico.json). The player buttons are timed by PIO state machines
(board/edgetimer.py), which go on counting while a flash write stops the CPU:
the loop drains their words in `poll_inputs`. Where no state machine can be had
the pins fall back to interrupts. BOOTSEL is not a GPIO: `rp2.bootsel_button()`
reads it by briefly switching the flash off the bus, so it has no interrupt and
is sampled every SAMPLE_MS while a clock runs (a pause stops the clocks at the
first sample that sees the key down) and every IDLE_SAMPLE_MS otherwise.

The loop's sleep (`wait`) watches everything that has no interrupt of its own: it
sleeps on the USB serial line (a byte wakes it at once) in steps of the sampling
period, and between steps looks at BOOTSEL, the state machines' FIFOs and the edge
ring; it returns early only when one of them has news. So an idle clock costs a few
instructions per sample, not a pass of the whole loop.
"""

import time

import machine
import rp2

from goclockfw.app.buttons import ARBITER
from goclockfw.board.edgetimer import FREQ, EdgeClock, edge_timer
from goclockfw.board.mcu import McuBoard, load_board_file
from goclockfw.core.ticks import ticks_add, ticks_diff

# The RP2040's USB serial line, defined here (not imported) so that Rp2Board's class body
# binds only this module's constants: the frozen image then keeps its class dict in flash
# (tools/rp2/patches/0010). The chip model's board has the same figures
# (desktop/chipboard.py; tests/test_chip_model.py checks they agree).
#
# The output ring of a USB CDC line: it drains up to 512 bytes a pass while the host reads,
# so the lines a watched press makes (~0.5 KB) leave in the pass that made them; the ring
# holds a reply's room (app/outbuf.py REPLY_ROOM, 1 KB) and that much again (4.5 KB of
# heap back, against a UART's 6 KB). Lines for a host that stops reading wait here, and
# once it is full, event lines are dropped (counted), never a reply.
USB_SERIAL_RING = 1536
# On the Pico images this project builds, the USB CDC line says writable (POLLOUT) only
# with room for SEND_PIECE_USB bytes (tools/rp2/patches/0002) in a 512-byte TX FIFO
# (0006): a pass writes up to SEND_PIECES_USB such pieces, so a watched press's reply and
# event lines (~470 bytes) leave in the pass that made them, in two writes. (With 64-byte
# pieces and TinyUSB's default 256-byte FIFO they took 3 passes; each pass costs the loop
# a millisecond or more of CPU on an RP2040.)
SEND_PIECE_USB = 256
SEND_PIECES_USB = 2

FORWARD_MS = 5000  # how often the edge timers' references are moved on (poll_inputs)
SAMPLE_MS = 20  # BOOTSEL read this often while a clock runs; each read stalls the flash ~us
# ... and this often otherwise: a tap (resume) is down for 80 ms or more, a hold 2 s.
IDLE_SAMPLE_MS = 50
# State machines of PIO1 for the player buttons (MicroPython's I2S 0 takes PIO0).
EDGE_SMS = (4, 5)


class Rp2Board(McuBoard):
    family = "rp2"
    serial_ring = USB_SERIAL_RING  # the USB CDC line drains at full speed (board/base.py)
    send_piece = SEND_PIECE_USB  # POLLOUT means this much fits (tools/rp2/patches/0002)
    send_pieces = SEND_PIECES_USB

    def __init__(self, spec):
        self._bootsel = False
        self._bootsel_level = 0
        self._last_sample = 0
        self._forwarded = 0
        self._sample_ms = SAMPLE_MS
        self._sms = []  # (channel, StateMachine, EdgeClock)
        self._edge_prog = None
        McuBoard.__init__(self, spec)

    def _edge_timer(self, ch, pin):
        if self.spec.get("edge_timer", True) is False or len(self._sms) >= len(EDGE_SMS):
            return False
        try:
            if self._edge_prog is None:
                self._edge_prog = rp2.asm_pio(
                    in_shiftdir=rp2.PIO.SHIFT_LEFT, fifo_join=rp2.PIO.JOIN_RX
                )(edge_timer)
            sm = rp2.StateMachine(
                EDGE_SMS[len(self._sms)], self._edge_prog, freq=FREQ, in_base=pin, jmp_pin=pin
            )
            clock = EdgeClock(ticks_add, ticks_diff)
            clock.start(time.ticks_us())
            sm.active(1)
        except (ValueError, OSError, TypeError) as e:
            self._note("edge timer for button %d: %s (interrupts instead)" % (ch, e))
            return False
        self._sms.append((ch, sm, clock))
        return True

    def _flash(self):
        return rp2.Flash()  # the region MicroPython mounts as / (littlefs)

    def _setup_arbiter(self, spec):
        if spec == "bootsel":
            self._bootsel = True
        else:
            McuBoard._setup_arbiter(self, spec)

    def poll_inputs(self, now):
        McuBoard.poll_inputs(self, now)
        forward = ticks_diff(now, self._forwarded) >= FORWARD_MS
        if forward:
            self._forwarded = now
        for ch, sm, clock in self._sms:
            if forward:
                # The reference must stay within the us tick's reach (2**29 us, 9 min): a
                # look every few seconds does that (and `edge` moves it on itself).
                clock.forward(time.ticks_us())
            while sm.rx_fifo():
                now_us = time.ticks_us()
                tick, down = clock.edge(sm.get(), time.ticks_ms(), now_us)
                self.ring.put(ch, tick, down)
        if self._bootsel and ticks_diff(now, self._last_sample) >= self._sample_ms:
            self._last_sample = now
            self._bootsel_level = 1 if rp2.bootsel_button() else 0

    def wake_ms(self, running, now):
        self._sample_ms = SAMPLE_MS if running else IDLE_SAMPLE_MS
        return None  # `wait` returns for a button's edge, a BOOTSEL change or a byte

    def wait(self, ms):
        """Sleep up to `ms`, or until a byte, an edge or a BOOTSEL change is there."""
        if ms <= 0:
            return
        start = time.ticks_ms()
        ring = self.ring
        while True:
            step = self._sample_ms
            left = ms - ticks_diff(time.ticks_ms(), start)
            if left <= 0:
                return
            if left < step:
                step = left
            if self.watch_serial:  # the loop reads requests (board/base.py): a byte ends it
                for _ in self._ipoll_in(step):
                    return  # a request byte
            else:
                time.sleep_ms(step)
            if ring.head != ring.tail:
                return  # an interrupt's edge (a pin without a state machine)
            for _ch, sm, _clock in self._sms:
                if sm.rx_fifo():
                    return  # a state machine timed an edge
            if self._bootsel:
                self._last_sample = time.ticks_ms()  # type: ignore[assignment]  # (an int on the board)
                level = 1 if rp2.bootsel_button() else 0
                if level != self._bootsel_level:
                    self._bootsel_level = level
                    return

    def level(self, ch):
        if ch == ARBITER and self._bootsel:
            return self._bootsel_level
        return McuBoard.level(self, ch)

    def levels(self):
        v = McuBoard.levels(self)
        return v | self._bootsel_level << 2 if self._bootsel else v

    def _setup_battery(self, spec):
        # The Pico reads VSYS through a 1:3 divider on GPIO29 (ADC3). On a Pico W that pin
        # is also the radio's SPI clock: GP25 (the radio's chip select) must be high while
        # reading (`enable_pin`). `offset_mv` adds what a Schottky diode between the
        # battery and VSYS drops (boards/README.md, "Battery").
        if not isinstance(spec, dict):
            return
        try:
            self._adc_pin = spec.get("pin", 29)
            self._adc = machine.ADC(self._adc_pin)
            self._divider = spec.get("divider", 3)
            self._vref_mv = spec.get("vref_mv", 3300)
            self._offset_mv = spec.get("offset_mv", 0)
            enable = spec.get("enable_pin")
            self._enable = None if enable is None else machine.Pin(enable)
        except (ValueError, TypeError, OSError) as e:
            self._note("battery ADC: %s" % e)

    def battery_mv(self):
        if self._adc is None:
            return None
        if self._enable is not None:
            # Pico W: the radio's chip select high, so GPIO29 carries VSYS/3, not its clock
            # (the clock uses no radio; the LED, on the radio chip, is only set between reads).
            self._enable.init(machine.Pin.OUT, value=1)
        raw = self._adc.read_u16()
        return raw * self._vref_mv * self._divider // 65535 + self._offset_mv


def make_board(path="board.json"):
    spec = load_board_file(path)
    if not spec:
        spec = {"board": "pico", "arbiter": "bootsel", "led": "LED"}
    return Rp2Board(spec)
