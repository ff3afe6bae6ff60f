"""The hall view's table: one row per clock, as of a given instant (pure; tested with
injected time).

Times left are rounded up to the second and times used down (decisions.md); the running
side counts down from the state's reference time (model.py). A clock calling the arbiter
is shown until the call is acknowledged; a clock whose broker connection died shows
offline (its Last Will).
"""

from rich.table import Table
from rich.text import Text

from .model import left_text, used_text


def side_cell(st):
    """One side's time: main, then byo-yomi periods, a Canadian block, an untimed total."""
    if not isinstance(st, dict):
        return "-"
    if "spent_ms" in st:
        text = "%s used" % used_text(st["spent_ms"])
    elif "period_ms" in st and not ("periods" in st or "moves" in st):
        text = "%s this move" % left_text(st["period_ms"])
    else:
        text = left_text(st.get("main_ms"))
    if "periods" in st:
        text += " %d×%s" % (st["periods"] or 0, left_text(st.get("period_ms")))
    elif "moves" in st:
        text += " %s/%s" % (st["moves"], left_text(st.get("period_ms")))
    if st.get("points"):
        text += " %dp" % st["points"]
    if st.get("flagged"):
        text += " FLAG"
    return text


def sort_key(c):
    table = (c.state or {}).get("table")
    return (0, table, c.name) if isinstance(table, int) else (1, 0, c.name)


def row(c, now, logs=None):
    """One clock's row: a dict of the columns' texts (and `style`)."""
    st = c.state or {}
    sides = c.sides(now)
    state = st.get("state") or "-"
    turn = st.get("turn")
    if state == "running" and turn in ("black", "white"):
        state = "running (%s)" % ("B" if turn == "black" else "W")
    notes = []
    style = ""
    if c.online is False:
        notes.append("OFFLINE")
        style = "dim"
    if c.calling:
        notes.append("CALLS THE ARBITER")
        style = "bold red"
    flagged = [s for s in ("black", "white") if (sides.get(s) or {}).get("flagged")]
    if flagged:
        notes.append("%s flagged" % " and ".join(flagged))
        style = style or "yellow"
    if state == "paused":
        notes.append("paused")
    players = "%s – %s" % (st.get("black_name") or "?", st.get("white_name") or "?")
    if not (st.get("black_name") or st.get("white_name")):
        players = "-"
    table = st.get("table")
    g = (logs or {}).get((c.name, st.get("game")))
    log = "-"
    if g is not None:
        log = "%d rec" % g["records"]
        if g.get("waiting_for"):
            log += " (waiting for %d)" % g["waiting_for"][0]
        if g.get("verdict") is not None:
            log += " ✓" if g["ok"] else " NOT VERIFIED"
    return {
        "table": str(table) if table is not None else "-",
        "clock": c.name,
        "players": players,
        "state": state,
        "black": side_cell(sides.get("black")),
        "white": side_cell(sides.get("white")),
        "moves": str(st.get("moves")) if st.get("moves") is not None else "-",
        "game": str(st.get("game")) if st.get("game") is not None else "-",
        "log": log,
        "notes": ", ".join(notes),
        "style": style,
    }


COLUMNS = ("table", "clock", "players", "state", "black", "white", "moves", "game", "log", "notes")


def rows(hall, now, summary=()):
    logs = {(s["clock"], s["game"]): s for s in summary}
    return [row(c, now, logs) for c in sorted(hall.clocks.values(), key=sort_key)]


def table(hall, now, summary=(), title="hall", connected=True):
    t = Table(title=title + ("" if connected else "  (broker lost: reconnecting)"))
    for col in COLUMNS:
        t.add_column(col)
    for r in rows(hall, now, summary):
        t.add_row(*(r[c] for c in COLUMNS), style=r["style"] or None)
    calls = hall.calls()
    if calls:
        t.caption = "press a to acknowledge %s's call" % calls[0].name
    return t


def plain(hall, now, summary=()):
    """The table as plain text lines (for a pipe, and the tests)."""
    out = []
    for r in rows(hall, now, summary):
        out.append("  ".join(r[c] for c in COLUMNS if r[c]))
    return out


def notice_text(notices):
    return Text("\n".join(text for _, text in notices[-3:]), style="dim")
