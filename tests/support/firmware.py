"""The real firmware under the MicroPython unix port on the desktop board, for tests.

The launcher is goclock.unixport's `Firmware` (the one `make sim` uses): a pty for the
serial line, the keys on stdin, console lines on stdout. Tests use virtual time (the
clock moves only with "!wait N"), so every tick they check is exact. The flash is an
image file in the folder given; `flash_journal` reads it back on CPython with the
firmware's own storage code.
"""

import base64
import os

from goclock.unixport import Firmware
from goclockfw.desktop.flash import NorFlash
from goclockfw.storage.chunks import ChunkPool
from goclockfw.storage.journal import Journal
from support.flashfs import BLOCK, flash_fs


def boot(flash, virtual=True, env=None, **kw):
    """A started firmware whose loop has run once; console lines of the boot in `fw.boot`."""
    e = {"GOCLOCK_VIEW": "0"}
    e.update(env or {})
    fw = Firmware(str(flash), virtual=virtual, env=e, **kw)
    fw.boot = fw.wait(0) if virtual else fw.lines(0.5)
    return fw


def set_tc(fw, tc):
    """Configure a time control and reset to it (both over the serial line, virtual time):
    the console lines of the set-up (the reset is announced, 重新开局), taken."""
    r = fw.request({"cmd": "config.set", "config": {"time_control": tc}})
    assert r["ok"], r
    r = fw.request({"cmd": "reset"})
    assert r["ok"], r
    return fw.wait(0)


def status(fw):
    r = fw.request({"cmd": "status"})
    assert r["ok"], r
    return r


def said(lines):
    return [x["say"] for x in lines if isinstance(x, dict) and "say" in x]


def notices(lines):
    return [x["notice"] for x in lines if isinstance(x, dict) and "notice" in x]


def tap(fw, button, hold_ms=50):
    """Press and release a button (left/right/arbiter) in virtual time."""
    fw.keys("!down %s\n" % button)
    out = fw.wait(hold_ms)
    fw.keys("!up %s\n" % button)
    return out + fw.wait(20)


def flash_journal(flash_dir):
    """The game logs on a (stopped) firmware's flash image, read with the firmware's code."""
    path = os.path.join(str(flash_dir), "flash.img")
    with open(path, "rb") as f:
        image = f.read()
    flash = NorFlash(BLOCK, len(image) // BLOCK)
    flash._ram[:] = image
    fs = flash_fs(flash=flash, fresh=False)[1]
    j = Journal(ChunkPool(fs, flash))
    j.load()
    return j


def flash_file(flash_dir, name, data, blocks=352):
    """Put a file into a firmware's flash image (made, with the Pico's geometry, if missing)."""
    path = os.path.join(str(flash_dir), "flash.img")
    os.makedirs(str(flash_dir), exist_ok=True)
    fresh = not os.path.exists(path)
    flash = NorFlash(BLOCK, blocks, path)
    fs = flash_fs(flash=flash, fresh=fresh)[1]
    with fs.open(name, "wb") as f:
        f.write(data)
    fs.lfs.unmount()
    flash.close()


def log_bytes(flash_dir, game):
    """A game's log from a stopped firmware's flash."""
    return flash_journal(flash_dir).read(game, 0, 1 << 24)[0]


def pull_log(fw, game):
    """A game's log over the serial line, chunk by chunk (as goclock logs pull reads it)."""
    data = b""
    while True:
        r = fw.request({"cmd": "logs.get", "game": game, "offset": len(data)})
        assert r["ok"], r
        data += base64.b64decode(r["data"])
        if r["eof"]:
            return data
