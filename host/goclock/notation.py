"""Time controls written the way players say them, to and from the time-control JSON.

    cn 2h/5              Chinese: 2 h limit, the last 5 minutes kept as 60 s byo-yomi
    byo 1h+5x30s         1 h main time, then 5 periods of 30 s
    sd 30m               sudden death
    can 1h+15/10m        1 h, then 15 moves per 10 min (add `carry` to keep what is left)
    fischer 5m+3s        3 s added after each move
    bronstein 5m+3s      Bronstein delay: up to 3 s of each move given back
    delay 5m+3s          simple (US) delay: the clock waits 3 s before it runs

Options may follow, separated by spaces: `carry`, `calls=cn|jp|en|none` (`silent` is
`calls=none`), `first=white` (handicap games), `late=15m` (lateness that loses), and time odds:
`white=10m` (White's main time), `white.periods=3` (any field of one side).

Durations: `2h`, `1h30m`, `90s`, `1.5s`, `25:00`, `1:30:00`, or `0`. The JSON is checked by the
firmware's own `timecontrol.parse`, so a notation is accepted exactly when the clock accepts it.
"""

import re

from . import SIDES
from .errors import NotationError
from .fwcore import validate_time_control

EXAMPLES = (
    "cn 2h/5, byo 1h+5x30s, sd 30m, can 1h+15/10m, fischer 5m+3s, bronstein 5m+3s, delay 5m+3s"
)
_TYPES = {
    "cn": "cn",
    "byo": "byo",
    "byoyomi": "byo",
    "sd": "sd",
    "absolute": "sd",
    "can": "can",
    "canadian": "can",
    "fischer": "fischer",
    "bronstein": "bronstein",
    "delay": "delay",
}
_FORMS = {
    "cn": "cn LIMIT/RESERVED_MINUTES, like cn 2h/5",
    "byo": "byo MAIN+PERIODSxPERIOD, like byo 1h+5x30s",
    "sd": "sd MAIN, like sd 30m",
    "can": "can MAIN+MOVES/PERIOD, like can 1h+15/10m",
    "fischer": "fischer MAIN+INCREMENT, like fischer 5m+3s",
    "bronstein": "bronstein MAIN+DELAY, like bronstein 5m+3s",
    "delay": "delay MAIN+DELAY, like delay 5m+3s",
}
_DURATION_KEYS = ("main", "period", "increment", "delay")
_COUNT_KEYS = ("periods", "moves")
_UNITS = re.compile(r"^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+(?:\.\d+)?)s)?$")


def parse_duration(text):
    """Seconds (int, or float for fractions) from `2h`, `1h30m`, `90s`, `25:00`, `0`."""
    t = text.strip().lower()
    if t == "0":
        return 0
    if ":" in t:
        parts = t.split(":")
        if 2 <= len(parts) <= 3 and all(p.isdigit() for p in parts):
            total = 0
            for p in parts:
                total = total * 60 + int(p)
            return total
    else:
        m = _UNITS.match(t)
        if m and any(m.groups()):
            h, mi, s = m.groups()
            total = int(h or 0) * 3600 + int(mi or 0) * 60
            if s:
                sec = float(s)
                total += int(sec) if sec.is_integer() else sec
            return total
    hint = " (a unit is needed: %sm or %ss)" % (t, t) if t.replace(".", "", 1).isdigit() else ""
    raise NotationError(
        "%r is not a duration%s: write it like 2h, 1h30m, 45s, 1.5s or 25:00" % (text, hint)
    )


def format_duration(seconds):
    """The shortest notation of a duration: 7200 -> 2h, 5430 -> 1h30m30s, 0 -> 0."""
    if seconds == 0:
        return "0"
    whole = int(seconds)
    frac = seconds - whole
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    out = ("%dh" % h if h else "") + ("%dm" % m if m else "")
    if frac:
        out += ("%.3f" % (s + frac)).rstrip("0") + "s"
    elif s:
        out += "%ds" % s
    return out


def _count(text, what, form):
    if not text.isdigit():
        raise NotationError("%r is not a number of %s: write %s" % (text, what, form))
    return int(text)


def _split(text, sep, kind):
    parts = text.split(sep)
    if len(parts) != 2 or not all(parts):
        raise NotationError("%s needs the form %s" % (kind, _FORMS[kind]))
    return parts


def _body(kind, spec):
    """The JSON fields of one notation body (the part after the type word)."""
    form = _FORMS[kind]
    if kind == "sd":
        return {"type": "sudden_death", "main": parse_duration(spec)}
    if kind == "cn":
        limit, reserved = _split(spec, "/", kind)
        limit = parse_duration(limit)
        minutes = _count(reserved, "reserved minutes", form)
        if minutes * 60 > limit:
            raise NotationError(
                "%d reserved minutes do not fit in a %s limit" % (minutes, format_duration(limit))
            )
        return {"type": "byoyomi", "main": limit - minutes * 60, "periods": minutes, "period": 60}
    main, rest = _split(spec, "+", kind)
    out = {"main": parse_duration(main)}
    if kind == "byo":
        out["type"] = "byoyomi"
        if rest == "0":
            out["periods"] = 0
        else:
            periods, period = _split(rest.replace("×", "x").replace("*", "x"), "x", kind)
            out["periods"] = _count(periods, "periods", form)
            out["period"] = parse_duration(period)
    elif kind == "can":
        moves, period = _split(rest, "/", kind)
        out.update(type="canadian", moves=_count(moves, "moves", form))
        out["period"] = parse_duration(period)
        out["carry"] = False
    elif kind == "fischer":
        out.update(type="fischer", increment=parse_duration(rest))
    else:
        out.update(type="delay", delay=parse_duration(rest))
        out["mode"] = "bronstein" if kind == "bronstein" else "simple"
    return out


def _option(tc, token):
    word = token.lower()
    if word == "carry":
        if tc["type"] != "canadian":
            raise NotationError("'carry' only goes with Canadian time (can MAIN+MOVES/PERIOD)")
        tc["carry"] = True
        return
    if word == "silent":
        tc["calls"] = "none"
        return
    key, eq, value = word.partition("=")
    if not eq or not value:
        raise NotationError(
            "%r is not an option: use carry, calls=cn|jp|en|none, first=white, late=15m, "
            "white=10m or white.periods=3" % token
        )
    if key == "calls":
        tc["calls"] = value
    elif key == "first":
        tc["first"] = value
    elif key == "late":
        tc["late_limit"] = parse_duration(value)
    elif key.split(".")[0] in SIDES:
        side, _, field = key.partition(".")
        field = field or "main"
        if field in _DURATION_KEYS:
            tc.setdefault(side, {})[field] = parse_duration(value)
        elif field in _COUNT_KEYS:
            tc.setdefault(side, {})[field] = _count(value, field, "%s.%s=3" % (side, field))
        else:
            raise NotationError(
                "%s.%s: a side can override main, period, periods, moves, increment or delay"
                % (side, field)
            )
    else:
        raise NotationError("unknown option %r" % key)


def parse(text):
    """The normalised time-control JSON of a notation string (NotationError when bad)."""
    if isinstance(text, (list, tuple)):
        text = " ".join(text)
    # "byo 1h + 5 x 30s" reads like "byo 1h+5x30s".
    text = re.sub(r"\s*([+/])\s*", r"\1", text.strip())
    text = re.sub(r"(?<=\d)\s*[x×*]\s*(?=\d)", "x", text)
    tokens = text.split()
    if not tokens:
        raise NotationError("no time control given: write one like %s" % EXAMPLES)
    kind = _TYPES.get(tokens[0].lower())
    if kind is None:
        raise NotationError("unknown time control %r: write one like %s" % (tokens[0], EXAMPLES))
    if len(tokens) < 2:
        raise NotationError("%s needs the form %s" % (tokens[0], _FORMS[kind]))
    tc = _body(kind, tokens[1].lower())
    for token in tokens[2:]:
        _option(tc, token)
    return validate_time_control(tc)


def format(tc):
    """The notation of a time-control JSON object; `parse(format(tc))` gives `tc` back."""
    kind = tc["type"]
    main = tc.get("main", 0)
    if kind == "byoyomi":
        periods = tc.get("periods", 0)
        if periods and tc.get("period") == 60:
            text = "cn %s/%d" % (format_duration(main + 60 * periods), periods)
        elif periods:
            text = "byo %s+%dx%s" % (format_duration(main), periods, format_duration(tc["period"]))
        else:
            text = "byo %s+0" % format_duration(main)
    elif kind == "canadian":
        text = "can %s+%d/%s" % (format_duration(main), tc["moves"], format_duration(tc["period"]))
        if tc.get("carry"):
            text += " carry"
    elif kind == "fischer":
        text = "fischer %s+%s" % (format_duration(main), format_duration(tc["increment"]))
    elif kind == "delay":
        word = "bronstein" if tc.get("mode", "bronstein") == "bronstein" else "delay"
        text = "%s %s+%s" % (word, format_duration(main), format_duration(tc["delay"]))
    else:
        text = "sd %s" % format_duration(main)
    if tc.get("calls", "cn") != "cn":
        text += " calls=%s" % tc["calls"]
    if tc.get("first", "black") != "black":
        text += " first=%s" % tc["first"]
    if "late_limit" in tc:
        text += " late=%s" % format_duration(tc["late_limit"])
    for side in SIDES:
        for field, value in sorted(tc.get(side, {}).items()):
            name = side if field == "main" else "%s.%s" % (side, field)
            shown = format_duration(value) if field in _DURATION_KEYS else str(value)
            text += " %s=%s" % (name, shown)
    return text
