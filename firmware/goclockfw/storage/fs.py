"""Filesystem access for the storage modules, rooted at one directory.

Every board hands one `FS` to the config store, the game log and the
checkpoint store; they never import `os` themselves, so tests can give them a
littlefs image or a temporary directory instead of the board's flash.
Names are relative ("logs/00001.log"); "/" is the only separator.
Errors are the platform's OSError; callers decide what fails soft.
"""

import os
import sys

ENOENT = 2
ENOSPC = 28  # MicroPython's errno module has no ENOSPC; the value is POSIX's

# MicroPython streams take `write(buf, n)`: write a prefix without slicing.
_PREFIX_WRITE = sys.implementation.name == "micropython"


class FS:
    """Files under `root` ("" or "/" for the board's flash)."""

    def __init__(self, root=""):
        root = root.rstrip("/")
        self.root = root

    def path(self, name):
        if not name:
            return self.root or "/"
        return self.root + "/" + name if self.root else name

    def open(self, name, mode="r"):
        return open(self.path(name), mode)

    def rename(self, old, new):
        os.rename(self.path(old), self.path(new))

    def remove(self, name):
        os.remove(self.path(name))

    def listdir(self, name=""):
        return os.listdir(self.path(name))

    def mkdir(self, name):
        """Create a directory; an existing one is fine."""
        try:
            os.mkdir(self.path(name))
        except OSError:
            if self.size(name) < 0:
                raise

    def size(self, name):
        """Size in bytes, or -1 when the file does not exist."""
        try:
            return os.stat(self.path(name))[6]
        except OSError:
            return -1

    def free(self):
        """Bytes still free for files, or -1 when the platform cannot say."""
        try:
            st = os.statvfs(self.path(""))
            return st[1] * st[4]  # fragment size * blocks free for us
        except (OSError, AttributeError):
            return -1

    def write_prefix(self, f, buf, n):
        """Write the first n bytes of buf to f; return the count written."""
        if _PREFIX_WRITE:
            return f.write(buf, n)
        return f.write(memoryview(buf)[:n])

    def read(self, name):
        """Whole file as bytes, or None when it does not exist."""
        try:
            with self.open(name, "rb") as f:
                return f.read()
        except OSError:
            return None

    def write_atomic(self, name, data):
        """Replace `name` by `data` (bytes, or a tuple of bytes) so a power cut
        leaves the old or the new file.

        The new content goes to `name + ".new"`, is flushed and closed, then
        renamed over the old file (atomic on littlefs and POSIX). Where rename
        cannot replace (FAT), the old file is removed first: a reader then
        finds only the complete ".new" file, which `read_atomic` accepts.
        """
        tmp = name + ".new"
        # A tuple of chunks is written piece by piece, saving a joined copy.
        chunks = data if isinstance(data, tuple) else (data,)
        with self.open(tmp, "wb") as f:
            for chunk in chunks:
                n = f.write(chunk)
                if n is not None and n != len(chunk):
                    raise OSError(ENOSPC)
            f.flush()
        try:
            self.rename(tmp, name)
        except OSError:
            if self.size(name) < 0:
                raise
            self.remove(name)
            self.rename(tmp, name)

    def read_atomic(self, name, check):
        """Content of `name` that passes check(bytes) -> value (not None).

        Falls back to a complete `name + ".new"` left by an interrupted
        write_atomic. Returns (value, problem): value None when neither copy
        is usable; problem names what was wrong ("missing", or the message
        of the check's ValueError), None when the main copy was fine.
        """
        problem = "missing"
        for n in (name, name + ".new"):
            data = self.read(n)
            if data is None:
                continue
            try:
                value = check(data)
            except (ValueError, TypeError, KeyError, IndexError) as e:
                if n == name:
                    problem = str(e) or "damaged"
                continue
            return value, (None if n == name else problem)
        return None, problem
