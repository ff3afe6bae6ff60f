"""The clock's events in words, one line each, for `goclock watch` (docs/protocol.md, Events).

    1:35  Black: "30秒"
    1:05  Black moved (move 1, took 1:05; left 0:00  5 × 0:55)
    running, white to move, move 1  |  black 0:00  5 × 0:55  |  white 1:55:00  5 × 1:00

Every kind the clock sends has its sentence; a kind this host does not know yet is still
shown in words (its fields as "name value"), never as JSON.
"""

from .. import ui


def _who(ev):
    side = ev.get("side")
    return side.capitalize() if isinstance(side, str) and side else "The clock"


def _left(ev):
    """What the side has left, when the event carries its status."""
    if "main_ms" not in ev:
        return ""
    return "; left %s" % ui.side_text(ev).strip()


def _start(ev):
    return "%s's clock starts" % _who(ev)


def _press(ev):
    took = ui.time_used(ev.get("used_ms"))
    move = "move %s, " % ev["move"] if "move" in ev else ""
    return "%s moved (%stook %s%s)" % (_who(ev), move, took, _left(ev))


def _call(ev):
    return "%s: \u201c%s\u201d" % (_who(ev), ev.get("phrase", "?"))


def _period(ev):
    left = ev.get("left")
    return "%s used up a period: %s left" % (
        _who(ev),
        ui.plural(left, "period") if isinstance(left, int) else "?",
    )


def _block(ev):
    return "%s starts a new block of %s%s" % (
        _who(ev),
        ui.plural(ev.get("moves", "?"), "move"),
        _left(ev),
    )


def _arrive(ev):
    # charged_ms is what came off main time now: twice the lateness in all, less what the
    # side's clock ran while it was away (README, "Late arrival").
    return "%s arrived %s late: %s more charged (twice the lateness in all)" % (
        _who(ev),
        ui.time_used(ev.get("late_ms")),
        ui.time_used(ev.get("charged_ms")),
    )


def _ruling(ev):
    if ev.get("ruling") == "timeout_pass":
        return "the arbiter ruled %s's timeout a pass: the opponent's clock runs" % _who(ev)
    return "the arbiter ruled %s for %s" % (ev.get("ruling", "?"), _who(ev))


def _forfeit(ev):
    why = "too late to arrive" if ev.get("reason") == "late" else ev.get("reason", "?")
    return "%s forfeits the game: %s" % (_who(ev), why)


def _ignored(ev):
    return "%s's %s ignored: %s" % (_who(ev), ev.get("do", "press"), ev.get("reason", "?"))


def _end(ev):
    reason = ev.get("reason")
    return "the game ended" + (" (%s)" % reason if reason else "")


def _log(ev):
    return "clock notice: %s" % (ev.get("message") or ev.get("notice") or "?")


SENTENCES = {
    "start": _start,
    "press": _press,
    "call": _call,
    "byoyomi": lambda ev: "%s's main time is up: byo-yomi" % _who(ev),
    "overtime": lambda ev: "%s's main time is up: overtime" % _who(ev),
    "timeout": lambda ev: "%s lost on time" % _who(ev),
    "pause": lambda ev: "clocks paused (%s to move)" % _who(ev),
    "resume": lambda ev: "clocks running again (%s to move)" % _who(ev),
    "late": lambda ev: "%s marked late: their clock runs until they arrive" % _who(ev),
    "arrive": _arrive,
    "period": _period,
    "block": _block,
    "adjust": lambda ev: "the arbiter set %s's time%s" % (_who(ev), _left(ev)),
    "ruling": _ruling,
    "forfeit": _forfeit,
    "penalty": lambda ev: (
        "%s has %s of penalty" % (_who(ev), ui.plural(ev.get("points", "?"), "point"))
    ),
    "ignored": _ignored,
    "end": _end,
    "game": lambda ev: "game %s begins" % ev.get("game", "?"),
    "config": lambda ev: "the clock's config was changed",
    "log": _log,
}


def _unknown(ev):
    rest = ["%s %s" % (k, _plain(v)) for k, v in ev.items() if k not in ("event", "t", "side")]
    who = " " + ev["side"] if isinstance(ev.get("side"), str) else ""
    return "%s%s" % (ev.get("event", "event"), who) + (": " + ", ".join(rest) if rest else "")


def _plain(v):
    if isinstance(v, dict):
        return "(%s)" % ", ".join("%s %s" % (k, _plain(x)) for k, x in v.items())
    if isinstance(v, list):
        return "(%s)" % ", ".join(_plain(x) for x in v)
    return str(v)


def describe(ev):
    """One line for an event pushed by the clock: its game time, then a sentence."""
    kind = ev.get("event")
    if kind == "status":
        return ui.status_line(ev)
    text = SENTENCES.get(kind, _unknown)(ev)
    if "t" in ev:
        return "%s  %s" % (ui.time_used(ev.get("t")), text)
    return text
