"""Flash blocks for the game logs: files of the file system, written raw, erased ahead.

Why not plain files. On a littlefs flash every synced append to a file, or rewrite of a
small file, can cost an erase of a 4 KB block (littlefs copies the file's last block on
the next write after a sync, and commits are padded to the program size: 256 bytes on the
Pico). An RP2040 erase stops the whole chip, interrupts included, for 45-400 ms; an
ESP32 erase stalls every interrupt handler that is not in IRAM. A clock that made each
press durable that way would erase two blocks per move, at the worst moments.

So the logs live in a pool of *chunks*: files of exactly one block (`logs/<nonce>`, 16
hex digits), which littlefs stores in one data block of their own and never touches
again. The file's first bytes are a header naming its nonce; the block is found on the
device by that header, and from then on the chunk is programmed raw, a page at a time,
through the board's block device: a page program takes about a millisecond and erases
nothing. A chunk is erased (raw, by this module) only to reuse it, and only when the
caller says the moment is quiet. littlefs keeps no checksum of file data, so its view
of the file is simply what the block holds.

A page is programmed whole (256 bytes, aligned, as the RP2040's flash needs), with 0xFF
wherever nothing new is written: programming a 1 bit leaves the cell as it is, so bytes
written before stay. This relies on NOR flash accepting more than one program of a page
between erases (the Pico's W25Q16 and the ESP32's flash do; see docs/storage.md).

The block device is the board's (rp2.Flash(), the ESP32's "vfs" partition, the desktop's
image file): readblocks(block, buf, offset), writeblocks(block, buf, offset) and ioctl
4 (block count), 5 (block size), 6 (erase), MicroPython's extended interface.
"""

import binascii
import os

from goclockfw.bytesops import copy, fill
from goclockfw.storage.fs import ENOSPC

DIR = "logs"
MAGIC = b"GCJ1 "
NAME_LEN = 16  # hex digits of a chunk's nonce, its file name
HEADER_LEN = 22  # b"GCJ1 " + 16 hex digits + b"\n"
PAGE = 256
ERASED = 0xFF  # an erased byte: programming it changes nothing


def _nonce(salt):
    """16 hex digits: random bytes, XORed with `salt` (a random source may repeat itself:
    an emulated RP2040's gives the same bytes every time)."""
    try:
        raw = bytearray(os.urandom(8))
    except (AttributeError, NotImplementedError):  # a port without a random source
        import random

        raw = bytearray(random.getrandbits(8) for _ in range(8))
    for k in range(4):
        raw[7 - k] ^= (salt >> (8 * k)) & 0xFF
    return binascii.hexlify(raw).decode()


CREATE_TRIES = 8


def _valid_name(n):
    if len(n) != 16:
        return False
    for ch in n:
        if ch not in "0123456789abcdef":
            return False
    return True


class ChunkPool:
    """The chunks of the logs directory, each a block programmed raw."""

    def __init__(self, fs, bdev, dirname=DIR):
        self.fs = fs
        self.bdev = bdev
        self.dir = dirname
        self.block_size = bdev.ioctl(5, 0) or 4096
        self.nblocks = bdev.ioctl(4, 0)
        # Each chunk's nonce (its file name), NAME_LEN hex digits after another's: 16 bytes a
        # chunk, where a str each held 48 (a full Pico's ~180 chunks: 2.9 KB against 8.6).
        self._names = bytearray()
        self.blocks = []  # its block on the device; -1 when not found (broken)
        self.erases = 0  # raw erases and chunk creations (each erases a block)
        self.programs = 0  # page programs
        # Two pages: a record across a page boundary is programmed in one call (one exit
        # from and return to execute-in-place on an RP2040, not two). Views made once.
        # Blank (erased bytes) between programs: a program writes its bytes in, then blanks
        # again only those (a fill; copies of two blank constants, 768 B of heap, did it before).
        self._pages = bytearray(2 * PAGE)
        fill(self._pages, 0, 2 * PAGE, ERASED)
        self._page = memoryview(self._pages)[0:PAGE]
        self._both = memoryview(self._pages)
        self._head = bytearray(HEADER_LEN)
        self._made = 0  # chunks made since boot: the salt of the next name

    # ----- the pool --------------------------------------------------------------

    def name(self, i):
        """Chunk `i`'s nonce, its file name (a new str)."""
        return bytes(self._names[NAME_LEN * i : NAME_LEN * (i + 1)]).decode()

    @property
    def names(self):
        """Every chunk's name, in index order (a new list: for tests and tools)."""
        return [self.name(i) for i in range(len(self))]

    def _has(self, name):
        b = name.encode()
        i = self._names.find(b)
        while i >= 0:
            if i % NAME_LEN == 0:
                return True
            i = self._names.find(b, i + 1)
        return False

    def scan(self):
        """Find every chunk's block: read the first bytes of each block of the device."""
        try:
            names = self.fs.listdir(self.dir)
        except OSError:
            self.fs.mkdir(self.dir)
            names = []
        names = sorted(n for n in names if _valid_name(n))
        self._names = bytearray(NAME_LEN * len(names))
        for i, n in enumerate(names):
            self._names[NAME_LEN * i : NAME_LEN * (i + 1)] = n.encode()
        names = None
        self.blocks = [-1] * len(self)
        self._locate(range(len(self)))

    def _locate(self, which):
        """Find the blocks of chunks `which`; returns how many blocks matched in all."""
        wanted = {}
        for i in which:
            wanted[MAGIC + self.name(i).encode() + b"\n"] = i
        if not wanted:
            return 0
        head = self._head
        found = 0
        for block in range(self.nblocks):
            self.bdev.readblocks(block, head, 0)
            if head[0] == 0x47:  # "G": the first byte of MAGIC; most blocks fail here
                i = wanted.get(bytes(head))
                if i is not None:
                    self.blocks[i] = block
                    found += 1
        return found

    def __len__(self):
        return len(self._names) // NAME_LEN

    def create(self):
        """A new chunk (an erase, and a file-system commit): only at a quiet moment.

        Returns its index, or raises OSError (ENOSPC when the flash is full).

        Its name must be found in exactly one block: a block of a deleted chunk keeps its
        header until reused, and a name that matches one (or a live chunk's) would make
        the chunk ambiguous. So a name is tried, and dropped for another if it is not
        unique, whatever the random source is worth."""
        for _ in range(CREATE_TRIES):
            self._made += 1
            name = _nonce(self._made)
            if self._has(name):
                continue
            i = self._create(name)
            if i is not None:
                return i
        raise OSError(5)  # no unique name: the random source and the salt both failed

    def _create(self, name):
        path = self.dir + "/" + name
        page = self._page
        try:
            with self.fs.open(path, "wb") as f:
                self._header_page(name.encode(), 0)
                self._write_all(f, page)
                fill(page, 0, PAGE, ERASED)
                for _ in range(self.block_size // PAGE - 1):
                    self._write_all(f, page)
        except OSError:
            try:
                self.fs.remove(path)
            except OSError:
                pass
            raise
        finally:
            fill(self._pages, 0, 2 * PAGE, ERASED)  # blank again, as `program` wants it
        self.erases += 1
        self._names.extend(name.encode())
        self.blocks.append(-1)
        i = len(self) - 1
        found = self._locate((i,))
        if found == 1:
            return i
        self.remove(i)
        if found == 0:
            raise OSError(5)  # the file system did not store it as one block of its own
        return None  # a stale block has this name too: another name

    def _write_all(self, f, buf):
        n = f.write(buf)
        if n is not None and n != len(buf):
            raise OSError(ENOSPC)

    def _header_page(self, name, at):
        """The page buffer: an erased page with the header of the name at `name[at:]`."""
        page = self._page
        fill(page, 0, PAGE, ERASED)
        copy(page, 0, MAGIC, 0, len(MAGIC))
        copy(page, len(MAGIC), name, at, NAME_LEN)
        page[HEADER_LEN - 1] = 10  # "\n"

    def remove(self, i):
        """Delete chunk `i` from the file system (a commit: quiet moments only).

        The shorter tables are made before the file goes, so that a MemoryError leaves the
        pool as it was (the file perhaps gone: the chunk is then broken, and dropped again)."""
        path = self.dir + "/" + self.name(i)
        names = self._names[: NAME_LEN * i] + self._names[NAME_LEN * (i + 1) :]
        blocks = self.blocks[:i] + self.blocks[i + 1 :]
        try:
            self.fs.remove(path)
        except OSError:
            pass
        self._names = names
        self.blocks = blocks

    # ----- one chunk ----------------------------------------------------------------

    def erase(self, i):
        """Erase chunk `i` back to its bare header (an erase: quiet moments only)."""
        block = self.blocks[i]
        # The header made ready before the erase: what may fail before what cannot be undone.
        self._header_page(self._names, NAME_LEN * i)
        self.bdev.ioctl(6, block)
        self.erases += 1
        try:
            self.bdev.writeblocks(block, self._page, 0)
        finally:
            fill(self._pages, 0, 2 * PAGE, ERASED)  # blank again, as `program` wants it
        self.programs += 1

    def program(self, i, offset, data, n=-1, lead=-1):
        """Program bytes `data[:n]` at `offset` of chunk `i` (erased bytes only); with
        `lead` (a byte value), that byte at `offset` and the data after it, in the same
        page programs."""
        if n < 0:
            n = len(data)
        block = self.blocks[i]
        pages = self._pages
        first = 1 if lead >= 0 else 0
        done = -first  # bytes of data programmed (-1: the lead byte is still to come)
        while done < n:  # two pages at a time (the usual record: one call), copied in place
            at = offset + first + done
            base = at - at % PAGE
            start = at - base
            two = start + n - done > PAGE and base + 2 * PAGE <= self.block_size
            count = (2 * PAGE if two else PAGE) - start
            written = start  # the bytes from here to start + count are blanked again
            if done < 0:
                pages[start] = lead
                done = 0
                start += 1
                count -= 1
            if count > n - done:
                count = n - done
            copy(pages, start, data, done, count)
            try:
                self.bdev.writeblocks(block, self._both if two else self._page, base)
            finally:
                fill(pages, written, start + count - written, ERASED)
            self.programs += 2 if two else 1
            done += count

    def read(self, i, offset, buf):
        """Fill `buf` from chunk `i` at `offset` (raw: what the block holds now)."""
        self.bdev.readblocks(self.blocks[i], buf, offset)
