"""The kinds of record a game log holds, and what a report does with each: one table.

A dispute needs every arbiter action and every decision, with what it changed. So each
kind has a role, and the report, the export and the SGF take their lists from here:

    header    what the game is (the "game" record: its number and time control)
    move      a player's press
    arbiter   what an arbiter did: pause, resume, a time adjustment, lateness, a ruling
    decision  what decided the game or its score: a loss on time, a forfeit, an Ing penalty,
              the game's end
    notice    what the clock itself reports: a power cut, the config changed
    clock     the clock's own course of time: the start, byo-yomi begun, a period used up
    output    what the clock said or refused: calls, ignored presses
    storage   the log's own bookkeeping: snapshots, a beginning given up for want of flash

Roles in SHOWN are listed as actions (report, export, SGF comments), each in words made
by its `words(step)`; a kind this table does not know is shown too, its fields in words,
so a newer clock's records are never hidden. The game details and results the hall adds
(issue 19: `details` with event, round, table and players; `result`) slot in as a row
each: `details` a header, `result` a decision.
"""

from typing import Callable, NamedTuple, Optional

from .. import ui

SHOWN = ("arbiter", "decision", "notice")


class Kind(NamedTuple):
    role: str
    words: Optional[Callable] = None  # step -> one line; None: not listed as an action


def _who(step):
    side = step.rec.get("side")
    return side.capitalize() if isinstance(side, str) and side else "the clock"


def _side_now(step, which):
    """A side's status before or after the step, in words (ui.side_text)."""
    status = getattr(step, which)
    side = step.rec.get("side")
    if status is None or side not in ("black", "white"):
        return "?"
    # The times only: the action's own words say when a side was absent (an arrival).
    return ui.side_text(dict(status[side], absent=False)).strip()


def _pause(step):
    return "paused (%s to move)" % _who(step)


def _resume(step):
    if step.paused_ms is None:
        return "resumed (%s to move)" % _who(step)
    return "resumed after a pause of %s (%s to move)" % (ui.time_used(step.paused_ms), _who(step))


_GIVEN = {"main_ms": "main time", "periods": "periods", "period_ms": "period", "moves": "moves"}


def _adjust(step):
    given = [g for g in str(step.rec.get("given", "")).split(",") if g]
    what = ", ".join(_GIVEN.get(g, g) for g in given) or "nothing named"
    return "%s's time set (%s): %s -> %s" % (
        _who(step),
        what,
        _side_now(step, "before"),
        _side_now(step, "after"),
    )


def _late(step):
    return "%s marked late: their clock runs until they arrive" % _who(step)


def _arrive(step):
    rec = step.rec
    late, charged = rec.get("late_ms"), rec.get("charged_ms")
    text = "%s arrived %s late: twice that is %s in all" % (
        _who(step),
        ui.time_used(late),
        ui.time_used(2 * late if isinstance(late, int) else None),
    )
    if step.ran_ms is not None:
        text += "; their clock had run %s, so %s more was charged" % (
            ui.time_used(step.ran_ms),
            ui.time_used(charged),
        )
    else:
        text += "; %s was charged" % ui.time_used(charged)
    if isinstance(late, int) and isinstance(charged, int) and step.ran_ms is not None:
        if charged < 2 * late - step.ran_ms:
            text += " (all the main time there was)"
    return text + " (%s -> %s)" % (_side_now(step, "before"), _side_now(step, "after"))


def _ruling(step):
    if step.rec.get("ruling") == "timeout_pass":
        return (
            "%s's timeout ruled a pass (art. 22): %s keeps a last period, whole (%s); "
            "the opponent's clock runs" % (_who(step), _who(step), _side_now(step, "after"))
        )
    return "ruling %s for %s" % (step.rec.get("ruling", "?"), _who(step))


def _timeout(step):
    how = step.loss_words or "on time"
    return "%s lost %s (flag)" % (_who(step), how)


def _forfeit(step):
    if step.rec.get("reason") == "late":
        return "%s forfeits: not arrived within the late limit (art. 22)" % _who(step)
    return "%s forfeits: %s" % (_who(step), step.rec.get("reason", "?"))


def _penalty(step):
    return "%s begins an overtime period: %s of penalty in all" % (
        _who(step),
        ui.plural(step.rec.get("points", "?"), "point"),
    )


_END = {
    "reset": "the game was ended by a reset",
    "maintenance": "the game was ended for maintenance (goclock deploy)",
}


def _end(step):
    reason = step.rec.get("reason")
    return _END.get(reason, "the game was ended (%s)" % reason if reason else "the game was ended")


def _log(step):
    notice = step.rec.get("notice")
    message = step.rec.get("message") or notice or "?"
    if notice == "power_resume":
        return "power cut: %s" % message
    return "clock notice: %s" % message


def _config(step):
    return "the clock's config was changed"


def unknown_words(step):
    """A kind this host does not know: its fields in words, so nothing is hidden."""
    from .eventtext import _unknown

    return _unknown(step.rec)


KINDS = {
    "game": Kind("header"),
    "start": Kind("clock"),
    "press": Kind("move"),
    "pause": Kind("arbiter", _pause),
    "resume": Kind("arbiter", _resume),
    "adjust": Kind("arbiter", _adjust),
    "late": Kind("arbiter", _late),
    "arrive": Kind("arbiter", _arrive),
    "ruling": Kind("arbiter", _ruling),
    "timeout": Kind("decision", _timeout),
    "forfeit": Kind("decision", _forfeit),
    "penalty": Kind("decision", _penalty),
    "end": Kind("decision", _end),
    "log": Kind("notice", _log),
    "config": Kind("notice", _config),
    "byoyomi": Kind("clock"),
    "overtime": Kind("clock"),
    "period": Kind("clock"),
    "block": Kind("clock"),
    "call": Kind("output"),
    "ignored": Kind("output"),
    "snapshot": Kind("storage"),
    "cut": Kind("storage"),
}

UNKNOWN = Kind("unknown", unknown_words)


def kind_of(rec):
    return KINDS.get(rec.get("event"), UNKNOWN)


def shown(rec):
    """Is this record one of the actions and decisions a dispute needs listed?"""
    kind = kind_of(rec)
    return kind.role in SHOWN or kind is UNKNOWN
