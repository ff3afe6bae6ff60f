"""A NOR flash that loses power at its N-th erase or page program (both engines).

The operation that meets the cut is done only in part, as on a real chip. How (`tear`):

    "prefix"  a program reaches the flash for a random prefix of its bytes;
    "bits"    the bytes it changes reach the flash in order up to a random one, which gets
              only some of its bits (a program stopped inside a byte);
    "noise"   every byte it changes gets a random part of its bits (the worst a program cut
              short can leave: a chip programs many bits at once, in no promised order).

An erase cut short leaves random 64-byte stretches erased and the rest as it was
("prefix", "bits"), or gives every byte random bits back ("noise": the chip's erase
pulses stopped half way). Then the flash is dead: every later write is ignored, without
an error (the code that runs on in the test would not run at all on a board whose power
is gone), so nothing it does after the cut reaches the flash; the test stops at `dead`.
`image()` is what a boot after the cut finds.

What a torn operation leaves depends only on the flash's seed, the operation's number and
the tear, never on what ran before: so a run cut at operation N and a replay of an uncut
run's operations up to N (`trace`, support/powercuts.py) give the same bytes.
"""

from goclockfw.desktop.flash import NorFlash

PROGRAM = 0
ERASE = 1
TEARS = ("prefix", "bits", "noise")


class Random:
    """A small LCG (the same numbers on both engines, no `random` module needed)."""

    def __init__(self, seed):
        self.state = (seed & 0x3FFFFFFF) or 1

    def __call__(self, k):
        self.state = (self.state * 1103515245 + 12345) & 0x7FFFFFFF
        return (self.state >> 4) % k


def tear_random(seed, op):
    """The numbers that decide how operation number `op` of a flash seeded `seed` tears."""
    return Random(seed * 1000003 + op * 7919 + 17)


def torn_program(ram, addr, data, rnd, tear):
    """Program `data` at `addr` of `ram` (a bytearray: the whole flash) as a cut leaves it."""
    n = len(data)
    if tear == "prefix":
        k = rnd(n + 1)
        for i in range(k):
            ram[addr + i] &= data[i]
        return
    changing = [i for i in range(n) if ram[addr + i] & ~data[i] & 0xFF]
    if not changing:
        return  # nothing it would change: the cut cannot show
    if tear == "bits":
        stop = changing[rnd(len(changing))]
        for i in range(stop):
            ram[addr + i] &= data[i]
        changing = [stop]
    for i in changing:
        clear = ram[addr + i] & ~data[i] & 0xFF  # the bits this program takes to 0
        ram[addr + i] &= ~(clear & rnd(256)) & 0xFF


def torn_erase(ram, addr, size, rnd, tear):
    """Erase `size` bytes at `addr` of `ram` as a cut leaves it."""
    if tear == "noise":
        for i in range(addr, addr + size):
            ram[i] |= rnd(256)
        return
    for i in range(addr, addr + size, 64):
        if rnd(2):
            ram[i : i + 64] = b"\xff" * 64


class CutFlash(NorFlash):
    def __init__(self, block_size, block_count, cut_at=0, seed=1, page=256, tear="prefix"):
        NorFlash.__init__(self, block_size, block_count, None, page)
        self.ops = 0
        self.cut_at = cut_at  # 0: never
        self.dead = False
        self.seed = seed or 1
        self.tear = tear
        self.trace = None  # a list: every operation is added to it, (PROGRAM, addr, bytes)
        self.on_trace = None  # called before each operation is done (its number in `ops`)

    def _hit(self):
        self.ops += 1
        if self.on_trace is not None:
            self.on_trace(self.ops)
        return self.cut_at and self.ops >= self.cut_at

    def writeblocks(self, block, buf, offset=None):
        if self.dead:
            return
        if offset is None:
            self.ioctl(6, block)
            offset = 0
            if self.dead:
                return
        addr = block * self.block_size + offset
        if self.trace is not None:
            self.trace.append((PROGRAM, addr, bytes(buf)))
        if self._hit():
            torn_program(self._ram, addr, buf, tear_random(self.seed, self.ops), self.tear)
            self.programs += 1
            self.dead = True
            return
        NorFlash.writeblocks(self, block, buf, offset)

    def ioctl(self, op, arg):
        if op == 6:
            if self.dead:
                return 0
            addr = arg * self.block_size
            if self.trace is not None:
                self.trace.append((ERASE, addr, self.block_size))
            if self._hit():
                rnd = tear_random(self.seed, self.ops)
                torn_erase(self._ram, addr, self.block_size, rnd, self.tear)
                self.erases += 1
                self.dead = True
                return 0
        return NorFlash.ioctl(self, op, arg)

    def load(self, image):
        """Start from `image` (bytes of a whole flash)."""
        self._ram[0 : len(image)] = image
