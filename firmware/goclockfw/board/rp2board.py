"""The RP2040 board (Raspberry Pi Pico): BOOTSEL as the arbiter key, VSYS on an ADC.

Everything else comes from board/mcu.py and the pin map in /board.json
(boards/pico.json). BOOTSEL is not a GPIO: `rp2.bootsel_button()` reads it by
briefly switching the flash off the bus, so it has no interrupt and is
sampled by the loop (`poll_inputs`), every SAMPLE_MS at most; the debouncer
(app/buttons.py) turns the samples into presses. The arbiter key needs no
millisecond timing: it pauses at the first sample that sees it down.
"""

import machine
import rp2

from goclockfw.app.buttons import ARBITER
from goclockfw.board.mcu import McuBoard, load_board_file
from goclockfw.core.ticks import ticks_diff

SAMPLE_MS = 5  # how often BOOTSEL is read; each read stalls the flash for a few us


class Rp2Board(McuBoard):
    family = "rp2"

    def __init__(self, spec):
        self._bootsel = False
        self._bootsel_level = 0
        self._last_sample = 0
        McuBoard.__init__(self, spec)

    def _flash(self):
        return rp2.Flash()  # the region MicroPython mounts as / (littlefs)

    def _setup_arbiter(self, spec):
        if spec == "bootsel":
            self._bootsel = True
        else:
            McuBoard._setup_arbiter(self, spec)

    def poll_inputs(self, now):
        if self._bootsel and ticks_diff(now, self._last_sample) >= SAMPLE_MS:
            self._last_sample = now
            self._bootsel_level = 1 if rp2.bootsel_button() else 0

    def next_input_ms(self, now):
        return SAMPLE_MS if self._bootsel else None

    def level(self, ch):
        if ch == ARBITER and self._bootsel:
            return self._bootsel_level
        return McuBoard.level(self, ch)

    def _setup_battery(self, spec):
        # The Pico reads VSYS through a 1:3 divider on GPIO29 (ADC3).
        if not isinstance(spec, dict):
            return
        try:
            self._adc = machine.ADC(spec.get("pin", 29))
            self._divider = spec.get("divider", 3)
            self._vref_mv = spec.get("vref_mv", 3300)
        except (ValueError, TypeError, OSError) as e:
            self._note("battery ADC: %s" % e)

    def battery_mv(self):
        if self._adc is None:
            return None
        raw = self._adc.read_u16()
        return raw * self._vref_mv * self._divider // 65535


def make_board(path="board.json"):
    spec = load_board_file(path)
    if not spec:
        spec = {"board": "pico", "arbiter": "bootsel", "led": "LED"}
    return Rp2Board(spec)
