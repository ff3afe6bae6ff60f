"""A game log read on the host: verified with the firmware's own checker, then made sense of.

The log format is the firmware's (firmware/goclockfw/storage/logline.py, docs/storage.md): one JSON record per
line, each with a checksum chained to the one before. `GameRecord` runs the firmware's
`verify_bytes`, says in words whether the log is intact, altered or cut short, and lists the
moves: who pressed, when, how long the move took and what was left after it.
"""

import os

from goclockfw.storage import logline

from . import SIDES
from .errors import GoclockError

# Side-status fields of a press record (what the side had left at its press).
LEFT_FIELDS = ("main_ms", "periods", "period_ms", "moves", "flagged")


class GameRecord:
    def __init__(self, data, name="game log"):
        self.name = name
        self.size = len(data)
        result = logline.verify_bytes(data)
        self.ok = result["ok"]
        self.errors = result["errors"]
        self.torn = result["torn"]
        self.records = result["records"]
        head = next((r for r in self.records if r.get("event") == "game"), {})
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
        """Presses (and timeouts turned into passes) in order, each a dict."""
        moves = []
        for i, rec in enumerate(self.records):
            kind = rec.get("event")
            if kind == "press" and rec.get("side") in SIDES:
                move = {"side": rec["side"], "t": rec.get("t"), "used_ms": rec.get("used_ms")}
            elif (
                kind == "ruling"
                and rec.get("ruling") == "timeout_pass"
                and rec.get("side") in SIDES
            ):
                # The arbiter turned a last-period timeout into a pass: a move without a press.
                move = {"side": rec["side"], "t": rec.get("t"), "used_ms": None, "pass": True}
            else:
                continue
            # The firmware logs the side's status beside the press (docs/storage.md); logs of
            # early firmware had it nested under "left", which is read too.
            nested = rec.get("left")
            source = nested if isinstance(nested, dict) else rec
            left = {k: source[k] for k in LEFT_FIELDS if k in source}
            move["left"] = left
            move["n"] = len(moves) + 1
            move["record"] = i + 1  # its place among the records, from 1
            moves.append(move)
        return moves

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
        if not self.ended:
            return (
                "intact, %d records, no end record yet (the game is still on, or was cut off)" % n
            )
        return "intact, %d records" % n

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
