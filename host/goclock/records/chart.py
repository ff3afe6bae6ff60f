"""The chart of a game for `goclock logs report --plot`: the one the logs page draws
(web/src/js/records/chart.js), from the same data (`chart_data`, the same as the page's
chartData for the same log: tests/web/test_logs.py), so an arbiter reads the same picture
on either.

- top: each side's main time left after each of its moves, Black in near-black with filled
  dots, White in orange with open squares, minutes:seconds on the axis, whole move numbers;
- below, once a side is in overtime: what was left of the period (or the Canadian block)
  at each move as a bar, with the periods (or moves) left above it. Overtime never joins
  the main-time line, so a side in byo-yomi never seems to gain time;
- marks between moves: P pause, A adjustment, L lateness, R ruling, F the flag (red), X a
  forfeit.

matplotlib is the `plot` extra (pip install 'goclock[plot]'); without it `plot` raises
PlotUnavailable, which the command says in one line.
"""

import math

from goclockfw.timetext import left_text

from ..errors import GoclockError

COLOURS = {"black": "#111111", "white": "#e06c00"}
MARKS = {
    "pause": "P",
    "adjust": "A",
    "late": "L",
    "arrive": "L",
    "ruling": "R",
    "timeout": "F",
    "forfeit": "X",
}
MARK_NAMES = {
    "P": "pause",
    "A": "time adjusted",
    "L": "lateness",
    "R": "ruling",
    "F": "the flag fell",
    "X": "forfeit",
}
OVERTIME = {"byoyomi": "periods", "ing": "periods", "canadian": "moves"}
SIDES = ("black", "white")


class PlotUnavailable(GoclockError):
    exit_code = 1


def chart_data(record):
    """What the chart shows: main [(move, ms)], over [(move, ms, count)] per side, marks
    [(x, letter, event, side)], the last move and the x axis' end."""
    tc = record.time_control or {}
    kind = tc.get("type")
    untimed = kind == "untimed"
    main = {s: [] for s in SIDES}
    over = {s: [] for s in SIDES}
    for side in SIDES:
        own = tc.get(side) or {}
        start = own.get("main", tc.get("main"))
        if untimed:
            main[side].append([0, 0])
        elif isinstance(start, (int, float)) and not isinstance(start, bool):
            main[side].append([0, int(math.floor(start * 1000 + 0.5))])
    by_record = {}
    count = OVERTIME.get(kind)
    for m in record.moves:
        by_record[m["record"]] = m
        left = m.get("left") or {}
        if untimed:
            if "spent_ms" in left:
                main[m["side"]].append([m["n"], left["spent_ms"]])
            continue
        in_overtime = (
            not left.get("main_ms") and "period_ms" in left and (count in left if count else True)
        )
        if in_overtime:
            pts = main[m["side"]]
            if not pts or pts[-1][1] != 0:
                pts.append([m["n"], 0])
            over[m["side"]].append([m["n"], left["period_ms"], left.get(count) if count else None])
        elif "main_ms" in left:
            main[m["side"]].append([m["n"], left["main_ms"]])
    marks = []
    done = record.moves[0]["n"] - 1 if record.moves else 0
    for entry, rec in zip(record.good, record.records):
        m = by_record.get(entry.number)
        if m:
            done = m["n"]
            if m.get("pass"):  # a timeout ruled a pass is a move, marked as the ruling
                marks.append([m["n"], "R", "ruling", m["side"]])
            continue
        letter = MARKS.get(rec.get("event"))
        if letter:
            marks.append([done + 0.5, letter, rec.get("event"), rec.get("side")])
    last = record.moves[-1]["n"] if record.moves else 1
    end = max([last] + [x for x, *_ in marks]) + 0.5
    return {
        "type": kind,
        "untimed": untimed,
        "main": main,
        "over": over,
        "marks": marks,
        "last": last,
        "end": end,
    }


def _nice_step(max_ms):
    for s in (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200):
        if max_ms / (s * 1000) <= 6:
            return s * 1000
    return 14_400_000


def _move_step(last):
    for s in (1, 2, 5, 10, 20, 25, 50, 100):
        if last / s <= 15:
            return s
    return 200


def _time_axis(ax, max_ms):
    step = _nice_step(max_ms)
    top = math.ceil(max_ms / step) * step
    ticks = list(range(0, top + 1, step))
    ax.set_ylim(0, top)
    ax.set_yticks(ticks)
    ax.set_yticklabels([left_text(v) for v in ticks])
    ax.grid(axis="y", color="#dddddd")


def plot(record, path):
    """Draw the chart into an image file (the format from its name: .png, .svg, .pdf)."""
    try:
        import matplotlib
    except ImportError:
        raise PlotUnavailable(
            "the chart needs matplotlib, which is not installed: pip install 'goclock[plot]'"
        ) from None
    matplotlib.use("Agg")  # no display needed, and none is opened
    import matplotlib.pyplot as plt

    d = chart_data(record)
    has_over = any(d["over"][s] for s in SIDES)
    if has_over:
        fig, (ax, ax_over) = plt.subplots(
            2, 1, figsize=(10, 6.5), sharex=True, gridspec_kw={"height_ratios": [2, 1]}
        )
    else:
        fig, ax = plt.subplots(figsize=(10, 4.5))
        ax_over = None
    _plot_main(ax, d, record.game)
    _plot_marks(ax, ax_over, d["marks"])
    ax.legend(loc="lower left")
    if ax_over is not None:
        _plot_overtime(ax_over, d)
    bottom = ax_over if ax_over is not None else ax
    step = _move_step(d["last"])
    bottom.set_xticks(list(range(0, d["last"] + 1, step)))
    bottom.set_xlim(-0.3, d["end"])
    bottom.set_xlabel("move")
    letters = sorted({m[1] for m in d["marks"]}, key="PALRFX".index)
    if letters:
        fig.text(
            0.01,
            0.005,
            "marks: " + ", ".join("%s %s" % (k, MARK_NAMES[k]) for k in letters),
            fontsize=9,
        )
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(path)
    plt.close(fig)


def _plot_main(ax, d, game):
    """Each side's main time left (or time used, untimed) after each of its moves."""
    style = {
        "black": {"marker": "o", "markerfacecolor": COLOURS["black"]},
        "white": {"marker": "s", "markerfacecolor": "white", "markeredgewidth": 2},
    }
    max_main = 1000
    for side in SIDES:
        pts = d["main"][side]
        if not pts:
            continue
        max_main = max([max_main] + [ms for _, ms in pts])
        ax.plot(
            [n for n, _ in pts],
            [ms for _, ms in pts],
            color=COLOURS[side],
            linewidth=2.2,
            label=side.capitalize(),
            **style[side],
        )
    _time_axis(ax, max_main)
    title = "time used so far (untimed)" if d["untimed"] else "main time left after each move"
    ax.set_title("game %s: %s" % (game, title), loc="left")


def _plot_marks(ax, ax_over, marks):
    """The game's marks (pauses, adjustments, flags...) as lines through both charts, their
    letters on the top one, one below the other where they share a move."""
    stacked = {}
    for x, letter, _kind, _side in marks:
        colour = "#c00000" if letter in ("F", "X") else "#6a5acd"
        for a in (ax, ax_over) if ax_over is not None else (ax,):
            a.axvline(x, color=colour, linestyle="--", linewidth=1)
        k = stacked[x] = stacked.get(x, -1) + 1
        ax.text(
            x,
            0.99 - 0.08 * k,
            " " + letter,
            color=colour,
            fontweight="bold",
            va="top",
            transform=ax.get_xaxis_transform(),
        )


def _plot_overtime(ax_over, d):
    """Each overtime move's time left of its period or block, the periods or moves left
    written above its bar."""
    max_over = 1000
    width = 0.6
    for side in SIDES:
        bars = d["over"][side]
        if not bars:
            continue
        max_over = max([max_over] + [ms for _, ms, _ in bars])
        ax_over.bar(
            [n for n, _, _ in bars],
            [ms for _, ms, _ in bars],
            width=width,
            color=COLOURS["black"] if side == "black" else "white",
            edgecolor=COLOURS[side],
            linewidth=2,
        )
        for n, ms, count in bars:
            if count is not None:
                ax_over.text(
                    n, ms, str(count), ha="center", va="bottom", color=COLOURS[side], fontsize=9
                )
    _time_axis(ax_over, max_over)
    what = "block" if d["type"] == "canadian" else "period"
    left = "moves" if d["type"] == "canadian" else "periods"
    ax_over.set_title(
        "overtime: left of the %s at each move (%s left above)" % (what, left), loc="left"
    )
