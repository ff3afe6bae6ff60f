"""The "en" call profile: time left, counted down, as English-speaking players hear it online.

English calls say what is left, not what is used:

- "30 seconds" and "20 seconds" when that much of the period is left;
- then the last ten seconds counted down, "10" at P-10 s to "1" at P-1 s;
- but nothing in a period's first two seconds (in a 10 s period the count
  starts at "8"), so that the roll-over call is heard in full;
- at P: "2 periods left" ... "9 periods left", or "last period" when one
  is left; at the end of the last period the core says "out of time".

"4 penalty points" (in all) is said as an Ing overtime period begins.

"byo-yomi" is said when main time runs out; where running out means losing
(sudden death, Fischer, delay, a Canadian block) the same countdown is used:
"30 seconds", "20 seconds", "10" … "1", then "out of time".

Same interface as the profiles in core/callplan.py; loaded by `callplan.profile`.
"""

_SEC = 1000
_WARNINGS = (30, 20)
# Nothing is said in the first two seconds of a period: they are left to the
# roll-over call ("2 periods left"), so in a 10 s period the count starts at "8".
_QUIET = 2


def _left_phrase(n):
    if n == 1:
        return "last period"
    return "%d periods left" % n


class Profile:
    name = "en"
    byoyomi_start = "byo-yomi"
    timeout = "out of time"
    countdown = ((30000, "30 seconds"), (20000, "20 seconds")) + tuple(
        (1000 * (10 - i), str(10 - i)) for i in range(10)
    )

    def period_calls(self, period_ms, left):
        """(offsets in ms, phrases) of one period of `period_ms`, `left` counting this one."""
        seconds = period_ms // _SEC
        offsets = []
        phrases = []
        for r in _WARNINGS:
            if seconds - r >= _QUIET:
                offsets.append((seconds - r) * _SEC)
                phrases.append("%d seconds" % r)
        for r in range(10, 0, -1):
            if seconds - r >= _QUIET:
                offsets.append((seconds - r) * _SEC)
                phrases.append(str(r))
        if left > 1:
            offsets.append(seconds * _SEC)
            phrases.append(_left_phrase(left - 1))
        return tuple(offsets), tuple(phrases)

    def penalty(self, points):
        """Ing overtime: the side's penalty points so far."""
        return "1 penalty point" if points == 1 else "%d penalty points" % points
