"""What the announcer says, and when: the call profiles.

A profile answers three questions for the clock core:

- `period_calls(period_ms, left)`: the calls of one byo-yomi period, as two
  parallel tuples (offsets in ms from the period's start, phrases), in the
  order they are spoken. `left` counts the period in use. Calls whose offset
  equals the period length are said as the period ends.
- `countdown`: the calls before a loss on time, wherever running out means
  losing (sudden death, Fischer, delay, a Canadian block, byo-yomi with no
  periods): (ms before the loss, phrase) pairs, in spoken order.
- `byoyomi_start` / `timeout`: the phrase said when byo-yomi (or the first
  Canadian block) begins during a move, and after the final count.
- `penalty(points)`: what is said as an Ing overtime period begins, naming the
  side's penalty points so far (2, 4, 6 under the Ing rules' 2 points a
  period); the last period then runs down like any loss on time (`countdown`).

The phrases are exact strings: they name the clips of the voice packs.
Tables are built when a period starts (an event), never on the tick path.
"""

from goclockfw.core.timecontrol import ConfigError

_SEC = 1000
# Where running out loses, the last ten seconds counted up: "1" with 9 s left ... "10" at 0.
# The cn and jp profiles both count this way.
# (Written out: constant tuples, in flash when frozen; built at import they took the heap.)
COUNT_TO_TEN = (
    (9000, "1"),
    (8000, "2"),
    (7000, "3"),
    (6000, "4"),
    (5000, "5"),
    (4000, "6"),
    (3000, "7"),
    (2000, "8"),
    (1000, "9"),
    (0, "10"),
)
_ONE_TO_TEN = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10")


class NoCalls:
    """Silence: the clock still keeps time and flags, it just says nothing."""

    name = "none"
    countdown = ()
    byoyomi_start = None
    timeout = None

    def period_calls(self, period_ms, left):
        return (), ()

    def penalty(self, points):
        return None


class ChineseCalls:
    """The calls of the Chinese rules (2002, art. 12.3 and 22), "cn".

    60 s periods: 30, 40, 50, 55, 58 s, then "1分" and "还剩X分"; in the
    last minute 30, 40, 50 s and then one count a second, "1" at 51 s up to
    "10" at 60 s. Faster periods follow the same principle: tens of seconds,
    then P-5 and P-2 s and "还剩X次"; in the last period the tens up to P-10
    and the final ten seconds counted 1 to 10.
    """

    name = "cn"
    byoyomi_start = "开始读秒"
    timeout = "超时判负"
    countdown = COUNT_TO_TEN

    def period_calls(self, period_ms, left):
        # Built from ranges and constant tuples, not a call per phrase: on an RP2040 this
        # runs in a quiet loop pass while the last call plays, and a pass stays short.
        seconds = period_ms // _SEC
        first = 30 if seconds == 60 else 10  # a minute's tens begin at 30 s
        if left > 1:
            stop = seconds - 5  # the tens below P-5, then P-5 and P-2
            tail_at = ((seconds - 5) * _SEC, (seconds - 2) * _SEC, seconds * _SEC)
            tail = ("%d秒" % (seconds - 5), "%d秒" % (seconds - 2))
            if seconds == 60:
                tail_at += (seconds * _SEC,)
                tail += ("1分", "还剩%d分" % (left - 1))
            else:
                tail += ("还剩%d次" % (left - 1),)
        else:  # the last period: the tens up to P-10, then one count a second
            stop = seconds - 9
            end = seconds * _SEC
            tail_at = tuple(range(end - 9 * _SEC, end + 1, _SEC))
            tail = _ONE_TO_TEN
        offsets = tuple(range(first * _SEC, stop * _SEC, 10 * _SEC)) + tail_at
        return offsets, tuple("%d秒" % s for s in range(first, stop, 10)) + tail

    def penalty(self, points):
        """ "共罚4点": 4 penalty points in all (Ing overtime)."""
        return "共罚%d点" % points


_BUILT_IN = {"cn": ChineseCalls, "none": NoCalls}
# Profiles that live in modules of their own, loaded only when asked for.
_MODULES = {"jp": "goclockfw.core.calls_jp", "en": "goclockfw.core.calls_en"}


def profile(name):
    """The call profile called `name`; ConfigError when it is not installed."""
    if name in _BUILT_IN:
        return _BUILT_IN[name]()
    module_name = _MODULES.get(name)
    if module_name is None:
        raise ConfigError("calls: unknown call profile %r" % (name,))
    try:
        # With a fromlist, __import__ gives the submodule itself (CPython and MicroPython).
        module = __import__(module_name, None, None, ("Profile",))
    except ImportError:
        raise ConfigError("calls: profile %r is not installed on this clock" % (name,)) from None
    return module.Profile()


# The penalty totals the packs cover: the Ing rules' 2 points for each of 3 periods.
# Any other total is still said, as a beep (the announcer's fallback for a missing clip).
PENALTY_POINTS = (2, 4, 6)


def phrases(profile_obj, period_seconds_range=(10, 60), max_periods=10):
    """Every phrase a profile can say for the given periods (for voice-pack checks)."""
    seen = []

    def add(p):
        if p is not None and p not in seen:
            seen.append(p)

    for seconds in range(period_seconds_range[0], period_seconds_range[1] + 1):
        for left in range(1, max_periods + 1):
            for p in profile_obj.period_calls(seconds * _SEC, left)[1]:
                add(p)
    for _, p in profile_obj.countdown:
        add(p)
    add(profile_obj.byoyomi_start)
    add(profile_obj.timeout)
    for points in PENALTY_POINTS:
        add(profile_obj.penalty(points))
    return seen
