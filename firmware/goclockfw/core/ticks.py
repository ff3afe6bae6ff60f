"""Millisecond tick arithmetic with MicroPython's wraparound semantics.

Ticks are integers in [0, TICKS_PERIOD) that wrap around, exactly like
`time.ticks_ms()` on the 32-bit MicroPython ports (RP2040, ESP32). The clock
core never subtracts ticks directly: it only uses `ticks_add` and
`ticks_diff`, so a game that spans the wrap keeps exact time.

On a board whose `time.ticks_*` use this same period, the built-in C versions
are used. Elsewhere (CPython, the 64-bit unix port, whose ticks wrap much
later: its hardware layer masks them to this period) the pure versions below
do the same; they are written so that no intermediate value leaves the
31-bit small-int range, so even on a 32-bit port they would not allocate.

Differences are valid while the two ticks are less than half a period apart
(about 6.2 days), far longer than any game.
"""

TICKS_PERIOD = 1 << 30
TICKS_MAX = TICKS_PERIOD - 1
_TICKS_HALF = TICKS_PERIOD >> 1


def ticks_add(ticks, delta):
    """The tick `delta` ms after `ticks` (|delta| < TICKS_PERIOD)."""
    if delta >= 0:
        room = TICKS_MAX - ticks
        return ticks + delta if delta <= room else delta - room - 1
    if -delta <= ticks:
        return ticks + delta
    return (ticks + delta) + TICKS_MAX + 1


def ticks_diff(end, start):
    """Signed ms from `start` to `end`, correct across the wrap."""
    d = end - start
    if d >= _TICKS_HALF:
        return d - TICKS_MAX - 1
    if d < -_TICKS_HALF:
        return d + TICKS_MAX + 1
    return d


try:
    import time as _time

    # Use the C versions only where the port wraps its ticks at the same period.
    if _time.ticks_add(TICKS_MAX, 1) == 0:
        ticks_add = _time.ticks_add  # noqa: F811
        ticks_diff = _time.ticks_diff  # noqa: F811
except AttributeError:
    pass
