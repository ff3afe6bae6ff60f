"""Millisecond tick arithmetic with MicroPython's wraparound semantics.

Ticks are integers in [0, TICKS_PERIOD) that wrap around, exactly like
`time.ticks_ms()` on every MicroPython port. The clock core never subtracts
ticks directly: it only uses `ticks_add` and `ticks_diff`, so a game that
spans the wrap keeps exact time. The period is 2**30, which keeps every tick a
small int on MicroPython (no heap allocation for arithmetic).

Differences are valid while the two ticks are less than half a period apart
(about 6.2 days), far longer than any game.
"""

TICKS_PERIOD = 1 << 30
_TICKS_MAX = TICKS_PERIOD - 1
_TICKS_HALF = TICKS_PERIOD >> 1


def ticks_add(ticks, delta):
    """The tick `delta` ms after `ticks` (delta may be negative)."""
    return (ticks + delta) & _TICKS_MAX


def ticks_diff(end, start):
    """Signed ms from `start` to `end`, correct across the wrap."""
    return ((end - start + _TICKS_HALF) & _TICKS_MAX) - _TICKS_HALF
