"""A request the clock refused, said in the words of the command the user typed.

The firmware's reasons are written for the protocol (docs/protocol.md): its field names
(`main`, `periods`), its units (ms in an arbiter's adjustment) and its request names
(`config.set`). The user typed `goclock time set black 50h`, so the refusal says
"main time: at most 48:00:00 (48 h) ...", never "time.set: main: must be from 0 to
172800000". A reason not listed here is already in plain words and is shown as it is.
"""

import re

from ..words import hms, seconds_in_words

# What the user typed for each field of `time.set` (goclock time set SIDE CLOCK --periods N).
_TIME_SET_FIELDS = {
    "main": "main time",
    "period": "--period",
    "periods": "--periods",
    "moves": "--moves",
}
_MS_FIELDS = ("main", "period")


def _time_set(reason):
    m = re.match(r"^(\w+): must be from (\d+) to (\d+)$", reason)
    if m and m.group(1) in _TIME_SET_FIELDS:
        field, low, high = m.group(1), int(m.group(2)), int(m.group(3))
        name = _TIME_SET_FIELDS[field]
        if field in _MS_FIELDS:
            return "%s: at most %s" % (name, hms(high // 1000))
        return "%s: from %d to %d" % (name, low, high)
    m = re.match(r"^(\w+): (.*)$", reason)
    if m and m.group(1) in _TIME_SET_FIELDS:
        return "%s: %s" % (_TIME_SET_FIELDS[m.group(1)], seconds_in_words(m.group(2)))
    return seconds_in_words(reason)


def _side_action(cmd, side, reason):
    """`goclock late SIDE` and `goclock arrive SIDE`: the side named, as the user typed it."""
    who = side or "the side"
    if cmd == "arrive" and reason == "this side was not marked late":
        return "%s was not marked late: there is no lateness to charge" % who
    reason = seconds_in_words(reason.replace("this side", who))
    if cmd == "late":
        return "%s cannot be marked late: %s" % (who, reason)
    return "%s's arrival cannot be charged: %s" % (who, reason)


def in_words(cmd, reason, side=None):
    """The refusal `reason` of request `cmd`, in the user's words (one line); `side` the
    side the command named (late, arrive)."""
    reason = str(reason)
    if reason == "a clock is running: pause it first":
        return "the clock is running: pause it first"
    m = re.match(r"^unknown command '(.*)'$", reason)
    if m:
        return (
            "the clock's firmware is older than this goclock and cannot do that (it does not "
            "know %s): update it with goclock deploy" % m.group(1)
        )
    if reason.startswith(("storage error", "internal error", "out of memory")):
        return "the clock failed: %s" % reason
    if cmd == "time.set":
        return _time_set(reason)
    if cmd in ("late", "arrive"):
        return _side_action(cmd, side, reason)
    return seconds_in_words(reason)
