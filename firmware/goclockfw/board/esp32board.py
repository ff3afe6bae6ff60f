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
"""

import time

import esp32
import machine

from goclockfw.board.mcu import McuBoard, load_board_file

WAKE_SLICE_MS = 5  # an edge ends the loop's sleep within this (app/buttons.py DEBOUNCE_MS: 10)


class Esp32Board(McuBoard):
    family = "esp32"
    # A press during an erase is seen only after it (soft interrupts): with the spares made
    # before a game, a running game erases only when it is down to its reserve.
    erases_while_running = False

    def __init__(self, spec):
        self._held = bytearray(3)  # 1 + the pin's level when `erasing` turned it off; 0: not
        super().__init__(spec)

    def erasing(self, on):
        """The flash may erase from now (True) until told False (board/base.py)."""
        pins = self._pins
        armed = self._armed
        held = self._held
        for ch in range(3):
            if not self._soft[ch]:
                continue
            if on:
                if armed[ch]:
                    pins[ch].irq(handler=None)
                    armed[ch] = 0
                    held[ch] = 2 - pins[ch].value()  # 1 + the level (1 pressed)
            elif held[ch]:
                level = 1 - pins[ch].value()
                if level != held[ch] - 1:
                    self.ring.put(ch, time.ticks_ms(), level)  # the loop re-arms the pin
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
