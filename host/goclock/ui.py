"""Output helpers shared by the command handlers: times, side status, tables, JSON."""

import json
import sys

from rich.console import Console
from rich.table import Table

from goclockfw import timetext

from . import SIDES
from .words import plural  # noqa: F401 (the handlers say ui.plural)


def console():
    # Created per call so tests capturing sys.stdout see the output.
    return Console(file=sys.stdout, highlight=False, soft_wrap=True)


def print_json(obj):
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=1) + "\n")


def size_text(n):
    """Bytes as a person reads them: 812 B, 77.5 KB, 1.4 MB, 72.5 GB; "unknown" for -1."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        return "unknown"
    if n < 1024:
        return "%d B" % n
    for unit in ("KB", "MB", "GB", "TB"):
        n /= 1024.0
        if n < 1024 or unit == "TB":
            return ("%.1f %s" if n < 100 else "%.0f %s") % (n, unit)


def confirm(question, stdin=None, stdout=None):
    """Ask a yes/no question in a terminal: True or False; None when there is no terminal."""
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    if not (stdin.isatty() and stdout.isatty()):
        return None
    stdout.write(question + " [y/N] ")
    stdout.flush()
    answer = stdin.readline()
    return answer.strip().lower() in ("y", "yes")


def time_left(ms):
    """A time left as the clock shows it: rounded up to the second (goclockfw/timetext.py,
    the one rule of the display, the host and the calls); "-" when unknown."""
    return "-" if ms is None else timetext.left_text(int(ms))


def time_used(ms):
    """A time used or counted up (a move's time, a game time, a charge): rounded down."""
    return "-" if ms is None else timetext.used_text(int(ms))


def side_text(st):
    """One side's status as a line: main time, then what overtime is left."""
    if not isinstance(st, dict):
        return "?"
    if "spent_ms" in st:  # untimed: nothing runs out, the side's own total counts up
        text = "%s used" % time_used(st["spent_ms"])
    elif "period_ms" in st and not ("periods" in st or "moves" in st):
        # a time per move (Bronstein with no main time): what is left of this move
        text = "%s this move" % time_left(st["period_ms"])
    else:
        text = time_left(st.get("main_ms"))
    if "periods" in st:
        text += "  %d × %s" % (st["periods"], time_left(st.get("period_ms")))
    elif "moves" in st:
        text += "  %s in %s" % (plural(st["moves"], "move"), time_left(st.get("period_ms")))
    if st.get("points"):
        text += "  %s" % plural(st["points"], "penalty point")
    if st.get("flagged"):
        text += "  FLAG"
    if st.get("absent"):  # marked late and not arrived (art. 22): its clock runs meanwhile
        text += "  ABSENT"
    return text


def status_table(st, title=None):
    table = Table(title=title, show_header=True, header_style="bold")
    table.add_column("")
    table.add_column("time")
    for side in SIDES:
        # The side to move, its clock running or to run on resume (a pause keeps the turn).
        to_move = st.get("turn") == side and st.get("state") in ("running", "paused")
        table.add_row(("▶ " if to_move else "  ") + side, side_text(st.get(side)))
    return table


def status_line(st):
    """A short text of a status reply, for `watch` and plain logs."""
    turn = st.get("turn")
    parts = [st.get("state", "?")]
    if turn:
        parts.append("%s to move" % turn)
    parts.append("%s played" % plural(st.get("moves", 0), "move"))
    return "%s  |  black %s  |  white %s" % (
        ", ".join(parts),
        side_text(st.get("black")),
        side_text(st.get("white")),
    )


def kv_table(rows, title=None):
    table = Table(title=title, show_header=False)
    table.add_column(style="bold")
    table.add_column()
    for key, value in rows:
        table.add_row(str(key), "-" if value is None else str(value))
    return table
