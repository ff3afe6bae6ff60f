"""A game log replayed through the firmware's own core, as the clock does after a power cut
(firmware/goclockfw/app/replay.py): both sides' time before and after every record, so an
arbiter's action can be shown as it changed things, and each side's time accounted for.

    start + increments + received - used - lateness +/- adjustments = shown

per side, in milliseconds of main time: `start` what the time control gave, `increments`
what presses added (a Fischer increment, a Bronstein refund), `received` what the
hourglass moved over from the opponent's running clock, `used` what ran off it while
the side's clock ran (an absent side's too), `lateness` what an arrival charged beyond
that, `adjustments` what arbiters set (after minus before), `shown` what the side has at
the log's end. Each term is measured on its own: between records for the time that ran,
across a record for what that record did. Anything left unexplained (a snapshot that
restores another clock, a record the core refused) is `other`, and the report says so.

The replay also checks the log against the core: each press, block and adjustment record
carries the side's status as the clock had it, and the replay must give the same; a
press's time and an arrival's charge likewise. A log whose chain is intact but whose times
do not follow from its own actions was not written by a clock that kept the rules (the
chain is a CRC: it shows accidents and edits, not a forger who recomputes it).
"""

from goclockfw.app.replay import Replay
from goclockfw.core import gameclock
from goclockfw.events import STATUS_FIELDS, STATUS_KINDS

from .. import SIDES, ui
from . import kinds

_SIDE_INDEX = {"black": 0, "white": 1}
_LOSS = {
    "byoyomi": "on time in the last byo-yomi period",
    "time": "on time",
    "late": "by lateness",
}


class _Capture(Replay):
    """The firmware's replay, keeping what the replayed clock reports."""

    def __init__(self):
        super().__init__()
        self.said = []

    def on_clock(self, kind, side, tick, value):
        # The side's status as the event leaves it, as the firmware logs it (events.py).
        status = self.clock.side_status(side, tick) if kind in STATUS_KINDS else None
        self.said.append((kind, side, tick, value, status))


class Step:
    """One record, replayed: the status of the game just before and just after it."""

    __slots__ = (
        "rec",
        "place",
        "number",
        "before",
        "after",
        "paused_ms",
        "ran_ms",
        "loss_words",
    )

    def __init__(self, rec, entry):
        self.rec = rec
        self.place = entry.place
        self.number = entry.number
        self.before = None
        self.after = None
        self.paused_ms = None  # a resume: how long the clocks stood
        self.ran_ms = None  # an arrival: what the side's clock had run while it was away
        self.loss_words = None  # a timeout: how it lost

    def words(self):
        kind = kinds.kind_of(self.rec)
        return kind.words(self) if kind.words else None

    def as_json(self):
        side = self.rec.get("side")
        out = {
            "record": self.number,
            "place": self.place,
            "t": self.rec.get("t"),
            "at": ui.time_used(self.rec.get("t")),
            "event": self.rec.get("event"),
            "side": side,
            "role": kinds.kind_of(self.rec).role,
            "words": self.words(),
        }
        if side in SIDES and self.before and self.after:
            out["before"] = self.before[side]
            out["after"] = self.after[side]
        if self.rec.get("given"):
            out["given"] = self.rec["given"].split(",")
        if self.paused_ms is not None:
            out["paused_ms"] = self.paused_ms
        for key in ("late_ms", "charged_ms", "ruling", "reason", "points", "notice", "message"):
            if key in self.rec:
                out[key] = self.rec[key]
        if self.ran_ms is not None:
            out["ran_ms"] = self.ran_ms
        return out


def _blank_account():
    return {
        "start_ms": 0,
        "increments_ms": 0,
        "received_ms": 0,
        "used_ms": 0,
        "lateness_ms": 0,
        "adjustments_ms": 0,
        "other_ms": 0,
        "shown_ms": 0,
    }


def _pause_span(pause, resume=None):
    """A pause of the game: from its pause step to its resume step (None: never resumed),
    how long, the side (the resume's, or the pause's when never resumed), the records."""
    if resume is None:
        return {
            "from": pause.rec["t"],
            "to": None,
            "ms": None,
            "side": pause.rec.get("side"),
            "records": [pause.number],
        }
    return {
        "from": pause.rec["t"],
        "to": resume.rec["t"],
        "ms": resume.paused_ms,
        "side": resume.rec.get("side"),
        "records": [pause.number, resume.number],
    }


class Replayed:
    def __init__(self, record):
        self.record = record
        self.steps = []
        self.refused = []  # places of the records the replayed core refused
        self.disagree = []  # (place, what): the log's times that the core does not give
        self.error = None  # why the replay stopped, or None
        self.clock = None
        self.account = {side: _blank_account() for side in SIDES}
        self.start_status = None
        self.final = None
        self.pauses = []  # {"from", "to", "ms", "places"}
        self._run(record)

    # ----- the replay ------------------------------------------------------------------

    def _run(self, record):
        r = _Capture()
        paused_at = None
        prev = None  # the status after the previous record
        for rec, entry in zip(record.records, record.good):
            step = Step(rec, entry)
            self.steps.append(step)
            t = rec.get("t")
            if not isinstance(t, int) or isinstance(t, bool):
                continue
            if r.clock is not None:
                r.clock.advance(t)
                step.before = r.clock.status(t)
            kind = rec.get("event")
            if kind == "arrive" and r.clock is not None:
                side = _SIDE_INDEX.get(rec.get("side"))
                if side is not None:  # its clock's total so far, this segment included
                    step.ran_ms = r.clock.sides[side].spent(r.clock._running_ms(side, t))
            refused, said = r.refused, len(r.said)
            try:
                r.feed(rec)
            except (ValueError, KeyError, TypeError, IndexError) as exc:
                self.error = "%s cannot be replayed: %s" % (entry.place, exc)
                break
            if r.refused != refused:
                self.refused.append(entry.place)
            if r.clock is None:
                continue
            step.after = r.clock.status(t)
            self._check(step, r.said[said:])
            if kind == "timeout":
                step.loss_words = _LOSS.get(r.clock.loss)
            if kind == "pause":
                paused_at = step
            elif kind == "resume" and paused_at is not None:
                step.paused_ms = t - paused_at.rec["t"]
                self.pauses.append(_pause_span(paused_at, step))
                paused_at = None
            if self.start_status is None:
                self.start_status = step.after
                for side in SIDES:
                    self.account[side]["start_ms"] = step.after[side]["main_ms"]
            else:
                self._count(prev, step)
            prev = step.after
        self.clock = r.clock
        self.final = prev
        if paused_at is not None:
            self.pauses.append(_pause_span(paused_at))  # never resumed
        if prev is not None:
            for side in SIDES:
                self.account[side]["shown_ms"] = prev[side]["main_ms"]

    def _count(self, prev, step):
        """What changed each side's main time: between the records, then across this one."""
        before, after = step.before or prev, step.after
        for side in SIDES:
            acc = self.account[side]
            ran = before[side]["main_ms"] - prev[side]["main_ms"]
            if ran < 0:
                acc["used_ms"] -= ran
            elif ran > 0:
                if prev.get("state") == "running" and prev.get("turn") != side:
                    acc["received_ms"] += ran  # the hourglass
                else:
                    acc["other_ms"] += ran
            did = after[side]["main_ms"] - before[side]["main_ms"]
            if not did:
                continue
            kind = step.rec.get("event")
            if kind == "press":
                acc["increments_ms"] += did
            elif kind == "adjust":
                acc["adjustments_ms"] += did
            elif kind == "arrive":
                acc["lateness_ms"] -= did
            else:
                acc["other_ms"] += did

    def _check(self, step, said):
        """The log's own figures against what the replayed core reported for this record."""
        rec = step.rec
        kind = rec.get("event")
        mine = [x for x in said if x[0] == kind and x[1] == _SIDE_INDEX.get(rec.get("side"))]
        if not mine:
            return
        _kind, side, _tick, value, status = mine[0]
        field = {"press": "used_ms", "arrive": "charged_ms"}.get(kind)
        if field and field in rec and rec[field] != value:
            self._disagree(
                step, "%s is %s in the log, %s by the clock's rules" % (field, rec[field], value)
            )
            return
        if status is None or "main_ms" not in rec:
            return
        for name in STATUS_FIELDS:
            if name in rec and name in status and rec[name] != status[name]:
                who = rec["side"].capitalize()
                self._disagree(
                    step,
                    "%s's %s is %s in the log, %s by the clock's rules"
                    % (who, name, rec[name], status[name]),
                )
                return

    def _disagree(self, step, what):
        self.disagree.append((step.place, what))

    # ----- what it shows ---------------------------------------------------------------

    def actions(self):
        """The steps a dispute needs listed (kinds.SHOWN), in the log's order."""
        return [s for s in self.steps if kinds.shown(s.rec)]

    @property
    def state(self):
        return self.clock.state if self.clock is not None else None

    @property
    def outcome(self):
        """How the game stands at the log's end, in words."""
        if self.error:
            return self.error
        clock = self.clock
        if clock is None:
            return "no game in this log"
        ended = self.record.ended
        moves = self.record.moves
        at_move = "move %d" % moves[-1]["n"] if moves else "the start"
        flag = None
        if clock.state == gameclock.ENDED:
            side = ("Black", "White")[clock.turn] if clock.turn >= 0 else "?"
            flagged = [s for s in SIDES if self.final and self.final[s].get("flagged")]
            if flagged:
                side = flagged[0].capitalize()
            t = self._last_time(("timeout", "forfeit"))
            flag = "%s lost %s at %s" % (side, _LOSS.get(clock.loss, "on time"), ui.time_used(t))
        if ended:
            reason = next(
                (r.get("reason") for r in reversed(self.record.records) if r.get("event") == "end"),
                None,
            )
            how = kinds._END.get(reason, "the game was ended (%s)" % reason)
            return "%s; %s" % (flag, how) if flag else "%s at %s" % (how, at_move)
        if flag:
            if clock.loss == "byoyomi":
                return flag + " (ended; the arbiter may still rule the timeout a pass)"
            return flag + " (ended)"
        if clock.state == gameclock.IDLE:
            return "the game has not started"
        return "no end record yet: the game is still on at %s (%s), or the log was cut off" % (
            at_move,
            clock.state,
        )

    def _last_time(self, kinds_):
        for r in reversed(self.record.records):
            if r.get("event") in kinds_:
                return r.get("t")
        return None

    def result(self):
        """The game's result as the clock knows it, for the export and SGF RE: a dict with
        `winner` ("black"/"white"), `by` ("time", "forfeit"), or None when it does not."""
        clock = self.clock
        if clock is None or clock.state != gameclock.ENDED or self.final is None:
            return None
        for side in SIDES:
            if self.final[side].get("flagged"):
                loser = side
                break
        else:
            return None
        winner = "white" if loser == "black" else "black"
        return {
            "winner": winner,
            "loser": loser,
            "by": "forfeit" if clock.loss == "late" else "time",
            "final": clock.loss != "byoyomi" or self.record.ended,
        }
