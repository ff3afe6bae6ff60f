"""Collecting every game's log from the hall's `log/<game>` slices (docs/hall.md).

A slice is `<rec> <offset>\\n` then bytes of the served log: one record line with the
progress marks before it. `rec` numbers the record from 1; `offset` is where the bytes sit
in the log as `goclock logs pull` reads it. A clock resends from the record after the last
one its broker acknowledged, so the hall gets a few slices twice after an outage, and may
get them out of order across a reconnect. Here each one is taken exactly once:

- the next record (`rec` = collected + 1, `offset` = bytes collected) is appended;
- one already collected is dropped as a duplicate, after checking that its bytes are the
  ones on disk (a clock whose flash was wiped counts its games from 1 again: different
  bytes under a number already collected are kept aside, never written over the log);
- a later one waits until the gap before it is filled (a clock always resends the gap).

The files are named and laid out as `goclock logs pull` names them, one folder per clock:
`<folder>/<clock>/game-NNNNN.log`, so `goclock logs verify/report/export` read them as
they are. A hall restarted on the same folder goes on from what is on disk (a slice torn
by a hall killed mid-write is cut back to the last whole record first).
"""

import logging
import os

from ..bridge.hallformat import check_name, is_record
from ..records.gamerecord import GameRecord
from ..records.pull import log_path
from ..records.verify import Check

log = logging.getLogger("goclock.hall")

MAX_PENDING = 4096  # slices held per game while a gap waits to be filled
MAX_SLICE = 64 * 1024


class SliceError(ValueError):
    """A slice the hall cannot take: unreadable head, or bytes that do not fit the log."""


def parse_slice(payload):
    """payload bytes -> (rec, offset, body); SliceError when it is not a slice."""
    payload = bytes(payload)
    if len(payload) > MAX_SLICE:
        raise SliceError("a slice of %d bytes (at most %d)" % (len(payload), MAX_SLICE))
    head, sep, body = payload.partition(b"\n")
    parts = head.split(b" ")
    if not sep or len(parts) != 2 or not all(p.isdigit() and len(p) < 12 for p in parts):
        raise SliceError("no '<rec> <offset>' line at its head")
    rec, offset = int(parts[0]), int(parts[1])
    if rec < 1:
        raise SliceError("record number %d (they count from 1)" % rec)
    lines = body.split(b"\n")
    if lines[-1] != b"" or not lines[:-1] or not is_record(lines[-2] + b"\n"):
        raise SliceError("its bytes do not end with one whole record line")
    if sum(1 for line in lines[:-1] if is_record(line + b"\n")) != 1:
        raise SliceError("more or less than one record line in it")
    return rec, offset, body


class GameLog:
    """One clock's one game, as collected so far."""

    def __init__(self, path):
        self.path = path
        self.size = 0  # bytes collected
        self.rec = 0  # the number of the last record collected
        self.pending = {}  # rec -> (offset, body), waiting for a gap to fill
        self.duplicates = 0
        self.conflicts = 0
        self.ended = False
        self._load()

    def _load(self):
        if not os.path.exists(self.path):
            return
        with open(self.path, "rb") as f:
            data = f.read()
        lines = data.splitlines(True)
        while lines and not (lines[-1].endswith(b"\n") and is_record(lines[-1])):
            lines.pop()  # a torn line, or marks of a slice cut before its record
        whole = b"".join(lines)
        if len(whole) != len(data):
            log.warning("%s: a torn slice cut back (%d bytes)", self.path, len(data) - len(whole))
            with open(self.path, "r+b") as f:
                f.truncate(len(whole))
        self.size = len(whole)
        self.rec = sum(1 for line in lines if is_record(line))
        self.ended = b'"event":"end"' in whole

    def data(self):
        with open(self.path, "rb") as f:
            return f.read()

    def _same_as_on_disk(self, offset, body):
        if offset + len(body) > self.size:
            return False
        with open(self.path, "rb") as f:
            f.seek(offset)
            return f.read(len(body)) == body

    def take(self, rec, offset, body):
        """One slice -> 'new', 'duplicate', 'held' or 'conflict'."""
        if rec <= self.rec:
            if self._same_as_on_disk(offset, body):
                self.duplicates += 1
                return "duplicate"
            self.conflicts += 1
            return "conflict"
        if rec > self.rec + 1:
            if rec not in self.pending and len(self.pending) >= MAX_PENDING:
                return "conflict"  # not held: the clock resends it after the gap
            self.pending.setdefault(rec, (offset, body))
            return "held"
        if offset != self.size:
            self.conflicts += 1
            return "conflict"
        self._append(body)
        while self.rec + 1 in self.pending:
            offset, body = self.pending.pop(self.rec + 1)
            if offset != self.size:
                self.conflicts += 1
                break
            self._append(body)
        for r in [r for r in self.pending if r <= self.rec]:
            del self.pending[r]
        return "new"

    def _append(self, body):
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        with open(self.path, "ab") as f:
            f.write(body)
        self.size += len(body)
        self.rec += 1
        if b'"event":"end"' in body:
            self.ended = True

    @property
    def missing(self):
        """The record numbers not yet collected below the highest one held."""
        if not self.pending:
            return []
        return list(range(self.rec + 1, min(self.pending)))

    def check(self):
        """The log's verdict: the checksum chain and the sequence (records/verify)."""
        return Check(GameRecord(self.data(), os.path.basename(self.path)))


class Collector:
    """Every clock's games under one folder. Not thread-safe: one caller at a time."""

    def __init__(self, folder):
        self.folder = folder
        self.games = {}  # (clock, game) -> GameLog
        self.refused = 0

    def game(self, clock, game):
        key = (clock, game)
        g = self.games.get(key)
        if g is None:
            g = self.games[key] = GameLog(log_path(os.path.join(self.folder, clock), game))
        return g

    def take(self, clock, game, payload):
        """A `log/<game>` message of `clock` -> what became of it (see GameLog.take), or
        'refused' for one that is not a slice (logged, nothing written)."""
        try:
            check_name("clock", clock)
            if not (game.isdigit() and 0 < len(game) < 10) or int(game) < 1:
                raise SliceError("game %r is not a game number" % game)
            rec, offset, body = parse_slice(payload)
        except (SliceError, ValueError) as exc:
            self.refused += 1
            log.warning("hall: a log message of %s game %s refused: %s", clock, game, exc)
            return "refused"
        g = self.game(clock, int(game))
        what = g.take(rec, offset, body)
        if what == "conflict":
            log.warning(
                "hall: %s game %s record %d at byte %d does not fit the %d records collected "
                "(%d bytes): kept out of the log",
                clock,
                game,
                rec,
                offset,
                g.rec,
                g.size,
            )
        return what

    def load(self):
        """Pick up the games already in the folder (a hall restarted on it)."""
        if not os.path.isdir(self.folder):
            return
        for clock in sorted(os.listdir(self.folder)):
            sub = os.path.join(self.folder, clock)
            if not os.path.isdir(sub):
                continue
            for name in sorted(os.listdir(sub)):
                if name.startswith("game-") and name.endswith(".log"):
                    number = name[5:-4]
                    if number.isdigit():
                        self.game(clock, int(number))
