"""A time control in the words players write it: `cn 2h/5`, `byo 30m+3x30s`, `can 1h+15/10m
carry`. The clock shows it in the preset menu (display.py's view: the display's line and
`make sim`), and the host tool's notation (host/goclock/timecontrol/notation.py) writes the
same text with its options after it: one writer for both, so what the arbiter reads at the
board is what `goclock presets list` says.

`text(tc)` takes the time-control JSON (durations in seconds, as in the config) and writes
its type and durations only; the options (calls, first, odds) are the host's. Plain
Python that MicroPython runs: only imported when the menu opens.
"""

from goclockfw.core.timecontrol import DEFAULT_PENALTY

_STEPS = (3600, 1800, 600, 300, 60, 30, 10, 5, 1)


def duration(seconds):
    """The shortest writing of a duration: 7200 -> 2h, 5430 -> 1h30m30s, 1.5 -> 1.5s, 0."""
    if seconds == 0:
        return "0"
    whole = int(seconds)
    frac = seconds - whole
    h = whole // 3600
    m = whole // 60 % 60
    s = whole % 60
    out = ("%dh" % h if h else "") + ("%dm" % m if m else "")
    if frac:
        out += ("%.3f" % (s + frac)).rstrip("0") + "s"
    elif s:
        out += "%ds" % s
    return out


def _roundness(seconds):
    """How round a duration reads: fewer parts first, then a coarser last unit."""
    text = duration(seconds) if seconds else ""
    parts = text.count("h") + text.count("m") + text.count("s")
    for step in _STEPS:
        if seconds % step == 0:
            return (parts, -step)
    return (parts, 0)


def _period(seconds):
    """A byo-yomi period as players say it: 30s, 60s, 90s; 5m, 20m above two minutes."""
    if seconds <= 120 and seconds == int(seconds):
        return "%ds" % seconds
    return duration(seconds)


def _byoyomi(tc, main):
    periods = tc.get("periods", 0)
    period = tc.get("period")
    if periods and period == 60 and main:
        # Chinese notation when its limit reads rounder than the main time would: cn 2h/5
        # for 1h55m + 5 x 60 s, but byo 1h+5x60s and byo 10s+2x60s as they are.
        limit = main + 60 * periods
        if _roundness(limit) < _roundness(main):
            return "cn %s/%d" % (duration(limit), periods)
    if period is not None:
        return "byo %s+%dx%s" % (duration(main), periods, _period(period))
    return "byo %s+0" % duration(main)


def text(tc):
    """The notation of a time control's type and durations (no options)."""
    kind = tc["type"]
    main = tc.get("main", 0)
    if kind == "byoyomi":
        return _byoyomi(tc, main)
    if kind == "canadian":
        out = "can %s+%d/%s" % (duration(main), tc["moves"], duration(tc["period"]))
        return out + " carry" if tc.get("carry") else out
    if kind == "fischer":
        out = "fischer %s+%s" % (duration(main), duration(tc["increment"]))
        return out + " max %s" % duration(tc["max"]) if "max" in tc else out
    if kind == "delay":
        word = "bronstein" if tc.get("mode", "bronstein") == "bronstein" else "delay"
        return "%s %s+%s" % (word, duration(main), duration(tc["delay"]))
    if kind == "hourglass":
        return "hourglass %s" % duration(main)
    if kind == "untimed":
        return "untimed"
    if kind == "ing":
        out = "ing %s+%dx%s" % (duration(main), tc["periods"], duration(tc.get("period", 0)))
        penalty = tc.get("penalty", DEFAULT_PENALTY)
        return out if penalty == DEFAULT_PENALTY else out + " penalty=%d" % penalty
    return "sd %s" % duration(main)
