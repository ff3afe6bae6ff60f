"""A game log read on the host: verified with the firmware's own checker, then made sense of.

The log format is the firmware's (firmware/goclockfw/storage/logline.py, docs/storage.md): one JSON record per
line, each with a checksum chained to the one before. `GameRecord` runs the firmware's
`verify_bytes`, says in words whether the log is intact, altered or cut short, and lists the
moves: who pressed, when, how long the move took and what was left after it.
"""

import os

from goclockfw.storage import logline

from .. import SIDES
from ..errors import GoclockError

# Side-status fields of a press record (what the side had left at its press).
LEFT_FIELDS = ("main_ms", "periods", "period_ms", "moves", "points", "spent_ms", "flagged")


class GameRecord:
    def __init__(self, data, name="game log"):
        self.name = name
        self.size = len(data)
        result = logline.verify_bytes(data)
        self.ok = result["ok"]
        self.errors = result["errors"]
        self.torn = result["torn"]
        self.records = result["records"]
        # Parts of the log's beginning the clock gave up for want of flash (its "cut"
        # record vouches for what is left), or None.
        self.cut = result["cut"]
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

    @classmethod
    def from_file(cls, path):
        try:
            with open(path, "rb") as f:
                return cls(f.read(), os.path.basename(path))
        except OSError as exc:
            raise GoclockError("cannot read %s: %s" % (path, exc.strerror or exc)) from None

    def _moves(self):
        """Presses (and timeouts turned into passes) in order, each a dict.

        A timeout ruled a pass (rules, art. 22) is a move: a pass that took the time the
        flagged side's clock ran until the flag (the move's start to the timeout, pauses
        excluded), after which the side has its last period again, whole (the ruling gives
        it back; its next move starts a fresh one)."""
        moves = []
        # A log whose beginning the clock gave up starts at the move its first press names.
        first = 0
        if self.cut:
            numbers = (r.get("move") for r in self.records if r.get("event") == "press")
            first = next((m - 1 for m in numbers if isinstance(m, int) and m > 0), 0)
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
                move = {"side": rec["side"], "t": t, "used_ms": rec.get("used_ms")}
                # The firmware logs the side's status beside the press (docs/storage.md);
                # logs of early firmware had it nested under "left", which is read too.
                nested = rec.get("left")
                source = nested if isinstance(nested, dict) else rec
                move["left"] = {k: source[k] for k in LEFT_FIELDS if k in source}
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
            else:
                continue
            start, paused, paused_at, flag_t = t, 0, None, None
            move["n"] = first + len(moves) + 1
            move["record"] = i + 1  # its place among the records, from 1
            moves.append(move)
        return moves

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
    def verdict(self):
        """One line saying whether the log can be trusted."""
        n = len(self.records)
        if self.errors and not self.torn:
            first = "; ".join("line %d: %s" % e for e in self.errors[:3])
            more = " (and %d more)" % (len(self.errors) - 3) if len(self.errors) > 3 else ""
            return "ALTERED: the checksum chain is broken at %s%s" % (first, more)
        if self.torn:
            return (
                "CUT SHORT: the last record is incomplete (power lost or the line dropped while "
                "it was written); %d good records" % n
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
            return whole + ", no end record yet (the game is still on, or was cut off)"
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
