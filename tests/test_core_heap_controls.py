"""The new controls' tick and press paths allocate nothing, under micropython.heap_lock().

tests/test_firmware_heap.py proves it for the app as shipped (its default time control);
this runs the core alone under every control of issue 12: presses, calls fired by
`advance`, the hourglass settling both sides, the Fischer cap, the untimed hourly
rebase, Ing overtime running on across moves. Entering an Ing period is an event that
builds its phrase (like a byo-yomi period's call table), so the locked part stays
between those.
"""

import pytest

from conftest import run_micropython

DRIVER = r"""
import sys
import micropython
from goclockfw.core import gameclock, timecontrol
from goclockfw.core.ticks import ticks_add


class Quiet:
    def on_clock(self, kind, side, tick, value):
        pass


tc = timecontrol.parse(TC)
clock = gameclock.GameClock(tc, Quiet())
now = 0
clock.start(now)
# Warm up out of the lock: what is built once (call tables, an Ing period's phrase).
for i in range(WARM):
    now = ticks_add(now, STEP_MS)
    clock.advance(now)
    clock.press(now, clock.turn)
done = 0
micropython.heap_lock()
try:
    for i in range(40):
        now = ticks_add(now, STEP_MS)
        clock.advance(now)
        if clock.press(now, clock.turn):
            done += 1
    err = None
except MemoryError as e:
    err = "allocated"
micropython.heap_unlock()
print(err or "ok", done, clock.state)
"""

CASES = {
    "fischer_capped": ({"type": "fischer", "main": 20, "increment": 10, "max": 30}, 9500, 4),
    "hourglass": ({"type": "hourglass", "main": 600}, 2500, 4),
    "untimed": ({"type": "untimed"}, 3 * 3600 * 1000 + 17, 2),
    "ing_main": ({"type": "ing", "main": 3600, "periods": 3, "period": 600}, 11500, 4),
    "ing_overtime": ({"type": "ing", "main": 10, "periods": 3, "period": 600}, 12000, 2),
    "bronstein_per_move": (
        {"type": "delay", "main": 0, "delay": 15, "mode": "bronstein"},
        12000,
        4,
    ),
    "simple_delay": ({"type": "delay", "main": 600, "delay": 5, "mode": "simple"}, 8000, 4),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_press_and_tick_paths_allocate_nothing(name, micropython, tmp_path):
    tc, step, warm = CASES[name]
    script = tmp_path / "heap.py"
    script.write_text(
        DRIVER.replace("TC", repr(tc)).replace("WARM", str(warm)).replace("STEP_MS", str(step)),
        encoding="utf-8",
    )
    proc = run_micropython(micropython, str(script))
    assert proc.returncode == 0, proc.stderr.decode()
    result, presses, state = proc.stdout.decode().split()
    assert result == "ok"
    assert presses == "40" and state == "running"  # the game went on through all of them
