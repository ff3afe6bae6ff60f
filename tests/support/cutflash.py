"""A NOR flash that loses power at its N-th erase or page program (both engines).

The operation that meets the cut is done only in part, as on a real chip: a program
writes a random prefix of its bytes, an erase leaves random 64-byte stretches erased.
Then the flash is dead: every later write is ignored, without an error (the code that
runs on in the test would not run at all on a board whose power is gone), so nothing it
does after the cut reaches the flash; the test stops at `dead`. `image()` is what a boot
after the cut finds.
"""

from goclockfw.desktop.flash import NorFlash


class CutFlash(NorFlash):
    def __init__(self, block_size, block_count, cut_at=0, seed=1, page=256):
        NorFlash.__init__(self, block_size, block_count, None, page)
        self.ops = 0
        self.cut_at = cut_at  # 0: never
        self.dead = False
        self._rnd = seed or 1

    def _rand(self, k):
        self._rnd = (self._rnd * 1103515245 + 12345) & 0x7FFFFFFF
        return self._rnd % k

    def _hit(self):
        self.ops += 1
        return self.cut_at and self.ops >= self.cut_at

    def writeblocks(self, block, buf, offset=None):
        if self.dead:
            return
        if offset is None:
            self.ioctl(6, block)
            offset = 0
            if self.dead:
                return
        if self._hit():
            k = self._rand(len(buf) + 1)
            NorFlash.writeblocks(self, block, memoryview(buf)[:k], offset)
            self.dead = True
            return
        NorFlash.writeblocks(self, block, buf, offset)

    def ioctl(self, op, arg):
        if op == 6:
            if self.dead:
                return 0
            if self._hit():
                a = arg * self.block_size
                ram = self._ram
                for i in range(a, a + self.block_size, 64):
                    if self._rand(2):
                        ram[i : i + 64] = b"\xff" * 64
                self.erases += 1
                self.dead = True
                return 0
        return NorFlash.ioctl(self, op, arg)

    def load(self, image):
        """Start from `image` (bytes of a whole flash)."""
        self._ram[0 : len(image)] = image
