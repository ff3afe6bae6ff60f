"""The clock core on its own, for tests: a GameClock from a time control's JSON, with a
listener that records every event it emits (both engines)."""

from goclockfw.core import timecontrol
from goclockfw.core.gameclock import GameClock


class Recorder:
    """A GameClock listener: `events` is every (kind, side, tick, value), in order."""

    def __init__(self):
        self.events = []

    def on_clock(self, kind, side, tick, value):
        self.events.append((kind, side, tick, value))

    def kinds(self, kind):
        return [e for e in self.events if e[0] == kind]


def make(obj):
    """(GameClock, Recorder) for the time control `obj` (its JSON form)."""
    rec = Recorder()
    return GameClock(timecontrol.parse(obj), rec), rec
