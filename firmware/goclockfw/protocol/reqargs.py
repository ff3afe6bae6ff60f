"""Checks of protocol request arguments: each bad one gives a message naming it.

A request is a dict from JSON; these read one argument each, apply its
default, and raise RequestError (a ValueError) when it has the wrong type or
is out of range, so the protocol refuses it before touching the clock.
"""

from goclockfw.core.timecontrol import SIDE_NAMES

MAX_SECONDS = 360000  # 100 h: far beyond any game, far below the tick range


class RequestError(ValueError):
    """A request the protocol refuses before touching the app."""


def is_int(v):
    # bool is an int subclass on both CPython and MicroPython: refuse it.
    return isinstance(v, int) and not isinstance(v, bool)


def want_int(req, key, lo, hi, default=None):
    """An integer argument in [lo, hi], or `default` when absent or null."""
    v = req.get(key, default)
    if v is None:
        return default
    if not is_int(v):
        raise RequestError("'%s' must be an integer" % key)
    if v < lo or v > hi:
        raise RequestError("'%s' must be between %d and %d" % (key, lo, hi))
    return v


def want_seconds(req, key):
    """A duration in seconds (int or float, ms precision) -> int ms, or None."""
    v = req.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise RequestError("'%s' must be a number of seconds" % key)
    # The bound also rules out inf and nan (nan fails both comparisons).
    if not (0 <= v <= MAX_SECONDS):
        raise RequestError("'%s' must be between 0 and %d seconds" % (key, MAX_SECONDS))
    return int(v * 1000 + 0.5) if isinstance(v, float) else v * 1000


def want_side(req):
    """The side argument as 0 (black) or 1 (white)."""
    v = req.get("side")
    if v not in SIDE_NAMES:
        raise RequestError('\'side\' must be "black" or "white"')
    return SIDE_NAMES.index(v)


def want_bool(req, key):
    v = req.get(key)
    if not isinstance(v, bool):
        raise RequestError("'%s' must be true or false" % key)
    return v


def want_object(req, key):
    v = req.get(key)
    if not isinstance(v, dict):
        raise RequestError("'%s' must be an object" % key)
    return v
