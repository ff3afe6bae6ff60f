"""Where the heap goes on the emulated Pico: each firmware module's import, then the board
and the loop's objects, in bytes of the real rp2 port's heap (gc.mem_alloc() growth after
a gc.collect(), so only what stays).

A /main.py of its own (never deployed) imports the package's modules one at a time, leaves
first (a module's figure is what it adds: its own code and objects, its dependencies
counted before it), then makes the board and the Loop as goclockfw/boot.py does (the
session: buffers, the log's scan, the config) and stops before the loop runs. `--layout
mpy` has the bytecode in the heap (`goclock deploy`'s .mpy files left in /lib, as on a
stock image: this main.py does not call `boot.run`, whose first step would move them into
the ROMFS partition, goclockfw/inplace.py); `romfs` the same files
in the plain image's ROMFS partition (`goclock deploy --romfs`: the bytecode stays in
flash, what a .mpy still makes at import in the heap); `frozen`, in flash.

    python -m tools.rp2.heapmap [--layout mpy|romfs|frozen] [--image UF2] [--top 25]
"""

import argparse
import ast
import os
import sys
import tempfile

from .. import ROOT as REPO
from . import build, emu, layout, romfs

PKG = os.path.join(REPO, "firmware", "goclockfw")
LEFT_OUT = ("desktop", "scenario", "browser")  # boards/manifest.py's: never on a chip


def modules():
    """The package's chip modules, each after the goclockfw modules it imports at its top."""
    deps = {}
    for folder, dirs, files in os.walk(PKG):
        dirs[:] = sorted(d for d in dirs if d not in LEFT_OUT and d != "__pycache__")
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            rel = os.path.relpath(os.path.join(folder, f), os.path.dirname(PKG))[:-3]
            name = rel.replace(os.sep, ".")
            if name.endswith(".__init__"):
                name = name[: -len(".__init__")]
            with open(os.path.join(folder, f), encoding="utf-8") as fh:
                tree = ast.parse(fh.read())
            need = set()
            for node in tree.body:  # top level only: imports inside functions are lazy
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("goclockfw"):
                    need.add(node.module)
                    need.update("%s.%s" % (node.module, a.name) for a in node.names)
                elif isinstance(node, ast.Import):
                    need.update(a.name for a in node.names if a.name.startswith("goclockfw"))
            deps[name] = need
    order, seen = [], set()

    def visit(n):
        if n in seen or n not in deps:
            return
        seen.add(n)
        for d in sorted(deps[n]):
            visit(d)
        order.append(n)

    for n in sorted(deps):
        visit(n)
    return order


# What Loop(board) holds, by the call that made it (each one's lasting allocation).
PARTS = (
    "goclockfw.app.outbuf:OutBuffer.__init__",
    "goclockfw.protocol.commands:Protocol.__init__",
    "goclockfw.storage.configstore:ConfigStore.__init__",
    "goclockfw.storage.configstore:ConfigStore.load",
    "goclockfw.storage.chunks:ChunkPool.__init__",
    "goclockfw.storage.journal:Journal.load",
    "goclockfw.app.announcer:Announcer.load_pack",
    "goclockfw.board.mcu:McuBoard.make_player",
    "goclockfw.app.session:Session._set_clock",
    "goclockfw.app.records:Records.__init__",
    "goclockfw.app.buttons:Debouncer.__init__",
    "goclockfw.app.gestures:Gestures.__init__",
    "goclockfw.app.commands:Commands.__init__",
    "goclockfw.app.loop:Loop.__init__",
)

MAIN = """
import gc
import sys
gc.collect()
print("HEAP", gc.mem_free() + gc.mem_alloc(), gc.mem_alloc())
for m in %r:
    if sys.platform != "rp2" or not m.startswith("goclockfw.board.esp32"):
        gc.collect()
        a = gc.mem_alloc()
        try:
            __import__(m)
        except ImportError as e:
            print("SKIP", m, e)
            continue
        gc.collect()
        print("MOD", m, gc.mem_alloc() - a)
PARTS = %r
_kept = {}


def _part(name, f):
    def w(*a, **k):
        gc.collect()
        before = gc.mem_alloc()
        r = f(*a, **k)
        gc.collect()
        _kept[name] = _kept.get(name, 0) + gc.mem_alloc() - before
        return r
    return w


for spec in PARTS:
    mod, _, path = spec.partition(":")
    cls, _, meth = path.partition(".")
    obj = getattr(__import__(mod, None, None, ["x"]), cls)
    setattr(obj, meth, _part(spec, getattr(obj, meth)))
from goclockfw.boot import make_board
gc.collect()
a = gc.mem_alloc()
board = make_board()
gc.collect()
print("OBJ", "board (Rp2Board: pins, PIO, I2S and its buffer)", gc.mem_alloc() - a)
from goclockfw.app.loop import Loop
a = gc.mem_alloc()
lp = Loop(board)
gc.collect()
print("OBJ", "Loop(board): the session, its parts, the log's scan", gc.mem_alloc() - a)
for name in _kept:
    print("PART", name, _kept[name])
import sys
print("BOOTMODS", " ".join(sorted(k for k in sys.modules if k.startswith("goclockfw"))))
# What the modules' code holds as objects (frozen, most of what a module costs): the
# module-level names (a dict slot each), the functions defined at their top level, and
# their classes with the functions in each (a dict slot each; a function object in the
# heap too, unless patches 0007-0010 put it in flash: a frozen image's functions, and
# most of its classes' dicts).
_FUN = type(_part)
_names = _funs = _classes = _methods = 0
for _k in sys.modules:
    if _k.startswith("goclockfw"):
        _d = sys.modules[_k].__dict__
        _names += len(_d)
        for _v in _d.values():
            if type(_v) is _FUN and _v.__globals__ is _d:
                _funs += 1
            elif isinstance(_v, type):
                # Its own class: named for this module, or (a dict in flash, patch 0009,
                # has no __module__) holding a function of this module's.
                _own = [_x for _x in _v.__dict__.values() if type(_x) is _FUN]
                if getattr(_v, "__module__", None) == _k or (
                    _own and _own[0].__globals__ is _d
                ):
                    _classes += 1
                    _methods += len(_own)
print("CODE", _names, _funs, _classes, _methods)
gc.collect()
print("FREE", gc.mem_free())
# A game, its requests handed to the protocol as the serial line would, the loop stepping
# between them: what each leaves in the heap (after a gc.collect()).
import time
s = lp.session


def req(what, line, ms=300):
    gc.collect()
    a = gc.mem_alloc()
    s.out.used = s.out.head = 0  # the replies are not read here: the ring is emptied
    s.protocol.reply_to(line)
    end = time.ticks_add(time.ticks_ms(), ms)
    while time.ticks_diff(end, time.ticks_ms()) > 0:
        lp.step()
        s.out.used = s.out.head = 0
    gc.collect()
    print("GAME", what, gc.mem_alloc() - a)


for what, line in _GAME_:
    req(what, line.encode())
print("GAMEMODS", " ".join(sorted(k for k in sys.modules if k.startswith("goclockfw"))))
gc.collect()
print("GAMEFREE", gc.mem_free())
print("DONE")
"""
# The game of `run`: the requests a host sends, in order (the time control of measure.py).
GAME = (
    (
        "config.set",
        '{"id":1,"cmd":"config.set","config":{"time_control":{"type":"byoyomi",'
        '"main":3600,"periods":5,"period":30}}}',
    ),
    ("reset", '{"id":2,"cmd":"reset"}'),
    ("press (the start)", '{"id":3,"cmd":"press","side":"white"}'),
    ("press", '{"id":4,"cmd":"press","side":"black"}'),
    ("press", '{"id":5,"cmd":"press","side":"white"}'),
    ("press", '{"id":6,"cmd":"press","side":"black"}'),
    ("pause", '{"id":7,"cmd":"pause"}'),
    ("resume", '{"id":8,"cmd":"resume"}'),
    ("status", '{"id":9,"cmd":"status"}'),
    ("logs.list", '{"id":10,"cmd":"logs.list"}'),
    ("watch", '{"id":11,"cmd":"watch","on":true}'),
    ("press (watched)", '{"id":12,"cmd":"press","side":"white"}'),
    ("watch off", '{"id":13,"cmd":"watch","on":false}'),
)


def run(image, files, mods=None, rom=None):
    """The heap map of one boot; `mods` imported first (default: all, leaves first); `rom`
    the ROMFS image, if any."""
    mods = modules() if mods is None else mods
    with tempfile.TemporaryDirectory() as tmp:
        main = os.path.join(tmp, "heapmap_main.py")
        with open(main, "w") as f:
            f.write(MAIN.replace("_GAME_", repr(GAME)) % (mods, PARTS))
        files = [(s, d) for s, d in files if d != "/main.py"] + [(main, "/main.py")]
        root = os.path.join(tmp, "fs")
        layout.lay_out(files, root)
        pico = emu.Pico(image, emu.make_fs(root), romfs=rom)
    text = pico.text_until(("DONE", "Traceback"), 120)
    if "DONE" not in text:
        raise SystemExit("the heap map did not finish:\n" + text[-2000:])
    rows = []
    boot_mods = game_mods = []
    code = None
    total = used0 = free = game_free = 0
    for line in text.splitlines():
        parts = line.split(" ", 1)
        if parts[0] == "HEAP":
            total, used0 = (int(x) for x in parts[1].split())
        elif parts[0] in ("MOD", "OBJ"):
            name, n = parts[1].rsplit(" ", 1)
            rows.append((parts[0], name, int(n)))
        elif parts[0] in ("PART", "GAME"):
            name, n = parts[1].rsplit(" ", 1)
            rows.append((parts[0], name, int(n)))
        elif parts[0] == "BOOTMODS":
            boot_mods = parts[1].split()
        elif parts[0] == "GAMEMODS":
            game_mods = parts[1].split()
        elif parts[0] == "CODE":
            code = tuple(int(x) for x in parts[1].split())
        elif parts[0] == "FREE":
            free = int(parts[1])
        elif parts[0] == "GAMEFREE":
            game_free = int(parts[1])
    if code is None:  # never a count of zeros printed as if measured
        raise SystemExit("the heap map printed no CODE line:\n" + text[-2000:])
    return {
        "total": total,
        "before": used0,
        "rows": rows,
        "free": free,
        "boot": boot_mods,
        "code": code,
        "game": game_mods,
        "game_free": game_free,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--layout", choices=("mpy", "romfs", "frozen"), default="frozen")
    ap.add_argument("--image", help="the UF2 (default: built by tools/rp2/build.py)")
    ap.add_argument("--top", type=int, default=25, help="modules shown, largest first")
    args = ap.parse_args(argv)
    if args.layout == "frozen":
        image = args.image or build.build(os.path.join(REPO, "boards", "manifest.py"))
        files = layout.frozen_firmware_files()
    else:
        image = args.image or build.build()
        files = layout.firmware_files()
    rom = None
    if args.layout == "romfs":  # the package's .mpy files in the ROMFS partition
        files, rom = romfs.layout(files)
    r = run(image, files, rom=rom)
    alone = run(image, files, [], rom=rom)  # a boot's own imports, and its game
    r["boot"] = alone["boot"]
    mods = [row for row in r["rows"] if row[0] == "MOD"]
    objs = [row for row in r["rows"] if row[0] == "OBJ"]
    print("rp2 heap: %d B in all, %d B in use before main.py's imports" % (r["total"], r["before"]))
    print(
        "modules (%s layout): %d B for %d modules"
        % (args.layout, sum(m[2] for m in mods), len(mods))
    )
    for _, name, n in sorted(mods, key=lambda m: -m[2])[: args.top]:
        print("  %6d  %s" % (n, name))
    for _, name, n in objs:
        print("  %6d  %s" % (n, name))
    print("inside it, by the call that made it (Loop.__init__ holds the others):")
    for _, name, n in [row for row in r["rows"] if row[0] == "PART"]:
        print("  %6d  %s" % (n, name))
    boot = set(r["boot"])
    lazy = [m for m in mods if m[1] not in boot]
    print(
        "modules a boot does not import (%d B): %s"
        % (sum(m[2] for m in lazy), ", ".join(m[1] for m in lazy))
    )
    print(
        "a boot's modules hold %d module-level names, %d functions at their top level, "
        "%d classes with %d functions in them" % alone["code"]
    )
    print("free after the loop's set-up (no probe, no game): %d B" % r["free"])
    print("a boot importing only its own modules: %d B free (no probe, no game)" % alone["free"])
    print("then a game, each request and the loop's passes after it (what stays):")
    for _, name, n in [row for row in alone["rows"] if row[0] == "GAME"]:
        print("  %6d  %s" % (n, name))
    print("free in the game (no probe): %d B" % alone["game_free"])
    print("modules the game holds: %s" % " ".join(alone["game"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
