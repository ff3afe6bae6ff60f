"""Time use of a game, as a dispute needs it: per move, every arbiter action and decision
with what it changed, and totals that explain the time left (in the terminal with rich;
the same figures in `goclock logs export`).

    game 12 (sd 30m): Black lost on time at 1:02:10
    details      when it started, event, round, table, players, handicap (gameinfo.py)
    result       the one that counts, who gave it, the one it superseded
    moves        #, side, at, used, left
    actions      at, record, what: pauses (and how long), adjustments (before -> after,
                 what was given), lateness and its charge, rulings, the flag, the end
    totals       moves, time used, average, longest, in overtime
    main time    start + increments + received - used - lateness +/- adjustments = shown

Times follow the one rounding rule (goclockfw/timetext.py): a time left up, a time used
down. When the figures so rounded do not add up to the second, the account is given to
the millisecond below it.
"""

from rich.table import Table

from .. import SIDES, ui
from ..timecontrol import notation
from . import gameinfo
from .sgfmerge import move_time_left

# Controls with an overtime after main time: a move made with main time 0 is in it.
_OVERTIME = ("byoyomi", "canadian", "ing")

# The main-time account: (key, label, sign, shown as a time left or a time used).
ACCOUNT_ROWS = (
    ("start_ms", "start", "", "left"),
    ("increments_ms", "+ increments", "+", "used"),
    ("received_ms", "+ received (hourglass)", "+", "used"),
    ("used_ms", "- used from main time", "-", "used"),
    ("lateness_ms", "- lateness charged", "-", "used"),
    ("adjustments_ms", "+/- adjustments", "±", "used"),
    ("other_ms", "+/- unexplained", "±", "used"),
    ("shown_ms", "= main time left", "", "left"),
)


def summary(record):
    """Per side: moves, total and longest move time, moves in overtime (a timeout ruled a
    pass counts: the flagged side's clock ran until the flag, in its last period)."""
    overtime = (record.time_control or {}).get("type") in _OVERTIME
    out = {}
    for side in SIDES:
        moves = [m for m in record.moves if m["side"] == side and m.get("used_ms") is not None]
        used = [m["used_ms"] for m in moves]
        longest = max(moves, key=lambda m: m["used_ms"]) if moves else None
        out[side] = {
            "moves": len(moves),
            "used_ms": sum(used),
            "average_ms": sum(used) // len(used) if used else 0,
            "longest_ms": longest["used_ms"] if longest else 0,
            "longest_move": longest["n"] if longest else None,
            "overtime_moves": sum(1 for m in moves if m["left"].get("main_ms") == 0)
            if overtime
            else 0,
        }
    return out


def account(record):
    """Per side, the main-time account in ms (replayed.py), plus `shown`: the side's whole
    status at the log's end; None for an untimed game (nothing is left to explain)."""
    if (record.time_control or {}).get("type") == "untimed":
        return None
    rep = record.replayed
    if rep.final is None:
        return None
    out = {}
    for side in SIDES:
        acc = dict(rep.account[side])
        acc["adds_up"] = (
            acc["start_ms"]
            + acc["increments_ms"]
            + acc["received_ms"]
            - acc["used_ms"]
            - acc["lateness_ms"]
            + acc["adjustments_ms"]
            + acc["other_ms"]
            == acc["shown_ms"]
        )
        acc["status"] = rep.final[side]
        out[side] = acc
    return out


def _term(ms, sign, how):
    """One figure of the account as shown: (its text, its whole seconds with sign)."""
    if how == "left":
        return ui.time_left(ms), (ms + 999) // 1000 if ms > 0 else 0
    if ms == 0:
        return ui.time_used(0), 0
    s = abs(ms) // 1000
    if sign == "±":
        mark = "-" if ms < 0 else "+"
        return mark + ui.time_used(abs(ms)), s if ms >= 0 else -s
    return sign + ui.time_used(ms), s if sign != "-" else -s


def account_rows(acc, cut=False):
    """[(label, {side: text})] of the rows to print (an all-zero term is left out), and
    whether the figures as rounded add up to the second on both sides. `cut`: the log's
    beginning is gone (a full flash), so the account starts at the first record kept."""
    rows = []
    adds_up = True
    totals = {side: 0 for side in SIDES}
    for key, label, sign, how in ACCOUNT_ROWS:
        if key == "start_ms" and cut:
            label = "at the first record kept"
        if key not in ("start_ms", "shown_ms") and not any(acc[s][key] for s in SIDES):
            continue
        texts = {}
        for side in SIDES:
            text, seconds = _term(acc[side][key], sign, how)
            texts[side] = text
            if key == "shown_ms":
                adds_up = adds_up and totals[side] == seconds
            else:
                totals[side] += seconds
        rows.append((label, texts))
    return rows, adds_up


_WORDS = {
    "increments_ms": "increments",
    "received_ms": "received",
    "used_ms": "used",
    "lateness_ms": "lateness",
    "adjustments_ms": "adjustments",
    "other_ms": "unexplained",
}


def account_sentence(acc):
    """One side's account on one line: "10:00 start - 9:00 used - 1:00 lateness = 0:00 left"
    (the terms that are not zero; each rounded by the clock's rule)."""
    parts = ["%s start" % ui.time_left(acc["start_ms"])]
    for key, _label, sign, _how in ACCOUNT_ROWS[1:-1]:
        v = acc[key]
        if not v:
            continue
        mark = ("+" if v > 0 else "-") if sign == "±" else sign
        parts.append("%s %s %s" % (mark, ui.time_used(abs(v)), _WORDS[key]))
    return "%s = %s left" % (" ".join(parts), ui.time_left(acc["shown_ms"]))


def exact_line(acc):
    """The account of one side to the millisecond, as a sum."""
    parts = ["%d" % acc["start_ms"]]
    for key, _label, sign, _how in ACCOUNT_ROWS[1:-1]:
        v = acc[key]
        if not v:
            continue
        if sign == "±":
            parts.append(("+ %d" if v > 0 else "- %d") % abs(v))
        else:
            parts.append("%s %d" % (sign, v))
    return "%s = %d ms" % (" ".join(parts), acc["shown_ms"])


def _left_text(tc, move):
    left = move["left"]
    if not left:
        return "-"
    if "spent_ms" in left:  # untimed: nothing is left; the side's total so far
        return "%s used" % ui.time_used(left["spent_ms"])
    seconds, count = move_time_left(tc, move)
    text = ui.time_left(int(round(float(seconds) * 1000)))
    if count is not None:
        what = "move" if tc.get("type") == "canadian" else "period"
        text += " (%s)" % ui.plural(count, what)
    if left.get("points"):
        text += " -%d pt" % left["points"]
    return text


def title(record):
    tc = record.time_control
    try:
        named = notation.format(tc) if tc else None
    except (KeyError, TypeError, ValueError):
        named = None
    return "game %s%s" % (record.game, " (%s)" % named if named else "")


def print_report(record, check=None):
    con = ui.console()
    con.print("%s: %s" % (title(record), record.outcome))
    line = gameinfo.summary_line(record)
    if line:
        con.print(line)
    line = gameinfo.final_line(record)
    if line:
        con.print(line)
    con.print(_moves_table(record))
    rep = record.replayed
    actions = rep.actions()
    if actions:
        acts = Table(title="arbiter actions and decisions", header_style="bold")
        for col in ("at", "record", "what"):
            acts.add_column(col, justify="right" if col != "what" else "left")
        for step in actions:
            acts.add_row(ui.time_used(step.rec.get("t")), str(step.number), step.words())
        con.print(acts)
    con.print(_totals_table(record))
    _print_account(con, record)
    for place in rep.refused:
        con.print("goclock: warning: %s: the clock's core refuses this action on replay" % place)
    con.print("log: %s" % (check.verdict if check is not None else record.verdict))


def _moves_table(record):
    """Each move: its number, side, when, the time it took, the time left after it."""
    tc = record.time_control or {}
    table = Table(title="time per move", header_style="bold")
    for col in ("#", "side", "at", "used", "left"):
        table.add_column(col, justify="right" if col != "side" else "left")
    for m in record.moves:
        used = ui.time_used(m.get("used_ms"))
        if m.get("pass"):
            used = "pass (ruling) %s" % used
        table.add_row(str(m["n"]), m["side"], ui.time_used(m.get("t")), used, _left_text(tc, m))
    return table


def _totals_table(record):
    """Each side's moves, time used, average and longest move, moves in overtime."""
    totals = Table(title="totals", header_style="bold")
    for col in ("side", "moves", "used", "average", "longest", "in overtime"):
        totals.add_column(col)
    for side, s in summary(record).items():
        longest = (
            "%s (move %s)" % (ui.time_used(s["longest_ms"]), s["longest_move"])
            if s["longest_move"]
            else "-"
        )
        totals.add_row(
            side,
            str(s["moves"]),
            ui.time_used(s["used_ms"]),
            ui.time_used(s["average_ms"]),
            longest,
            str(s["overtime_moves"]),
        )
    return totals


def _print_account(con, record):
    """What explains each side's main time left (the account), when the log has one."""
    acc = account(record)
    if not acc:
        return
    book = Table(title="main time: what explains the time left", header_style="bold")
    book.add_column("")
    for side in SIDES:
        book.add_column(side, justify="right")
    rows, adds_up = account_rows(acc, bool(record.cut))
    for label, texts in rows:
        book.add_row(label, *(texts[s] for s in SIDES))
    book.add_row("the clock shows", *(ui.side_text(acc[s]["status"]) for s in SIDES))
    con.print(book)
    if not adds_up:
        con.print("to the millisecond (each figure above rounded by the clock's rule):")
        for side in SIDES:
            con.print("  %s: %s" % (side, exact_line(acc[side])))
    if any(acc[s]["other_ms"] for s in SIDES):
        con.print("goclock: warning: part of the time left is not explained by the log")
