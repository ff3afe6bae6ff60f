"""A flash and its littlefs file system, as a board has them, for tests on either engine.

On MicroPython the unix port's own littlefs (os.VfsLfs2) is mounted on the flash; on
CPython littlefs-python runs on the same flash (support/lfs.py). Both with the Pico's
geometry by default: 4 KB blocks, programs of 256 bytes, so littlefs keeps files of up to
512 bytes inline, as on the board.
"""

import sys

from goclockfw.desktop.flash import NorFlash
from goclockfw.storage.fs import FS

BLOCK = 4096
PROGSIZE = 256
READSIZE = 32
_mounts = [0]


def flash_fs(blocks=64, flash=None, progsize=PROGSIZE, fresh=True):
    """(flash, FS): `flash` (a new RAM NorFlash of `blocks` blocks when None), formatted
    when `fresh` (else mounted as it is), with an FS over its file system."""
    if flash is None:
        flash = NorFlash(BLOCK, blocks)
    if sys.implementation.name == "micropython":
        import os

        opts = {"progsize": progsize, "readsize": READSIZE}
        if fresh:
            os.VfsLfs2.mkfs(flash, **opts)
        vfs = os.VfsLfs2(flash, **opts)
        _mounts[0] += 1
        point = "/fl%d" % _mounts[0]
        os.mount(vfs, point)
        return flash, FS(point)
    from support.lfs import lfs_fs

    return flash, lfs_fs(flash, progsize, READSIZE, fresh)


def release(fs):
    """Unmount an FS made by flash_fs under MicroPython (mounts are not freed otherwise)."""
    if sys.implementation.name == "micropython":
        import os

        try:
            os.umount(fs.root)
        except OSError:
            pass
