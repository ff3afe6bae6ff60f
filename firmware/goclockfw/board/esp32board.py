"""The ESP32 board (ESP32-DevKitC): BOOT (GPIO0) as the arbiter key, a divider on an ADC1 pin.

Everything else comes from board/mcu.py and the pin map in /board.json
(boards/esp32-devkitc.json). GPIO0 has an external pull-up on the DevKitC
and an interrupt like the player buttons. The battery is read through a
resistor divider into an ADC1 pin (ADC2 is taken by the radio), with the
11 dB attenuation and the factory calibration (`read_uv`).

The ESP32's pin interrupts are soft (served from MicroPython's scheduler) and a
pin is not watched between its first edge and the loop's next look (board/mcu.py),
so the loop's sleep is cut into WAKE_SLICE_MS pieces and ends once an edge waits in
the ring: the loop looks within a few ms, inside the debounce window, and a tap's
release is seen.

A running game erases nothing unless it has run out of erased log chunks
(`erases_while_running`, storage/journal.py). While the flash erases (the session's
storage work, `erasing`), the cache is off and
no soft handler runs: every edge meanwhile would queue one, and a bouncing button would
fill the scheduler's queue of 8 (the I2S callback shares it). So the button interrupts
are off during that work; after it, a pin whose level changed is recorded then, as its
handler would have been, and the others are watched again.

A tap wholly inside that work (down and up again while no handler could run) leaves no
level change behind. So each button pin also feeds one of the ESP32's pulse counters
(`esp32.PCNT`, MicroPython 1.26 and later), which count its falling edges in hardware
whatever the CPU does: one that counted a press during the work, on a pin that is up
again at its end, gives a press charged a debounce window before the work's end (never
before the work began; a finger is down longer than that), then the release at its end.
No press is lost; the tap is charged at worst at the end of the storage step, which
is one erase (45 ms typical, 400 ms at worst). Without the class (MicroPython 1.25) the
board says so in a notice and such a tap is lost, as before.
"""

import time

import esp32
import machine

from goclockfw.app.buttons import DEBOUNCE_MS
from goclockfw.board.mcu import McuBoard, load_board_file
from goclockfw.core.ticks import ticks_add, ticks_diff

WAKE_SLICE_MS = 5  # an edge ends the loop's sleep within this (app/buttons.py DEBOUNCE_MS: 10)
PCNT_FILTER = 1023  # 80 MHz ticks (12.8 us): a shorter spike on the wire is not a press


class Esp32Board(McuBoard):
    family = "esp32"
    # A press during an erase is seen only after it (soft interrupts): with the spares made
    # before a game, a running game erases only when it is down to its reserve.
    erases_while_running = False

    def __init__(self, spec):
        self._held = bytearray(3)  # 1 + the pin's level when `erasing` turned it off; 0: not
        self._counters: list = [None, None, None]  # each button's pulse counter (PCNT unit)
        self._erase_from = 0  # the tick `erasing(True)` was told
        super().__init__(spec)
        self._setup_counters()

    def _setup_counters(self):
        pcnt = getattr(esp32, "PCNT", None)
        if pcnt is None:
            if any(self._soft):
                self._note("no esp32.PCNT (MicroPython < 1.26): a tap inside an erase is lost")
            return
        for ch in range(3):
            pin = self._pins[ch]
            if pin is None or not self._soft[ch]:
                continue
            try:
                # Unit `ch` counts the pin's falling edges (a press: the pins pull up).
                c = pcnt(
                    ch, pin=pin, falling=pcnt.INCREMENT, rising=pcnt.IGNORE, filter=PCNT_FILTER
                )
                c.start()
            except (ValueError, OSError, TypeError) as e:
                self._note("pulse counter for button %d: %s" % (ch, e))
                continue
            self._counters[ch] = c

    def erasing(self, on):
        """The flash may erase from now (True) until told False (board/base.py)."""
        pins = self._pins
        armed = self._armed
        held = self._held
        counters = self._counters
        now = time.ticks_ms()
        if on:
            self._erase_from = now  # type: ignore[assignment]  # (the stubs type ticks apart)
        for ch in range(3):
            if not self._soft[ch]:
                continue
            counter = counters[ch]
            if on:
                if armed[ch]:
                    if counter is not None:
                        counter.value(0)  # presses counted from here
                    pins[ch].irq(handler=None)
                    armed[ch] = 0
                    held[ch] = 2 - pins[ch].value()  # 1 + the level (1 pressed)
            elif held[ch]:
                level = 1 - pins[ch].value()
                if level != held[ch] - 1:
                    self.ring.put(ch, now, level)  # the loop re-arms the pin
                elif level == 0 and counter is not None and counter.value():
                    # Pressed and let go while no handler ran: the press a window before
                    # the end (but not before the start), the release at the end.
                    at = ticks_add(now, -DEBOUNCE_MS)
                    if ticks_diff(at, self._erase_from) < 0:
                        at = self._erase_from
                    self.ring.put(ch, at, 1)
                    self.ring.put(ch, now, 0)
                else:
                    trigger = machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING
                    pins[ch].irq(handler=self._handlers[ch], trigger=trigger)
                    armed[ch] = 1
                held[ch] = 0

    def wait(self, ms):
        """Idle up to `ms`, but not past an edge waiting in the ring (the loop re-arms its pin)."""
        ring = self.ring
        while ms > 0 and ring.head == ring.tail:
            step = ms if ms < WAKE_SLICE_MS else WAKE_SLICE_MS
            time.sleep_ms(step)
            ms -= step

    def _flash(self):
        # The partition MicroPython mounts as / (littlefs), as its _boot.py finds it.
        return esp32.Partition.find(esp32.Partition.TYPE_DATA, label="vfs")[0]

    def _setup_battery(self, spec):
        if not isinstance(spec, dict):
            return
        try:
            self._adc = machine.ADC(machine.Pin(spec.get("pin", 34)), atten=machine.ADC.ATTN_11DB)
            self._divider = spec.get("divider", 2)
        except (ValueError, TypeError, OSError, AttributeError) as e:
            self._note("battery ADC: %s" % e)

    def battery_mv(self):
        if self._adc is None:
            return None
        return self._adc.read_uv() * self._divider // 1000


def make_board(path="board.json"):
    spec = load_board_file(path)
    if not spec:
        spec = {"board": "esp32-devkitc", "arbiter": 0}
    return Esp32Board(spec)
