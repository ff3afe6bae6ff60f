"""A game's clock rebuilt from its log: the records replayed through the core.

The clock core is deterministic: the same time control and the same actions at the same
game times give the same clock, to the millisecond. So the log needs no separate resume
point: after a power cut the newest game's records are fed back, in order, as the
actions they record (start, press, pause, resume, adjust, ruling, late, arrive), with
each record's game time `t` as the tick; what the clock said and did in answer (calls,
periods, flags) comes out again and is dropped. A snapshot record (the whole clock,
written now and then in long games) stands for everything before it.

Replay runs at boot only, so it may allocate; it never writes.
"""

from goclockfw.core import gameclock
from goclockfw.core.timecontrol import SIDE_NAMES, parse

# Status fields an adjustment may set, by the names its record gives them (`given`).
_ADJUST_ARGS = ("main_ms", "periods", "period_ms", "moves")


class ReplayError(ValueError):
    """A log that cannot be replayed (no time control, an action the clock refuses)."""


class Replay:
    """Feed records with `feed`; then `clock`, `t` (the last record's), `ended`, `running`."""

    def __init__(self):
        self.clock = None
        self.tc = None
        self.t = 0
        self.ended = False  # an "end" record: the game was closed (reset)
        self.refused = 0  # actions the replayed clock refused: the log and core disagree
        self.moves_at_snapshot = 0

    def on_clock(self, kind, side, tick, value):
        pass  # what the clock says during a replay was said (and logged) at the time

    def feed(self, rec):
        kind = rec.get("event")
        t = rec.get("t")
        if not isinstance(t, int) or isinstance(t, bool):
            return
        self.t = t
        if kind == "game":
            self.tc = parse(rec["time_control"])
            self.clock = gameclock.GameClock(self.tc, self)
            return
        if kind == "end":
            self.ended = True
            return
        if kind == "snapshot":
            self._snapshot(rec, t)
            return
        if self.clock is None:
            return  # a log whose beginning was reused (flash full) waits for a snapshot
        side = _side(rec.get("side"))
        ok = True
        c = self.clock
        if kind == "start":
            ok = c.start(t, side)
        elif kind == "press":
            ok = c.press(t, side)
        elif kind == "pause":
            ok = c.pause(t)
        elif kind == "resume":
            ok = c.resume(t)
        elif kind == "ruling":
            ok = c.timeout_pass(t)
        elif kind == "late":
            ok = c.late(t, side)
        elif kind == "arrive":
            ok = c.arrive(t, side)
        elif kind == "adjust":
            ok = self._adjust(rec, t, side)
        else:
            c.advance(t)  # an output or a note: the clock only catches up to it
        if not ok:
            self.refused += 1

    def _adjust(self, rec, t, side):
        given = rec.get("given", "")
        args = {}
        for name in _ADJUST_ARGS:
            if name in given.split(",") and name in rec:
                args[name] = rec[name]
        self.clock.advance(t)
        try:
            self.clock.adjust(side, now=t, **args)
        except ValueError:
            return False
        return True

    def _snapshot(self, rec, t):
        data = rec.get("clock")
        if not isinstance(data, dict):
            return
        tc = self.tc
        if tc is None:
            tc = parse(data["time_control"])
            self.tc = tc
        self.clock = gameclock.GameClock.restore(tc, data, self)
        if rec.get("running"):
            self.clock.resume(t)  # it was running: the segment goes on from here

    @property
    def running(self):
        return self.clock is not None and self.clock.state == gameclock.RUNNING


def _side(name):
    return SIDE_NAMES.index(name) if name in SIDE_NAMES else None
