"""Checks of a game log beyond its checksum chain: time that never goes back, moves numbered
without gaps or repeats, times that follow from the log's own actions.

The chain (gamerecord.py, the firmware's logline.verify) proves that nobody changed a record
after the clock wrote it by accident or by hand; it cannot tell whether the clock was made
to write a game that did not happen. Three things a clock never does on its own are
checked here: a record's game time `t` earlier than the record before it; a press whose
move number (`"move"`, from 1) is not the one after the last press — a repeat is a
replayed move, a jump moves that are gone; and a press, block or adjustment whose times
are not what the clock's own core gives for the log's actions (replayed.py).

The sequence is read from every record line of the file, one that fails the chain too: a
record deleted before move 3 breaks the chain at move 3's record, and move 3 is still
there (so only move 2 is missing). A log whose beginning the clock gave up for want of
flash (its "cut" record, checked by the chain) is numbered from its first press on: the
moves before are gone by the clock's own account, not missing. One more exception is the
clock's own: after a power loss the game resumes paused from its last resume point
(docs/storage.md), so the `power_resume` notice may carry an earlier time than the records
before it (those written between the resume point and the cut). Time is checked from there
on; a repeated move after it is still reported, with the power resume named, for the
arbiter to judge. Logs of firmware that did not number its presses have no `"move"`, and
only their times are checked.

Every message names the record by its number and the file's line beside, as the chain's
do ("record 7 (line 10)").
"""

from .. import ui


def problems(record):
    """[(place, message)] of the game's sequence, in file order."""
    found = []
    last_t = None
    last_move, last_move_place = 0, None
    if getattr(record, "cut", None) and record.moves:
        last_move = record._first_number() - 1  # the beginning the clock gave up is not missing
    resumed_at = None
    entries = [e for e in record.entries if e.rec is not None]
    numbered = any("move" in e.rec for e in entries if e.rec.get("event") == "press")
    for e in entries:
        rec = e.rec
        t = rec.get("t")
        if not isinstance(t, int) or isinstance(t, bool):
            found.append((e.place, "no game time (t)"))
        elif rec.get("event") == "log" and rec.get("notice") == "power_resume":
            last_t, resumed_at = t, e.place  # the game went on from its resume point
        else:
            if last_t is not None and t < last_t:
                found.append(
                    (
                        e.place,
                        "time goes back from %s to %s" % (ui.time_used(last_t), ui.time_used(t)),
                    )
                )
            last_t = t
        if rec.get("event") != "press" or not numbered:
            continue
        move = rec.get("move")
        if not isinstance(move, int) or isinstance(move, bool):
            found.append((e.place, "a press without its move number"))
            continue
        after = " (after the power resume, %s)" % resumed_at if resumed_at else ""
        if move == last_move:
            found.append(
                (
                    e.place,
                    "move %d again, first at %s: a replayed move%s"
                    % (move, last_move_place, after),
                )
            )
        elif move > last_move + 1:
            gone = (
                "move %d is missing" % (last_move + 1)
                if move == last_move + 2
                else "moves %d to %d are missing" % (last_move + 1, move - 1)
            )
            found.append((e.place, "move %d after move %d: %s%s" % (move, last_move, gone, after)))
        elif move < last_move:
            found.append(
                (e.place, "move %d after move %d: out of order%s" % (move, last_move, after))
            )
        if move > last_move:
            last_move, last_move_place = move, e.place
    if record.ok and not found:
        # Only where the chain and the sequence hold: a broken log is not replayed as proof.
        found.extend(record.replayed.disagree)
    return found


class Check:
    """A log's whole verdict: the chain (GameRecord) and the sequence (problems())."""

    def __init__(self, record):
        self.record = record
        self.foreign = record.foreign
        self.problems = [] if record.foreign else problems(record)
        self.torn = record.torn
        self.errors = record.errors
        self.ok = record.ok and not self.problems

    @property
    def verdict(self):
        if not self.problems:
            return self.record.verdict
        shown = "; ".join("%s: %s" % p for p in self.problems[:3])
        if len(self.problems) > 3:
            shown += " (and %d more)" % (len(self.problems) - 3)
        text = "INCONSISTENT: %s" % shown
        if self.record.ok:
            return text
        return "%s; %s" % (self.record.verdict, text)

    def as_json(self):
        return {
            "ok": self.ok,
            "log": not self.foreign,
            "torn": self.torn,
            "errors": self.errors,
            "problems": self.problems,
            "verdict": self.verdict,
        }
