"""The firmware's storage modules on a real littlefs image, under CPython.

`LfsFS` gives firmware/hal_fs.FS's interface over littlefs-python, with the
errors MicroPython's VfsLfs2 raises (OSError with the errno). Files open
unbuffered in binary mode, so write() goes straight to lfs_file_write and
flush() to lfs_file_sync, as on the boards.

`PowerCutContext` is a block device that loses power after a given number of
program/erase operations: the operation that hits the cut is done only in
part (a random prefix of the bytes, as an interrupted NOR program), and every
later one is lost. The image as it stood at the cut is `snapshot`.
"""

import random

from littlefs import LittleFS
from littlefs.context import UserContext
from littlefs.errors import LittleFSError

from goclockfw.storage.fs import FS

BLOCK = 4096


def _oserror(e):
    code = getattr(e, "code", None)
    return OSError(-code if isinstance(code, int) and code < 0 else 5, str(e))


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

        return call

    def close(self):
        try:
            self._f.close()
        except LittleFSError as e:
            # littlefs forgets the file even when closing fails; mark it
            # closed so the garbage collector does not close it twice.
            raw = getattr(self._f, "raw", self._f)
            setattr(raw, "__IOBase_closed", True)
            raise _oserror(e) from None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class LfsFS(FS):
    """hal_fs.FS over a littlefs-python filesystem."""

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


class PowerCutContext(UserContext):
    """A RAM block device whose power goes at operation number `cut_at`."""

    def __init__(self, image, cut_at=None, seed=0):
        super().__init__(buffer=bytearray(image))
        self.ops = 0
        self.cut_at = cut_at
        self.dead = False
        self.snapshot = None
        self.rng = random.Random(seed)

    def _op(self):
        self.ops += 1
        if self.cut_at is not None and self.ops >= self.cut_at and not self.dead:
            self.dead = True
            return True
        return False

    def prog(self, cfg, block, off, data):
        if self.dead:
            return 0
        if self._op():
            part = self.rng.randrange(len(data) + 1)
            start = block * cfg.block_size + off
            self.buffer[start : start + part] = data[:part]
            self.snapshot = bytes(self.buffer)
            return 0
        return super().prog(cfg, block, off, data)

    def erase(self, cfg, block):
        if self.dead:
            return 0
        if self._op():
            # An erase cut short leaves the block neither old nor erased.
            start = block * cfg.block_size
            for i in range(start, start + cfg.block_size, 64):
                if self.rng.random() < 0.5:
                    self.buffer[i : i + 64] = b"\xff" * 64
            self.snapshot = bytes(self.buffer)
            return 0
        return super().erase(cfg, block)


def new_image(blocks):
    """A freshly formatted littlefs image of `blocks` blocks."""
    ctx = UserContext(buffsize=BLOCK * blocks)
    lfs = LittleFS(context=ctx, block_size=BLOCK, block_count=blocks)
    lfs.unmount()
    return bytes(ctx.buffer)


def mount(image, blocks, cut_at=None, seed=0):
    """(LfsFS, context) over a copy of `image`."""
    ctx = PowerCutContext(image, cut_at, seed)
    lfs = LittleFS(context=ctx, block_size=BLOCK, block_count=blocks, mount=False)
    lfs.mount()
    return LfsFS(lfs), ctx
