"""A NOR flash for the desktop board and the tests: the chip's block device, in RAM or a file.

It speaks MicroPython's extended block protocol (readblocks, writeblocks with an offset,
ioctl 4/5/6), so the unix port's real littlefs (os.VfsLfs2) runs on it exactly as on a
board, with the board's geometry (boards/<board>.json "flash"), and the log chunks
(storage/chunks.py) program it raw as they program rp2.Flash(). It behaves like NOR: an
erase sets a block to 0xFF, a program can only clear bits (new = old AND data), so code
that programmed over written bytes would see them damaged here, not silently replaced.

Every erase and page program is counted, and told to `on_op(kind, block, nbytes)` when
one is set: the chip cost model (desktop/chipmodel.py) charges their time to the timeline.
"""

import sys

_MICROPYTHON = sys.implementation.name == "micropython"
ERASE = "erase"
PROGRAM = "program"
BLOCK_COUNT = 4
BLOCK_SIZE = 5
BLOCK_ERASE = 6


class NorFlash:
    def __init__(self, block_size, block_count, path=None, page=256):
        self.block_size = block_size
        self.block_count = block_count
        self.page = page
        self.erases = 0
        self.programs = 0  # page programs (a write spanning two pages counts two)
        self.on_op = None
        self._file = None
        self._ram = None
        size = block_size * block_count
        if path is None:
            self._ram = bytearray(b"\xff" * size)
            return
        try:
            f = open(path, "r+b")
        except OSError:
            f = open(path, "w+b")
        f.seek(0, 2)
        have = f.tell()
        blank = b"\xff" * 4096
        while have < size:  # a new or short image: the rest is erased flash
            n = size - have if size - have < len(blank) else len(blank)
            f.write(blank[:n])
            have += n
        f.flush()
        self._file = f
        self._tmp = bytearray(page)

    # ----- raw access ---------------------------------------------------------

    def _read(self, addr, buf):
        if self._ram is not None:
            n = len(buf)
            buf[0:n] = self._ram[addr : addr + n]
            return
        self._file.seek(addr)
        self._file.readinto(buf)

    def _and(self, addr, data):
        n = len(data)
        if _MICROPYTHON:
            # A byte loop: slow next to C, but it allocates nothing, so the firmware's own
            # allocation can be measured through this flash (tests/test_storage_mpy.py).
            if self._ram is not None:
                ram = self._ram
                for i in range(n):
                    ram[addr + i] &= data[i]
                return
            tmp = self._tmp if n <= len(self._tmp) else bytearray(n)
            self._file.seek(addr)
            self._file.readinto(tmp)
            for i in range(n):
                tmp[i] &= data[i]
            self._file.seek(addr)
            self._file.write(tmp if n == len(tmp) else memoryview(tmp)[:n])
            self._file.flush()
            return
        # CPython (tests): as big integers, to keep littlefs-python fast on this flash.
        if self._ram is not None:
            old = self._ram[addr : addr + n]
        else:
            old = bytearray(n)
            self._file.seek(addr)
            self._file.readinto(old)
        if old == b"\xff" * n:
            new = data  # programming erased bytes: the data, as it is
        else:
            new = (int.from_bytes(old, "big") & int.from_bytes(bytes(data), "big")).to_bytes(
                n, "big"
            )
        if self._ram is not None:
            self._ram[addr : addr + n] = new
        else:
            self._file.seek(addr)
            self._file.write(new)
            self._file.flush()

    def _erase(self, block):
        addr = block * self.block_size
        if self._ram is not None:
            self._ram[addr : addr + self.block_size] = b"\xff" * self.block_size
        else:
            self._file.seek(addr)
            self._file.write(b"\xff" * self.block_size)
            self._file.flush()
        self.erases += 1
        if self.on_op is not None:
            self.on_op(ERASE, block, self.block_size)

    # ----- the block protocol ----------------------------------------------------

    def readblocks(self, block, buf, offset=0):
        self._read(block * self.block_size + offset, buf)

    def writeblocks(self, block, buf, offset=None):
        if offset is None:  # the simple protocol: erase, then program the whole block
            self._erase(block)
            offset = 0
        addr = block * self.block_size + offset
        n = len(buf)
        pages = (addr + n - 1) // self.page - addr // self.page + 1 if n else 0
        self._and(addr, buf)
        self.programs += pages
        if self.on_op is not None:
            self.on_op(PROGRAM, block, n)

    def ioctl(self, op, arg):
        if op == BLOCK_COUNT:
            return self.block_count
        if op == BLOCK_SIZE:
            return self.block_size
        if op == BLOCK_ERASE:
            self._erase(arg)
            return 0
        return 0

    def image(self):
        """The whole flash as bytes (for tests and for mounting it elsewhere)."""
        buf = bytearray(self.block_size * self.block_count)
        self._read(0, buf)
        return bytes(buf)

    def close(self):
        if self._file is not None:
            self._file.close()
            self._file = None
