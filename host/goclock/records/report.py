"""Time use of a game: per move in the terminal (rich), and as a chart (matplotlib, Agg)."""

from rich.table import Table

from .. import SIDES, ui
from .sgfmerge import move_time_left

# Controls with an overtime after main time: a move made with main time 0 is in it.
_OVERTIME = ("byoyomi", "canadian", "ing")


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


def _left_text(tc, move):
    left = move["left"]
    if not left:
        return "-"
    if "spent_ms" in left:  # untimed: nothing is left; the side's total so far
        return "%s used" % ui.clock_text(left["spent_ms"])
    seconds, count = move_time_left(tc, move)
    text = ui.clock_text(int(float(seconds) * 1000))
    if count is not None:
        text += " (%s)" % ui.plural(count, "move" if tc.get("type") == "canadian" else "period")
    if left.get("points"):
        text += " -%d pt" % left["points"]
    return text


def print_report(record):
    tc = record.time_control or {}
    con = ui.console()
    table = Table(title="game %s: time per move" % record.game, header_style="bold")
    for col in ("#", "side", "at", "used", "left"):
        table.add_column(col, justify="right" if col != "side" else "left")
    for m in record.moves:
        used = ui.clock_text(m.get("used_ms"))
        if m.get("pass"):
            used = "pass (ruling) %s" % used
        table.add_row(str(m["n"]), m["side"], ui.clock_text(m.get("t")), used, _left_text(tc, m))
    con.print(table)
    totals = Table(title="totals", header_style="bold")
    for col in ("side", "moves", "used", "average", "longest", "in overtime"):
        totals.add_column(col)
    for side, s in summary(record).items():
        longest = (
            "%s (move %s)" % (ui.clock_text(s["longest_ms"]), s["longest_move"])
            if s["longest_move"]
            else "-"
        )
        totals.add_row(
            side,
            str(s["moves"]),
            ui.clock_text(s["used_ms"]),
            ui.clock_text(s["average_ms"]),
            longest,
            str(s["overtime_moves"]),
        )
    con.print(totals)
    con.print("log: %s" % record.verdict)


def plot(record, path):
    """Seconds used per move (bars) and time left (lines), per side, into an image file."""
    import matplotlib

    matplotlib.use("Agg")  # no display needed, and none is opened
    import matplotlib.pyplot as plt

    tc = record.time_control or {}
    untimed = tc.get("type") == "untimed"
    fig, (ax_used, ax_left) = plt.subplots(2, 1, figsize=(10, 6), sharex=True)
    style = {"black": {"color": "#222222"}, "white": {"color": "#bbbbbb", "edgecolor": "#444444"}}
    for side in SIDES:
        moves = [m for m in record.moves if m["side"] == side]
        xs = [m["n"] for m in moves]
        ax_used.bar(
            xs, [(m.get("used_ms") or 0) / 1000.0 for m in moves], label=side, **style[side]
        )
        if untimed:  # no time left: each side's total used so far
            lefts = [(m["n"], m["left"].get("spent_ms", 0) / 1000.0) for m in moves if m["left"]]
        else:
            lefts = [(m["n"], float(move_time_left(tc, m)[0])) for m in moves if m["left"]]
        if lefts:
            ax_left.plot(
                [x for x, _ in lefts],
                [y / 60.0 for _, y in lefts],
                label=side,
                color=style[side].get("edgecolor", style[side]["color"]),
            )
    ax_used.set_ylabel("seconds used")
    ax_used.legend()
    ax_used.set_title("game %s" % record.game)
    ax_left.set_ylabel("minutes used" if untimed else "minutes left")
    ax_left.set_xlabel("move")
    ax_left.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
