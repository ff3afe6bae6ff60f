"""Times as people read them, by one rule everywhere: the clock's display, the host tool's
status, watch, reports and exports, and the moments of the calls (this one module for
Python, firmware and host alike; the web pages keep the same rule in one JavaScript
module of their own).

A time LEFT is rounded UP to the whole second: "0:01" until the instant the time is gone,
and "0:00" only then, so a side's flag falls as its display reaches 0:00, and a call made
at a whole second of time left ("30秒" of a 60 s period, the count "1" with 9 s left)
coincides with the display turning to that second. A time USED or counted up (a move's
time, an untimed side's total, the game time) is rounded DOWN: a move of 4.9 s took 0:04,
the seconds that have passed. The log, the exports and the protocol keep milliseconds.

    left_text(1197991)  -> "19:58"      used_text(1197991) -> "19:57"
    left_text(1)        -> "0:01"       left_text(0)       -> "0:00"
    left_text(3600000)  -> "1:00:00"    used_text(59999)   -> "0:59"

Integers only (no floats in timekeeping), and no allocation beyond the string: the
display calls it every second.
"""


def face(s):
    """Whole seconds as a clock face: M:SS under an hour, H:MM:SS from there."""
    h = s // 3600
    m = (s // 60) % 60
    s = s % 60
    if h:
        return "%d:%02d:%02d" % (h, m, s)
    return "%d:%02d" % (m, s)


def left_text(ms):
    """A time left, rounded up to the second (never below 0:00)."""
    if ms <= 0:
        return "0:00"
    return face((ms + 999) // 1000)


def used_text(ms):
    """A time used or counted up, rounded down to the second (a sign kept when below 0)."""
    if ms < 0:
        return "-" + used_text(-ms)
    return face(ms // 1000)


def left_seconds(ms):
    """The whole seconds `left_text` shows."""
    return (ms + 999) // 1000 if ms > 0 else 0
