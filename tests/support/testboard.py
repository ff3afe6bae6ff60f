"""The tests' board for a session (board/base.py's interface, the session's part of it): the
flash given, the repository's voice packs, a speaker that records what it is asked to play
(on both engines)."""

from goclockfw.board.base import Board


def _sounds():
    here = __file__ if "/" in __file__ else "./" + __file__
    return here.rsplit("/", 3)[0] + "/sounds"  # <repo>/tests/support/testboard.py -> <repo>/sounds


class RecordingPlayer:
    """A speaker: remembers what it played; busy for `busy_ms` after each start."""

    def __init__(self, volume):
        self.volume = volume
        self.played = []
        self.error = None
        self._busy = False

    def set_volume(self, level):
        self.volume = level

    def busy(self):
        return self._busy

    def stop(self):
        self._busy = False

    def play(self, what):
        self.played.append(what)
        return True


class TestBoard(Board):
    __test__ = False  # a board, not a class of tests for pytest to collect
    family = "test"
    name = "test"

    def __init__(self, fs, flash, sounds=None, player=True):
        Board.__init__(self)
        self.fs = fs
        self.flash = flash
        self.sounds = sounds or _sounds()
        self.player = None
        self._want_player = player

    def make_player(self, rate, volume):
        if not self._want_player:
            return None
        self.player = RecordingPlayer(volume)
        return self.player

    def ram_free(self):
        return 123456
