"""The browser board's flash: files in the page's memory, and the block device of the game logs.

The WebAssembly port has no littlefs, only a POSIX file system over the page's in-memory
files (Emscripten's), which the page saves to IndexedDB. The storage code wants what a
flash under littlefs gives it (storage/chunks.py): a log chunk is a file of exactly one
block that the file system keeps in a block of its own; the chunk pool finds that block on
the device by the chunk's header and from then on programs it raw. Here the block device
is a view of those files: each chunk file of the logs directory is given a block number
when the device is first read after the file appeared, and reading, programming or
erasing that block reads, programs or erases the file. A program behaves as on NOR flash
(new = old AND data: code that programmed over written bytes would see them damaged, as
on the chip). A removed chunk's block reads as erased.

`BrowserFS` notes every file it writes, renames or removes, and the block device every
chunk it programs or erases: after each loop pass the page saves exactly those files to
IndexedDB in one transaction, so a reload finds the flash as some pass left it, the way a
power cut leaves a board's flash between two writes.
"""

from goclockfw.storage.chunks import DIR
from goclockfw.storage.fs import FS

BLOCK_SIZE = 4096
BLOCKS = 352  # the Pico's flash file system: 1408 KB in 4 KB blocks
META_BLOCKS = 2  # what littlefs keeps for its own metadata, not free for files
BLOCK_COUNT = 4
BLOCK_SIZE_OP = 5
BLOCK_ERASE = 6


class BrowserFS(FS):
    """storage/fs.py's FS under `root`, counting its space as a flash of BLOCKS blocks and
    noting which files changed (`take_changed`)."""

    def __init__(self, root, block_size=BLOCK_SIZE, blocks=BLOCKS):
        super().__init__(root)
        self.block_size = block_size
        self.blocks = blocks
        self.changes = 0  # bumped whenever a file appears, goes or is renamed
        self.changed = set()  # paths written or removed since the page last saved

    def note(self, path):
        self.changed.add(path)

    def take_changed(self):
        paths = sorted(self.changed)
        self.changed = set()
        return paths

    def open(self, name, mode="r"):
        if "w" in mode or "a" in mode or "+" in mode:
            self.changes += 1
            self.note(self.path(name))
        return super().open(name, mode)

    def rename(self, old, new):
        self.changes += 1
        self.note(self.path(old))
        self.note(self.path(new))
        super().rename(old, new)

    def remove(self, name):
        self.changes += 1
        self.note(self.path(name))
        super().remove(name)

    def used_blocks(self, name=""):
        """Blocks the files under `name` take, each file a whole number of blocks."""
        import os

        n = 0
        for entry in self.listdir(name):
            rel = name + "/" + entry if name else entry
            st = os.stat(self.path(rel))
            if st[0] & 0x4000:  # a directory
                n += self.used_blocks(rel)
            else:
                n += (st[6] + self.block_size - 1) // self.block_size
        return n

    def free(self):
        try:
            used = self.used_blocks() + META_BLOCKS
        except OSError:
            return -1
        left = self.blocks - used
        return left * self.block_size if left > 0 else 0


class ChunkFiles:
    """The block device the log chunks program: block numbers shown for the chunk files."""

    def __init__(self, fs, dirname=DIR):
        self.fs = fs
        self.dir = fs.path(dirname)
        self.block_size = fs.block_size
        self.block_count = fs.blocks
        self.erases = 0
        self.programs = 0
        self._file = [None] * fs.blocks  # the chunk file (path) each block shows, or None
        self._seen = -1  # fs.changes when the blocks were last matched to the files
        self._old = bytearray(256)

    def _match(self):
        fs = self.fs
        if fs.changes == self._seen:
            return
        self._seen = fs.changes
        import os

        try:
            names = sorted(os.listdir(self.dir))
        except OSError:
            names = []
        present = set()
        for n in names:
            path = self.dir + "/" + n
            try:
                if os.stat(path)[6] == self.block_size:
                    present.add(path)
            except OSError:
                pass
        files = self._file
        for b in range(len(files)):
            if files[b] is not None and files[b] not in present:
                files[b] = None  # the chunk was removed: its block reads as erased
        shown = set(f for f in files if f is not None)
        free = 0
        for path in sorted(present):
            if path in shown:
                continue
            while free < len(files) and files[free] is not None:
                free += 1
            if free == len(files):
                break  # more chunks than the flash has blocks: the rest are never found
            files[free] = path

    def readblocks(self, block, buf, offset=0):
        self._match()
        path = self._file[block]
        n = len(buf)
        if path is None:
            for i in range(n):
                buf[i] = 0xFF
            return
        with open(path, "rb") as f:
            f.seek(offset)
            got = f.readinto(buf)
        for i in range(got or 0, n):
            buf[i] = 0xFF

    def writeblocks(self, block, buf, offset=None):
        if offset is None:  # the simple protocol: erase, then program the whole block
            self.ioctl(BLOCK_ERASE, block)
            offset = 0
        self._match()
        path = self._file[block]
        if path is None:
            return  # programming a block no file holds: nothing shows it
        n = len(buf)
        old = self._old if n <= len(self._old) else bytearray(n)
        with open(path, "r+b") as f:
            f.seek(offset)
            f.readinto(old)
            for i in range(n):
                old[i] &= buf[i]
            f.seek(offset)
            f.write(old, n)
        self.programs += 1
        self.fs.note(path)

    def ioctl(self, op, arg):
        if op == BLOCK_COUNT:
            return self.block_count
        if op == BLOCK_SIZE_OP:
            return self.block_size
        if op == BLOCK_ERASE:
            self._match()
            path = self._file[arg]
            if path is not None:
                with open(path, "r+b") as f:
                    f.write(b"\xff" * self.block_size)
                self.fs.note(path)
            self.erases += 1
            return 0
        return 0
