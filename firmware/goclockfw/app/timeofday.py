"""The clock's time of day: set by `time.sync` (the host, the hall) or SNTP, else unknown.

Kept as the time of day (ms since the Unix epoch) at one tick, so reading it is an add:
`ms(now)`. Those values are beyond a small int (a big int on MicroPython), so reading
allocates: it is read only where a game starts, for a state message and for `info`,
never for a press. The tick wraps every 2**30 ms (12 days); the anchor moves on at each
read more than a day after it, so the difference stays well inside `ticks_diff`'s range.
"""

from goclockfw.core.ticks import ticks_add, ticks_diff

DAY_MS = 86400000
# 2020-01-01 .. 2100-01-01 (ms since the epoch): the range `time.sync` accepts.
EARLIEST = 1577836800000
LATEST = 4102444800000


class TimeOfDay:
    def __init__(self):
        self.base = None  # ms since the epoch at `tick`, or None: not known
        self.tick = 0
        self.source = None  # "host", "hall", "sntp"

    def set(self, utc_ms, tick, source):
        self.base = utc_ms
        self.tick = tick
        self.source = source

    def ms(self, now):
        """The time of day at tick `now` in ms since the epoch, or None."""
        base = self.base
        if base is None:
            return None
        d = ticks_diff(now, self.tick)
        if d > DAY_MS:
            self.base = base = base + DAY_MS
            self.tick = ticks_add(self.tick, DAY_MS)
            d -= DAY_MS
        return base + d
