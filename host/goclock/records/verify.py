"""Checks of a game log beyond its checksum chain: time that never goes back, moves numbered
without gaps or repeats.

The chain (gamerecord.py, the firmware's logline.verify) proves that nobody changed a record
after the clock wrote it; it cannot tell whether the clock was made to write a game that did
not happen. Two things a clock never does on its own are checked here: a record's game time
`t` earlier than the record before it, and a press whose move number (`"move"`, from 1) is
not the one after the last press — a repeat is a replayed move, a jump moves that are gone.

A log whose beginning the clock gave up for want of flash (its "cut" record, checked by the
chain) is numbered from its first press on: the moves before are gone by the clock's
own account, not missing. One more exception is the clock's own: after a power loss the game resumes paused from its last
resume point (docs/storage.md), so the `power_resume` notice may carry an earlier time than
the records before it (those written between the resume point and the cut). Time is
checked from there on; a repeated move after it is still reported, with the power resume
named, for the arbiter to judge. Logs of firmware that did not number its presses have no
`"move"`, and only their times are checked.

Every message names the line of the file, as the chain's do.
"""

from .. import ui


def record_lines(record):
    """The file's line number of each good record: the lines the chain did not refuse."""
    bad = {line for line, _ in record.errors}
    total = len(record.records) + len(record.errors)
    return [n for n in range(1, total + 1) if n not in bad]


def problems(record):
    """[(line, message)] of the game's sequence, in file order."""
    found = []
    lines = record_lines(record)
    last_t = None
    last_move, last_move_line = 0, None
    if getattr(record, "cut", None) and record.moves:
        last_move = record.moves[0]["n"] - 1  # the beginning the clock gave up is not missing
    resumed_at = None
    numbered = any("move" in r for r in record.records if r.get("event") == "press")
    for line, rec in zip(lines, record.records):
        t = rec.get("t")
        if not isinstance(t, int) or isinstance(t, bool):
            found.append((line, "no game time (t)"))
        elif rec.get("event") == "log" and rec.get("notice") == "power_resume":
            last_t, resumed_at = t, line  # the game went on from its resume point
        else:
            if last_t is not None and t < last_t:
                found.append(
                    (
                        line,
                        "time goes back from %s to %s" % (ui.clock_text(last_t), ui.clock_text(t)),
                    )
                )
            last_t = t
        if rec.get("event") != "press" or not numbered:
            continue
        move = rec.get("move")
        if not isinstance(move, int) or isinstance(move, bool):
            found.append((line, "a press without its move number"))
            continue
        after = " (after the power resume at line %d)" % resumed_at if resumed_at else ""
        if move == last_move:
            found.append(
                (
                    line,
                    "move %d again, first at line %d: a replayed move%s"
                    % (move, last_move_line, after),
                )
            )
        elif move > last_move + 1:
            gone = (
                "move %d is missing" % (last_move + 1)
                if move == last_move + 2
                else "moves %d to %d are missing" % (last_move + 1, move - 1)
            )
            found.append((line, "move %d after move %d: %s%s" % (move, last_move, gone, after)))
        elif move < last_move:
            found.append((line, "move %d after move %d: out of order%s" % (move, last_move, after)))
        if move > last_move:
            last_move, last_move_line = move, line
    return found


class Check:
    """A log's whole verdict: the chain (GameRecord) and the sequence (problems())."""

    def __init__(self, record):
        self.record = record
        self.problems = problems(record)
        self.torn = record.torn
        self.errors = record.errors
        self.ok = record.ok and not self.problems

    @property
    def verdict(self):
        if not self.problems:
            return self.record.verdict
        shown = "; ".join("line %d: %s" % p for p in self.problems[:3])
        if len(self.problems) > 3:
            shown += " (and %d more)" % (len(self.problems) - 3)
        text = "INCONSISTENT: %s" % shown
        if self.record.ok:
            return text
        return "%s; %s" % (self.record.verdict, text)

    def as_json(self):
        return {
            "ok": self.ok,
            "torn": self.torn,
            "errors": self.errors,
            "problems": self.problems,
            "verdict": self.verdict,
        }
