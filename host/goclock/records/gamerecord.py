"""A game log read on the host: verified with the firmware's own checker, then made sense of.

The log format is the firmware's (firmware/goclockfw/storage/logline.py, docs/storage.md): one
JSON record per line, each with a checksum chained to the one before, and dots
(progress marks) between them. `GameRecord` runs the firmware's `verify_bytes`, says in
words whether the log is intact, altered or cut short (or not a goclock log at all), and
lists the moves: who pressed, when, how long the move took and what was left after it.

Every message counts one way: records are numbered from 1 in the order of the file,
every record line counted (one that fails the chain too, progress marks not), and the
file's line is named beside: "record 7 (line 10)". Moves keep the clock's own numbers
(each press carries its move's number), so a record left out never renumbers the moves
after it.
"""

import json
import os

from goclockfw.storage import logline

from .. import SIDES
from ..errors import GoclockError

# Side-status fields of a press record (what the side had left at its press).
LEFT_FIELDS = ("main_ms", "periods", "period_ms", "moves", "points", "spent_ms", "flagged")

# What the firmware's checker says of a line that fails, in words an arbiter can act on.
_CHAIN_WORDS = {
    "checksum mismatch": (
        "checksum mismatch: it was changed, or a record before it was removed or inserted"
    ),
    "no checksum": "no checksum: the clock did not write this line",
    "checksum right but not JSON": "checksum right but not a record",
    "not a JSON object": "checksum right but not a record",
}


def place(number, line):
    """How every message names a record: its number, and the file's line beside."""
    return "record %d (line %d)" % (number, line)


def _unchecked(raw):
    """The record a line holds, read without its checksum (None when it holds none): for
    the sequence checks, which look at what the file says even where the chain broke."""
    text = raw[:-16] + b"}" if logline.claimed(raw) is not None else raw
    try:
        rec = json.loads(text.decode("utf-8"))
    except (ValueError, UnicodeError):
        return None
    return rec if isinstance(rec, dict) and isinstance(rec.get("event"), str) else None


class Entry:
    """One record line of the file: its number, its line, what it says, whether it checks."""

    __slots__ = ("number", "line", "rec", "ok", "error")

    def __init__(self, number, line, rec, ok, error):
        self.number = number
        self.line = line
        self.rec = rec  # the record (checked or not), or None when the line is no record
        self.ok = ok
        self.error = error

    @property
    def place(self):
        return place(self.number, self.line)


def _press_move(rec, moves, passes):
    """A press record as a move: its side, time, time used, status after it, and its number
    (the clock's plus the passes by ruling before it; `passes` None when the log's presses
    carry no numbers: one more than the move before)."""
    move = {"side": rec["side"], "t": rec.get("t"), "used_ms": rec.get("used_ms")}
    # The firmware logs the side's status beside the press (docs/storage.md); logs of
    # early firmware had it nested under "left", which is read too.
    nested = rec.get("left")
    source = nested if isinstance(nested, dict) else rec
    move["left"] = {k: source[k] for k in LEFT_FIELDS if k in source}
    number = rec.get("move")
    if passes is not None and isinstance(number, int) and not isinstance(number, bool):
        move["n"] = number + passes
    else:
        move["n"] = (moves[-1]["n"] if moves else 0) + 1
    return move


class GameRecord:
    def __init__(self, data, name="game log"):
        self.name = name
        self.size = len(data)
        result = logline.verify_bytes(data)
        self.ok = result["ok"]
        self.torn = result["torn"]
        self.records = result["records"]
        # Parts of the log's beginning the clock gave up for want of flash (its "cut"
        # record vouches for what is left), or None.
        self.cut = result["cut"]
        bad = dict(result["errors"])  # file line -> what the chain says
        self.entries = []
        claims = False  # does any line that is no good record still look like one?
        lines = data.split(b"\n")
        if lines and not lines[-1]:
            lines.pop()  # what the final newline leaves
        good = iter(self.records)
        for i, raw in enumerate(lines):
            raw = raw.rstrip(b"\r")
            if raw:
                raw = logline.after_marks(raw)
                if not raw:
                    continue  # a line of progress marks: no record (as the firmware's verify)
            if i + 1 in bad:
                rec = _unchecked(raw)
                claims = claims or (rec is not None and logline.claimed(raw) is not None)
                entry = Entry(len(self.entries) + 1, i + 1, rec, False, bad[i + 1])
            else:
                entry = Entry(len(self.entries) + 1, i + 1, next(good), True, None)
            self.entries.append(entry)
        self.good = [e for e in self.entries if e.ok]  # parallel to self.records
        # (place, words) of each line the chain refuses.
        self.errors = [
            (e.place, _CHAIN_WORDS.get(e.error, e.error)) for e in self.entries if not e.ok
        ]
        # Not a goclock log: nothing in it is a record the clock wrote (a README, a CSV).
        self.foreign = not self.good and not claims
        self.ok = self.ok and not self.foreign
        head = next((r for r in self.records if r.get("event") == "game"), None)
        if head is None and self.cut:
            # The head record went with the beginning: the cut names the game, the first
            # snapshot holds the time control.
            cut = next(r for r in self.records if r.get("event") == "cut")
            snap = next((r for r in self.records if r.get("event") == "snapshot"), {})
            clock = snap.get("clock") if isinstance(snap.get("clock"), dict) else {}
            head = {"game": cut.get("game"), "time_control": clock.get("time_control")}
        head = head or {}
        self.game = head.get("game")
        self.time_control = head.get("time_control")
        self.ended = any(r.get("event") == "end" for r in self.records)
        self.moves = self._moves()
        self._replayed = None

    @classmethod
    def from_file(cls, path):
        try:
            with open(path, "rb") as f:
                return cls(f.read(), os.path.basename(path))
        except OSError as exc:
            raise GoclockError("cannot read %s: %s" % (path, exc.strerror or exc)) from None

    def place_of(self, index):
        """The place ("record 7 (line 10)") of self.records[index]."""
        return self.good[index].place

    def _moves(self):
        """Presses (and timeouts turned into passes) in order, each a dict.

        A timeout ruled a pass (rules, art. 22) is a move: a pass that took the time the
        flagged side's clock ran until the flag (the move's start to the timeout, pauses
        excluded), after which the side has its last period again, whole (the ruling gives
        it back; its next move starts a fresh one). The clock numbers its presses; a pass
        by ruling is a move the game record has too, so from it on the number is the
        clock's plus the passes before (the SGF's numbering)."""
        moves = []
        numbered = any(
            isinstance(r.get("move"), int) for r in self.records if r.get("event") == "press"
        )
        passes = 0
        start = None  # game time the move in progress began
        paused = 0  # ms paused since then
        paused_at = None
        flag_t = None
        for i, rec in enumerate(self.records):
            kind = rec.get("event")
            t = rec.get("t")
            if kind == "start":
                start, paused, flag_t = t, 0, None
                continue
            if kind == "pause":
                paused_at = t
                continue
            if kind == "resume":
                if paused_at is not None and isinstance(t, int):
                    paused += t - paused_at
                paused_at = None
                continue
            if kind == "timeout":
                flag_t = t
                continue
            if kind == "press" and rec.get("side") in SIDES:
                move = _press_move(rec, moves, passes if numbered else None)
            elif (
                kind == "ruling"
                and rec.get("ruling") == "timeout_pass"
                and rec.get("side") in SIDES
            ):
                used = None
                if all(isinstance(x, int) for x in (start, flag_t)):
                    used = flag_t - start - paused
                move = {"side": rec["side"], "t": t, "used_ms": used, "pass": True}
                move["left"] = self._left_after_pass(rec["side"])
                passes += 1
                move["n"] = (moves[-1]["n"] if moves else self._first_number() - 1) + 1
            else:
                continue
            start, paused, paused_at, flag_t = t, 0, None, None
            move["record"] = self.good[i].number  # the record's number (see `place`)
            moves.append(move)
        return moves

    def _first_number(self):
        """The number of the first move in this log: 1, or later when its beginning is gone."""
        for rec in self.records:
            if rec.get("event") == "press" and isinstance(rec.get("move"), int):
                return rec["move"]
        return 1

    def _left_after_pass(self, side):
        """What a side flagged in its last byo-yomi period has once the timeout is ruled a
        pass: no main time, one period, the whole of it."""
        tc = self.time_control or {}
        period = (tc.get(side) or {}).get("period", tc.get("period"))
        left = {"main_ms": 0, "periods": 1, "flagged": False}
        if isinstance(period, (int, float)):
            left["period_ms"] = int(round(period * 1000))
        return left

    @property
    def replayed(self):
        """The log replayed through the firmware's core (replayed.py), made once."""
        if self._replayed is None:
            from .replayed import Replayed

            self._replayed = Replayed(self)
        return self._replayed

    @property
    def outcome(self):
        """How the game stands at the log's end, in words (replayed.py)."""
        return self.replayed.outcome

    @property
    def verdict(self):
        """One line saying whether the log can be trusted."""
        n = len(self.records)
        if self.foreign:
            return "not a goclock log (no line of it is a record the clock wrote)"
        if self.errors and not self.torn:
            first = "; ".join("%s: %s" % e for e in self.errors[:3])
            more = " (and %d more)" % (len(self.errors) - 3) if len(self.errors) > 3 else ""
            return "ALTERED: the checksum chain is broken at %s%s" % (first, more)
        if self.torn:
            return (
                "CUT SHORT: the last record, %s, is incomplete (power lost or the line dropped "
                "while it was written); %d good records" % (self.entries[-1].place, n)
            )
        whole = "intact, %d records" % n
        if self.cut:
            first = self.moves[0]["n"] if self.moves else None
            whole = (
                "intact from %s on, %d records: the clock gave up the first %s of the log "
                "for want of flash"
                % (
                    "move %d" % first if first else "its first line",
                    n,
                    "part" if self.cut == 1 else "%d parts" % self.cut,
                )
            )
        if not self.ended:
            return "%s; %s" % (whole, self.outcome)
        return whole

    @property
    def altered(self):
        return bool(self.errors) and not self.torn

    def require_times(self):
        """Raise unless the moves say what was left after them (needed for SGF BL/WL)."""
        if self.moves and not all(m["left"] for m in self.moves):
            raise GoclockError(
                "%s: the press records carry no time left, so there is nothing to write as "
                "BL/WL" % self.name
            )
