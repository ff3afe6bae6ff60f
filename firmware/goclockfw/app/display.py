"""What the clock shows: both times, periods or moves left, whose turn, paused or flag.

`view(status, menu)` turns the app's status (the protocol's status object)
into a few short strings; the same view is drawn on an SSD1306 128x64
(app/screen.py) and sent to the desktop launcher, which draws it large in the
terminal. Times follow the one rule of goclockfw/timetext.py: a time left is rounded
up to the second ("0:01" until the flag, "0:00" when it falls), a time counted up
(an untimed side's total) down.

SSD1306 layout (8x8 font; the times twice as large):
    y  0  B  5x60s        <   (the marker: whose clock runs, or runs on resume)
    y 10  1:54:59             (16 px high)
    y 28  W  5x60s
    y 38  1:55:00
    y 56  PAUSED / BLACK FLAG / BLACK ABSENT / preset 3 ...

The marker (`mark`) is on the side to move while a clock runs and while it is paused (a
pause keeps whose move it is); a side marked late that has not arrived is named in the
note (`BLACK ABSENT`) until it does, unless a flag, a pause or the menu says more.
"""

from goclockfw.timetext import left_text as clock_text
from goclockfw.timetext import used_text


def _s(n):
    return "" if n == 1 else "s"


def _side_view(st, kind=None):
    """(big time, small line) of one side's status; `kind` the time control's type."""
    main = st.get("main_ms", 0)
    if "spent_ms" in st:
        # Untimed: the side's own thinking time, counting up: the seconds reached.
        return used_text(st["spent_ms"]), "untimed"
    if "points" in st:
        # Ing: main time, then periods that run on across moves, each costing points.
        if main > 0:
            p = st.get("period_ms", 0) // 1000
            length = "%dm" % (p // 60) if p % 60 == 0 else "%ds" % p
            return clock_text(main), "then %dx%s" % (st["periods"], length)
        return clock_text(st.get("period_ms", 0)), "OT %d left -%dpt" % (
            st["periods"],
            st["points"],
        )
    if "periods" in st:
        if main > 0:
            return clock_text(main), "%dx%ds" % (st["periods"], st.get("period_ms", 0) // 1000)
        return clock_text(st.get("period_ms", 0)), "byo %d left" % st["periods"]
    if "moves" in st:
        if main > 0:
            return clock_text(main), "then %d move%s" % (st["moves"], _s(st["moves"]))
        return clock_text(st.get("period_ms", 0)), "%d move%s left" % (st["moves"], _s(st["moves"]))
    if "period_ms" in st:  # a time per move (a delay with no main time): this move's left
        return clock_text(st["period_ms"]), "per move"
    return clock_text(main), "hourglass" if kind == "hourglass" else ""


def view(status, menu=None, menu_tc=None):
    """The strings to show, from an app status dict; `menu`: preset name on offer, with its
    time control `menu_tc` written out in "detail" (tctext.py: `byo 30m+3x30s`)."""
    kind = (status.get("time_control") or {}).get("type")
    b_time, b_sub = _side_view(status["black"], kind)
    w_time, w_sub = _side_view(status["white"], kind)
    state = status["state"]
    black = status["black"]
    white = status["white"]
    note = ""
    if menu is not None:
        note = "preset " + menu
    elif black.get("flagged"):
        note = "BLACK FLAG"
    elif white.get("flagged"):
        note = "WHITE FLAG"
    elif state == "paused":
        note = "PAUSED"
    elif state != "ended" and (black.get("absent") or white.get("absent")):
        if black.get("absent") and white.get("absent"):
            note = "BOTH ABSENT"
        else:
            note = "BLACK ABSENT" if black.get("absent") else "WHITE ABSENT"
    elif state == "idle":
        # The button of the side that does not move first starts the clock (Black's, in a
        # handicap game where White moves first).
        first = (status.get("time_control") or {}).get("first")
        note = "Black starts" if first == "white" else "White starts"
    elif state == "ended":
        note = "GAME OVER"
    return {
        "black": b_time,
        "white": w_time,
        "black_sub": b_sub,
        "white_sub": w_sub,
        "turn": status.get("turn"),
        "mark": status.get("turn") if state == "running" or state == "paused" else None,
        "state": state,
        "note": note,
        "detail": _tc_text(menu_tc) if menu is not None and menu_tc else "",
    }


def _tc_text(tc):
    from goclockfw.app import tctext  # only when the preset menu is open

    return tctext.text(tc)
