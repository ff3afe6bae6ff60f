"""Freeze goclock into a custom MicroPython build (its bytecode then runs from flash, not RAM).

Loaded from .mpy files (`make flash`), the firmware's bytecode sits in the heap; frozen into
the firmware image it stays in flash and the heap holds only what the app itself needs.
Build MicroPython with

    make -C ports/rp2 BOARD=RPI_PICO FROZEN_MANIFEST=/path/to/goclock/boards/manifest.py
    make -C ports/esp32 BOARD=ESP32_GENERIC FROZEN_MANIFEST=/path/to/goclock/boards/manifest.py

then copy only /main.py, /board.json and the voice pack (the package is in the image).
`make test-rp2` builds such an image for the Pico and boots it in an emulator.
The subpackages that never run on a chip (desktop/, scenario/, browser/) are left out; tests/test_packaging.py checks
that what is frozen is what `goclock deploy` copies. Frozen at mpy-cross's default level: a
deploy compiles with -O3 (no line-number tables: its .mpy bytecode sits in the heap), the
image keeps them, in flash, where they cost no heap and give tracebacks their line numbers.
"""

import os

include("$(PORT_DIR)/boards/manifest.py")  # noqa: F821 (manifest functions come from makemanifest)

# makemanifest runs a manifest from its own folder: boards/.
_BASE = os.path.abspath(os.path.join("..", "firmware"))
_LEFT_OUT = ("desktop", "scenario", "browser")


def _board_files():
    root = os.path.join(_BASE, "goclockfw")
    out = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _LEFT_OUT and d != "__pycache__")
        rel = os.path.relpath(folder, _BASE)
        out.extend(os.path.join(rel, n) for n in sorted(files) if n.endswith(".py"))
    return out


package("goclockfw", files=[f.split(os.sep, 1)[1] for f in _board_files()], base_path=_BASE)  # noqa: F821
