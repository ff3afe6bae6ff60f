"""What the clock shows: both times, periods or moves left, whose turn, paused or flag.

`view(status, menu)` turns the app's status (the protocol's status object)
into a few short strings; the same view is drawn on an SSD1306 128x64 (the
micropython-lib driver, made by the board and passed in) and sent to the
desktop launcher, which draws it large in the terminal. Times are shown
rounded up to the second, as a countdown should: "0:01" until the flag.

SSD1306 layout (8x8 font; the times twice as large):
    y  0  B  5x60s        <   (the marker shows whose clock runs)
    y 10  1:54:59             (16 px high)
    y 28  W  5x60s
    y 38  1:55:00
    y 56  PAUSED / B FLAG / preset 3 ...
"""


def clock_text(ms):
    """H:MM:SS, or M:SS under an hour; rounded up to the second."""
    if ms < 0:
        ms = 0
    s = (ms + 999) // 1000
    h = s // 3600
    m = (s // 60) % 60
    s = s % 60
    if h:
        return "%d:%02d:%02d" % (h, m, s)
    return "%d:%02d" % (m, s)


def _side_view(st, kind=None):
    """(big time, small line) of one side's status; `kind` the time control's type."""
    main = st.get("main_ms", 0)
    if "spent_ms" in st:
        # Untimed: the side's own thinking time, counting up; the seconds reached, not
        # rounded up like a countdown.
        spent = st["spent_ms"]
        return clock_text(spent - spent % 1000), "untimed"
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
            return clock_text(main), "then %d moves" % st["moves"]
        return clock_text(st.get("period_ms", 0)), "%d moves left" % st["moves"]
    if "period_ms" in st:  # a time per move (a delay with no main time): this move's left
        return clock_text(st["period_ms"]), "per move"
    return clock_text(main), "hourglass" if kind == "hourglass" else ""


def view(status, menu=None):
    """The strings to show, from an app status dict; `menu`: preset name on offer."""
    kind = (status.get("time_control") or {}).get("type")
    b_time, b_sub = _side_view(status["black"], kind)
    w_time, w_sub = _side_view(status["white"], kind)
    state = status["state"]
    note = ""
    if menu is not None:
        note = "preset " + menu
    elif status["black"].get("flagged"):
        note = "BLACK FLAG"
    elif status["white"].get("flagged"):
        note = "WHITE FLAG"
    elif state == "paused":
        note = "PAUSED"
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
        "state": state,
        "note": note,
    }


class Ssd1306View:
    """Draws a view on an SSD1306 driver (framebuf API: fill, text, fill_rect, show)."""

    def __init__(self, driver):
        self.d = driver
        self._last = None
        try:
            import framebuf

            self._glyph_buf = bytearray(8)
            self._glyph = framebuf.FrameBuffer(self._glyph_buf, 8, 8, framebuf.MONO_HLSB)
        except ImportError:
            self._glyph = None

    def _big(self, text, x, y):
        # Each character drawn at 1x into an 8x8 buffer, then every lit pixel as a 2x2 block.
        g = self._glyph
        if g is None:
            self.d.text(text, x, y)
            return
        for ch in text:
            g.fill(0)
            g.text(ch, 0, 0, 1)
            for row in range(8):
                bits = self._glyph_buf[row]
                if bits:
                    for col in range(8):
                        if bits & (0x80 >> col):
                            self.d.fill_rect(x + 2 * col, y + 2 * row, 2, 2, 1)
            x += 16

    def draw(self, v):
        if v == self._last:
            return
        self._last = v
        d = self.d
        d.fill(0)
        d.text("B " + v["black_sub"], 0, 0, 1)
        self._big(v["black"], 0, 10)
        d.text("W " + v["white_sub"], 0, 28, 1)
        self._big(v["white"], 0, 38)
        if v["state"] == "running":
            d.text("<", 120, 0 if v["turn"] == "black" else 28, 1)
        d.text(v["note"], 0, 56, 1)
        d.show()
