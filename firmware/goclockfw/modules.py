"""Modules a running clock does not need: imported where they are used, let go after.

A module stays in the heap as long as `sys.modules` (or its package) holds it: with .mpy
files its bytecode, its constants and its objects; frozen into the image, its objects (a
dict, a function object per def, its classes). The boot's modules (the log's replay, the
config's checks) and those of rare commands (`config.set`, `presets.set`, `assign`,
`time.set`, the first `info`) are imported inside the functions that use them, never at
a module's top, and `release` lets them go once done: the next use imports them again.
What they intern (the names of a .mpy file) stays: MicroPython never frees a qstr.

Only under MicroPython, where the heap is the chip's: CPython (the host tool, the tests
that run the firmware in-process) keeps its modules, so no caller ever holds a module
that was replaced under it.
"""

import sys

# The boot's own: the game cut off replayed (app/replay.py), the config read and checked
# (storage/configcheck.py, with storage/netconfig.py), a logged adjustment replayed
# (core/adjust.py).
BOOT = (
    "goclockfw.app.replay",
    "goclockfw.storage.configcheck",
    "goclockfw.storage.netconfig",
    "goclockfw.core.adjust",
)
# The config's checks and the network's fields (storage/configstore.py reads the presets
# with them, when asked).
CONFIG_CHECKS = ("goclockfw.storage.configcheck", "goclockfw.storage.netconfig")
# A config or presets change: its shapes and the checks.
CONFIG = ("goclockfw.protocol.shapes",) + CONFIG_CHECKS

_MICROPYTHON = sys.implementation.name == "micropython"


def release(names):
    """Let the modules `names` (dotted, as imported) go: the heap they hold is collected
    once nothing else refers to them (no object of theirs is kept elsewhere)."""
    if not _MICROPYTHON:
        return
    mods = sys.modules
    for name in names:
        if name not in mods:
            continue
        del mods[name]
        parent, _, leaf = name.rpartition(".")
        pkg = mods.get(parent)
        if pkg is not None and hasattr(pkg, leaf):
            delattr(pkg, leaf)  # an import sets the module on its package too
