"""Durations as people write them, in one place for the notation and the SGF reader.

    2h  1h30m  90s  1.5s  25:00  1:30:00       the notation's own forms
    30min  1.5h  2hours  45sec  500ms  90分      the natural spellings, read the same way

Every unit is read with its plain meaning (`m` is minutes, `ms` milliseconds) and any part
may carry a decimal point: `1.5h` is 5400 s. The arithmetic is exact (fractions), so
`1.1h` is 3960 s, not 3960.0000000000005. The result is seconds: an int when whole,
else a float, as the time-control JSON has them.
"""

import re
from fractions import Fraction

# Each unit's spellings (lower case), and its length in seconds.
UNITS = (
    (("h", "hr", "hrs", "hour", "hours", "小时", "小時", "時間"), 3600),
    (("m", "min", "mins", "minute", "minutes", "分", "分钟", "分鐘"), 60),
    (("s", "sec", "secs", "second", "seconds", "秒"), 1),
    (("ms", "msec", "millisecond", "milliseconds", "毫秒"), Fraction(1, 1000)),
)
_SCALE = {name: scale for names, scale in UNITS for name in names}
_PART = re.compile(r"(\d+(?:\.\d+)?)\s*([^\d\s.:+/x×*=,]+)")
_CLOCK = re.compile(r"^\d+(:\d\d){1,2}$")
# A number with a unit word after it in the next word: "30 min" reads as "30min".
UNIT_WORD = "|".join(sorted((re.escape(n) for n in _SCALE), key=len, reverse=True))


def _seconds(total):
    return int(total) if total.denominator == 1 else float(total)


def clock_seconds(text):
    """Seconds of `25:00` or `1:30:00` (minutes and seconds of two digits), else None."""
    if not _CLOCK.match(text):
        return None
    total = 0
    for part in text.split(":"):
        total = total * 60 + int(part)
    return total


def unit_seconds(text):
    """Seconds of a duration written with units (`1h30m`, `30 min`, `1.5h`), else None.

    Each unit at most once, largest first: `30m1h` and `1m1m` are not durations."""
    t = text.strip().lower()
    parts = _PART.findall(t)
    if not parts or _PART.sub("", t).strip():
        return None
    total = Fraction(0)
    last = None
    for value, unit in parts:
        scale = _SCALE.get(unit)
        if scale is None or (last is not None and scale >= last):
            return None
        last = scale
        total += Fraction(value) * scale
    return _seconds(total)
