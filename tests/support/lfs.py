"""littlefs-python (CPython) on a flash object: the FS interface the firmware's storage uses.

`LfsFS` gives storage/fs.py's FS interface over littlefs-python, with the errors
MicroPython's VfsLfs2 raises (OSError with the errno). Files open unbuffered in binary
mode, so write() goes straight to lfs_file_write and flush() to lfs_file_sync, as on the
boards. The block device is any object with MicroPython's block protocol (a NorFlash).
"""

from littlefs import LittleFS
from littlefs.context import UserContext
from littlefs.errors import LittleFSError

from goclockfw.storage.fs import FS


def _oserror(e):
    code = getattr(e, "code", None)
    return OSError(-code if isinstance(code, int) and code < 0 else 5, str(e))


class FlashContext(UserContext):
    """littlefs-python's block device callbacks, forwarded to a MicroPython block device."""

    def __init__(self, flash):
        self.flash = flash

    def read(self, cfg, block, off, size):
        buf = bytearray(size)
        self.flash.readblocks(block, buf, off)
        return buf

    # littlefs calls these from C: a failure is its error code (LFS_ERR_IO), not an exception.
    def prog(self, cfg, block, off, data):
        try:
            self.flash.writeblocks(block, bytes(data), off)
        except OSError:
            return -5
        return 0

    def erase(self, cfg, block):
        try:
            self.flash.ioctl(6, block)
        except OSError:
            return -5
        return 0

    def sync(self, cfg):
        return 0


class _File:
    """A littlefs-python file whose errors are OSErrors."""

    def __init__(self, f):
        self._f = f

    def __getattr__(self, name):
        attr = getattr(self._f, name)
        if not callable(attr):
            return attr

        def call(*args):
            try:
                return attr(*args)
            except LittleFSError as e:
                raise _oserror(e) from None
            except OSError as e:
                raise OSError(e.errno or 5, str(e)) from None

        return call

    def close(self):
        try:
            self._f.close()
        except (LittleFSError, OSError) as e:
            # littlefs forgets the file even when closing fails; mark it
            # closed so the garbage collector does not close it twice.
            raw = getattr(self._f, "raw", self._f)
            setattr(raw, "__IOBase_closed", True)
            raise _oserror(e) if isinstance(e, LittleFSError) else e from None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class LfsFS(FS):
    """storage/fs.py's FS over a littlefs-python file system."""

    def __init__(self, lfs):
        super().__init__("")
        self.lfs = lfs

    def _do(self, fn, *args):
        try:
            return fn(*args)
        except FileNotFoundError:
            raise OSError(2, "no such file") from None
        except FileExistsError:
            raise OSError(17, "exists") from None
        except LittleFSError as e:
            raise _oserror(e) from None

    def open(self, name, mode="r"):
        if "b" in mode and "r" not in mode:
            return _File(self._do(self.lfs.open, name, mode, 0))
        return _File(self._do(self.lfs.open, name, mode))

    def rename(self, old, new):
        self._do(self.lfs.rename, old, new)

    def remove(self, name):
        self._do(self.lfs.remove, name)

    def listdir(self, name=""):
        return self._do(self.lfs.listdir, name or "/")

    def mkdir(self, name):
        try:
            self._do(self.lfs.mkdir, name)
        except OSError as e:
            if e.errno != 17:
                raise

    def size(self, name):
        try:
            return self._do(self.lfs.stat, name).size
        except OSError:
            return -1

    def free(self):
        return (self.lfs.block_count - self.lfs.used_block_count) * self.lfs.cfg.block_size


def lfs_fs(flash, progsize, readsize, fresh=True, cache=None):
    """An LfsFS on `flash` with MicroPython's littlefs settings: caches of 4 x the program
    size, or `cache` bytes (a board file's `flash.cache`: the rp2 images this project builds,
    tools/rp2/patches/0011, one program page)."""
    cfg = dict(
        context=FlashContext(flash),
        block_size=flash.block_size,
        block_count=flash.block_count,
        prog_size=progsize,
        read_size=readsize,
        cache_size=cache or min(flash.block_size, 4 * max(progsize, readsize)),
        lookahead_size=32,
        mount=False,
    )
    lfs = LittleFS(**cfg)
    try:
        if fresh:
            lfs.format()
        lfs.mount()
    except LittleFSError as e:
        raise _oserror(e) from None
    return LfsFS(lfs)
