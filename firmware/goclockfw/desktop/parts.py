"""The desktop board's speaker (desktop/board.py uses it; the flash is desktop/flash.py).

The speaker tells the launcher (tools/termclock) which clip to play, as a JSON line on
stdout, and is busy for the clip's length, read from its WAV header by the players' own
parser (audio/wavhead.py: PCM or IMA ADPCM), so the announcer queues and cuts calls as on
a board, and a clip the clock's players would refuse is refused here too.
"""

from goclockfw.core.ticks import ticks_add, ticks_diff


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
        from goclockfw.audio.wavhead import read_header

        try:
            with open(path, "rb") as f:
                _, rate, frames, _ = read_header(f)
        except (OSError, ValueError) as e:
            self.error = "%s: %s" % (path, e)
            return -1
        return frames * 1000 // rate if rate > 0 else 0
