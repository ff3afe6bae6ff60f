"""Time use of a game: per move in the terminal (rich), and as a chart (matplotlib, Agg)."""

from rich.table import Table

from . import SIDES, ui
from .sgf_merge import time_properties


def summary(record):
    """Per side: moves, total and longest move time, moves in overtime."""
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
            "overtime_moves": sum(1 for m in moves if m["left"].get("main_ms") == 0),
        }
    return out


def _left_text(tc_type, left):
    if not left:
        return "-"
    seconds, count = time_properties(tc_type, left)
    text = ui.clock_text(int(float(seconds) * 1000))
    if count is not None:
        text += " (%s %s)" % (count, "periods" if tc_type == "byoyomi" else "moves")
    return text


def print_report(record):
    tc_type = (record.time_control or {}).get("type")
    con = ui.console()
    table = Table(title="game %s: time per move" % record.game, header_style="bold")
    for col in ("#", "side", "at", "used", "left"):
        table.add_column(col, justify="right" if col != "side" else "left")
    for m in record.moves:
        used = "pass (ruling)" if m.get("pass") else ui.clock_text(m.get("used_ms"))
        table.add_row(
            str(m["n"]), m["side"], ui.clock_text(m.get("t")), used, _left_text(tc_type, m["left"])
        )
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

    tc_type = (record.time_control or {}).get("type")
    fig, (ax_used, ax_left) = plt.subplots(2, 1, figsize=(10, 6), sharex=True)
    style = {"black": {"color": "#222222"}, "white": {"color": "#bbbbbb", "edgecolor": "#444444"}}
    for side in SIDES:
        moves = [m for m in record.moves if m["side"] == side]
        xs = [m["n"] for m in moves]
        ax_used.bar(
            xs, [(m.get("used_ms") or 0) / 1000.0 for m in moves], label=side, **style[side]
        )
        lefts = [
            (m["n"], float(time_properties(tc_type, m["left"])[0])) for m in moves if m["left"]
        ]
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
    ax_left.set_ylabel("minutes left")
    ax_left.set_xlabel("move")
    ax_left.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
