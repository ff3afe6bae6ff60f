"""Freeze goclock into a custom MicroPython build (its bytecode then runs from flash, not RAM).

Loaded from .mpy files (`make flash`), the firmware's bytecode sits in the heap: about
100 KB of the 118 KB in use after boot on the unix port (64-bit; `make bench`). Frozen into
the firmware image it stays in flash and the heap after boot is what the app itself holds
(about 17 KB there), within the 40 KB a small board can spare. Build MicroPython with

    make -C ports/rp2 BOARD=RPI_PICO FROZEN_MANIFEST=/path/to/goclock/boards/manifest.py
    make -C ports/esp32 BOARD=ESP32_GENERIC FROZEN_MANIFEST=/path/to/goclock/boards/manifest.py

then copy only main.py, /board.json and the voice pack (the modules are in the image).
Not yet built here: this machine has no cross toolchains for the boards.
tests/test_boards_manifest.py keeps the list below in step with firmware/.
"""

include("$(PORT_DIR)/boards/manifest.py")  # noqa: F821 (manifest functions are given by makemanifest)

MODULES = (
    "announcer.py",
    "app.py",
    "app_api.py",
    "app_loop.py",
    "battery.py",
    "beep.py",
    "buttons.py",
    "callplan.py",
    "calls_en.py",
    "calls_jp.py",
    "checkpoint.py",
    "configstore.py",
    "deadlines.py",
    "display.py",
    "gameclock.py",
    "gamelog.py",
    "gestures.py",
    "hal_esp32.py",
    "hal_fs.py",
    "hal_mcu.py",
    "hal_rp2.py",
    "jsonline.py",
    "lineread.py",
    "logfile.py",
    "logline.py",
    "player_i2s.py",
    "player_pwm.py",
    "protocol.py",
    "reqargs.py",
    "sidetime.py",
    "ticks.py",
    "timecontrol.py",
)

for _name in MODULES:
    module(_name, base_path="../firmware")  # noqa: F821
