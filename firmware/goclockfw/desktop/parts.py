"""The desktop board's stand-ins for the speaker and the flash (desktop/board.py uses them).

The speaker tells the launcher (tools/sim.py) which clip to play, as a JSON
line on stdout, and is busy for the clip's length, read from its WAV header,
so the announcer queues and cuts calls as on a board. The flash is a
directory; GOCLOCK_FLASH_KB makes it as small as a board's, and a write past
that fails with ENOSPC, as a full littlefs does.
"""

import os

from goclockfw.core.ticks import ticks_add, ticks_diff
from goclockfw.storage.fs import ENOSPC, FS


class DesktopPlayer:
    """The speaker: tells the launcher which clip to play; busy for the clip's length."""

    def __init__(self, board, volume):
        self.board = board
        self.volume = volume
        self.error = None
        self._until = None

    def set_volume(self, level):
        self.volume = level

    def busy(self):
        return self._until is not None and ticks_diff(self._until, self.board.ticks()) > 0

    def stop(self):
        if self._until is not None:
            self._until = None
            self.board.console({"stop": 1})

    def play(self, what):
        self.stop()
        self.error = None
        if self.volume == 0:
            return False
        if isinstance(what, str):
            ms = self._clip_ms(what)
            if ms < 0:
                return False
            self.board.console({"play": what, "volume": self.volume})
        else:
            ms = 0
            for _, step in what:
                ms += step
            self.board.console({"beep": [list(s) for s in what]})
        self._until = ticks_add(self.board.ticks(), ms)
        return True

    def _clip_ms(self, path):
        from goclockfw.audio.player_i2s import read_header

        try:
            with open(path, "rb") as f:
                rate, width, channels, size = read_header(f)
        except (OSError, ValueError) as e:
            self.error = "%s: %s" % (path, e)
            return -1
        return size * 1000 // (rate * width * channels)


class _QuotaFile:
    """A file open for writing on a flash of limited size: a write past the end fails."""

    def __init__(self, f, fs):
        self._f = f
        self._fs = fs

    def write(self, data, n=None):
        size = len(data) if n is None else n
        if self._fs.used + size > self._fs.quota:
            raise OSError(ENOSPC)
        self._fs.used += size
        return self._f.write(data) if n is None else self._f.write(data, n)

    def __getattr__(self, name):
        return getattr(self._f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._f.close()


class DesktopFS(FS):
    """The flash as a directory; GOCLOCK_FLASH_KB makes it as small as a board's (full: ENOSPC)."""

    def __init__(self, root, quota):
        FS.__init__(self, root)
        self.quota = quota
        self.used = 0

    def _du(self, path):
        total = 0
        for entry in os.ilistdir(path):
            name, kind = entry[0], entry[1]
            if kind == 0x4000:
                total += self._du(path + "/" + name)
            else:
                total += os.stat(path + "/" + name)[6]
        return total

    def open(self, name, mode="r"):
        f = FS.open(self, name, mode)
        if self.quota <= 0 or ("w" not in mode and "a" not in mode):
            return f
        self.used = self._du(self.path(""))
        return _QuotaFile(f, self)

    def free(self):
        if self.quota <= 0:
            return FS.free(self)
        return self.quota - self._du(self.path(""))
