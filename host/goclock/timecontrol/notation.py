"""Time controls written the way players say them, to and from the time-control JSON.

    cn 2h/5              Chinese: 2 h limit, the last 5 minutes kept as 60 s byo-yomi
    byo 1h+5x30s         1 h main time, then 5 periods of 30 s
    sd 30m               sudden death
    can 1h+15/10m        1 h, then 15 moves per 10 min (add `carry` to keep what is left)
    fischer 5m+3s        3 s added after each move (`max 10m`: never more than 10 min)
    bronstein 5m+3s      Bronstein delay: up to 3 s of each move given back
                         (`bronstein 0+30s`: no main time, each move may use up to 30 s)
    delay 5m+3s          simple (US) delay: the clock waits 3 s before it runs
    hourglass 5m         what one side uses, the other gains
    untimed              no limit: each move's time is recorded, nobody loses on time
    ing 3h+3x20m         Ing: 3 h, then 3 overtime periods of 20 min, 2 points each
                         (`penalty=1`: another number of points)

Go engines' time commands are read too (gtp.py): `time_settings 1800 600 25` and
`kgs-time_settings byoyomi 1800 30 5`, with their documented meanings.

Options may follow, separated by spaces: `carry`, `calls=cn|jp|en|none` (`silent` is
`calls=none`), `first=white` (handicap games), `late=15m` (lateness that loses), `max=10m`,
`penalty=2`, and time odds: `white=10m` (White's main time), `white.periods=3` (any field of
one side). Options alone (no time control) modify one given another way: `apply_options`.

Durations: `2h`, `1h30m`, `90s`, `1.5s`, `25:00`, `1:30:00`, or `0`. The JSON is checked by the
firmware's own `timecontrol.parse`, so a notation is accepted exactly when the clock accepts it.
"""

import re

from .. import SIDES
from ..errors import NotationError
from . import gtp
from .core import validate_time_control

EXAMPLES = (
    "cn 2h/5, byo 1h+5x30s, sd 30m, can 1h+15/10m, fischer 5m+3s, bronstein 5m+3s, "
    "delay 5m+3s, hourglass 5m, untimed, ing 3h+3x20m"
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
    "hourglass": "hourglass",
    "untimed": "untimed",
    "ing": "ing",
    "time_settings": "gtp",
    "kgs-time_settings": "kgs",
}
_FORMS = {
    "cn": "cn LIMIT/RESERVED_MINUTES, like cn 2h/5",
    "byo": "byo MAIN+PERIODSxPERIOD, like byo 1h+5x30s",
    "sd": "sd MAIN, like sd 30m",
    "can": "can MAIN+MOVES/PERIOD, like can 1h+15/10m",
    "fischer": "fischer MAIN+INCREMENT [max CAP], like fischer 5m+3s max 10m",
    "bronstein": "bronstein MAIN+DELAY, like bronstein 5m+3s or bronstein 0+30s",
    "delay": "delay MAIN+DELAY, like delay 5m+3s",
    "hourglass": "hourglass MAIN, like hourglass 5m",
    "untimed": "untimed, with nothing after it but options",
    "ing": "ing MAIN+PERIODSxPERIOD, like ing 3h+3x20m",
}
_DURATION_KEYS = ("main", "period", "increment", "delay", "max")
_COUNT_KEYS = ("periods", "moves")
_UNITS = re.compile(r"^(?:(\d+)h)?(?:(\d+)m(?!s))?(?:(\d+(?:\.\d+)?)s)?$")
_DEFAULT_PENALTY = 2


def parse_duration(text):
    """Seconds (int, or float for fractions) from `2h`, `1h30m`, `90s`, `25:00`, `0`."""
    t = text.strip().lower()
    if t == "0":
        return 0
    if t.startswith("-"):
        raise NotationError(
            "%r is not a duration: a duration cannot be negative (write it like 2h, 1h30m, "
            "45s or 25:00)" % text
        )
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


def _overtime_periods(rest, kind, form):
    """(periods, period seconds or None) of `5x30s`, or of `0` (no periods)."""
    if rest == "0":
        return 0, None
    periods, period = _split(rest.replace("×", "x").replace("*", "x"), "x", kind)
    return _count(periods, "periods", form), parse_duration(period)


def _body(kind, spec):
    """The JSON fields of one notation body (the part after the type word)."""
    form = _FORMS[kind]
    if kind == "sd":
        return {"type": "sudden_death", "main": parse_duration(spec)}
    if kind == "hourglass":
        return {"type": "hourglass", "main": parse_duration(spec)}
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
    if kind == "byo" or kind == "ing":
        out["type"] = "byoyomi" if kind == "byo" else "ing"
        out["periods"], period = _overtime_periods(rest, kind, form)
        if period is not None:
            out["period"] = period
        elif kind == "ing":
            raise NotationError("ing needs the form %s" % form)
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
        if tc.get("type") not in (None, "canadian"):
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
            "max=10m, penalty=2, white=10m or white.periods=3" % token
        )
    if key == "calls":
        tc["calls"] = value
    elif key == "first":
        tc["first"] = value
    elif key == "late":
        tc["late_limit"] = parse_duration(value)
    elif key == "max":
        if tc.get("type") not in (None, "fischer"):
            raise NotationError("'max' only goes with Fischer time (fischer MAIN+INCREMENT)")
        tc["max"] = parse_duration(value)
    elif key == "penalty":
        if tc.get("type") not in (None, "ing"):
            raise NotationError("'penalty' only goes with Ing overtime (ing MAIN+PERIODSxPERIOD)")
        tc["penalty"] = _count(value, "penalty points", "penalty=2")
    elif key.split(".")[0] in SIDES:
        side, _, field = key.partition(".")
        field = field or "main"
        if field in _DURATION_KEYS:
            tc.setdefault(side, {})[field] = parse_duration(value)
        elif field in _COUNT_KEYS:
            tc.setdefault(side, {})[field] = _count(value, field, "%s.%s=3" % (side, field))
        else:
            raise NotationError(
                "%s.%s: a side can override main, period, periods, moves, increment, delay "
                "or max" % (side, field)
            )
    else:
        raise NotationError("unknown option %r" % key)


def _options(tc, tokens):
    """Apply option tokens; `max 10m` (two words) reads like `max=10m`."""
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.lower() == "max" and i + 1 < len(tokens):
            token = "max=" + tokens[i + 1]
            i += 1
        _option(tc, token)
        i += 1


def _tokens(text):
    if isinstance(text, (list, tuple)):
        text = " ".join(text)
    # "byo 1h + 5 x 30s" reads like "byo 1h+5x30s".
    text = re.sub(r"\s*([+/])\s*", r"\1", text.strip())
    text = re.sub(r"(?<=\d)\s*[x×*]\s*(?=\d)", "x", text)
    return text.split()


def is_options_only(text):
    """True when `text` holds options and no time control (like `calls=none white=10m`)."""
    tokens = _tokens(text)
    return bool(tokens) and tokens[0].lower() not in _TYPES


def parse_raw(text):
    """The time-control JSON of a notation string, not yet checked by the firmware."""
    tokens = _tokens(text)
    if not tokens:
        raise NotationError("no time control given: write one like %s" % EXAMPLES)
    kind = _TYPES.get(tokens[0].lower())
    if kind is None:
        raise NotationError("unknown time control %r: write one like %s" % (tokens[0], EXAMPLES))
    if kind == "gtp":
        tc, used = gtp.time_settings(tokens)
    elif kind == "kgs":
        tc, used = gtp.kgs_time_settings(tokens)
    elif kind == "untimed":
        tc, used = {"type": "untimed"}, 1
    else:
        if len(tokens) < 2:
            raise NotationError("%s needs the form %s" % (tokens[0], _FORMS[kind]))
        tc, used = _body(kind, tokens[1].lower()), 2
    _options(tc, tokens[used:])
    return tc


def parse(text):
    """The normalised time-control JSON of a notation string (NotationError when bad)."""
    return validate_time_control(parse_raw(text))


def apply_options(tc, text):
    """`tc` (a time-control JSON, checked or not) with the options of `text` applied, then
    checked: `--from-sgf game.sgf calls=none` can silence a 5 s byo-yomi the clock would
    refuse to call."""
    if not isinstance(tc, dict):
        return validate_time_control(tc)  # the firmware's own message for what it is
    out = dict(tc)
    for side in SIDES:
        if side in out:
            if not isinstance(out[side], dict):
                return validate_time_control(out)
            out[side] = dict(out[side])
    tokens = _tokens(text)
    if tokens and tokens[0].lower() in _TYPES:
        raise NotationError(
            "give the time control one way: %r is a time control, and one is already given"
            % tokens[0]
        )
    _options(out, tokens)
    return validate_time_control(out)


def _roundness(seconds):
    """How round a duration reads: fewer parts first, then a coarser last unit."""
    parts = len(re.findall(r"[hms]", format_duration(seconds))) if seconds else 0
    for step in (3600, 1800, 600, 300, 60, 30, 10, 5, 1):
        if seconds % step == 0:
            return parts, -step
    return parts, 0


def _byoyomi_text(tc):
    main = tc.get("main", 0)
    periods = tc.get("periods", 0)
    period = tc.get("period")
    if periods and period == 60 and main:
        # Chinese notation when its limit reads rounder than the main time would: cn 2h/5
        # for 1h55m + 5 x 60 s, but byo 1h+5x60s and byo 10s+2x60s as they are.
        limit = main + 60 * periods
        if _roundness(limit) < _roundness(main):
            return "cn %s/%d" % (format_duration(limit), periods)
    if period is not None:
        return "byo %s+%dx%s" % (format_duration(main), periods, _period_text(period))
    return "byo %s+0" % format_duration(main)


def _period_text(seconds):
    """A byo-yomi period as players say it: 30s, 60s, 90s; 5m, 20m above two minutes."""
    if seconds <= 120 and seconds == int(seconds):
        return "%ds" % seconds
    return format_duration(seconds)


def format(tc):
    """The notation of a time-control JSON object; `parse(format(tc))` gives `tc` back."""
    kind = tc["type"]
    main = tc.get("main", 0)
    if kind == "byoyomi":
        text = _byoyomi_text(tc)
    elif kind == "canadian":
        text = "can %s+%d/%s" % (format_duration(main), tc["moves"], format_duration(tc["period"]))
        if tc.get("carry"):
            text += " carry"
    elif kind == "fischer":
        text = "fischer %s+%s" % (format_duration(main), format_duration(tc["increment"]))
        if "max" in tc:
            text += " max %s" % format_duration(tc["max"])
    elif kind == "delay":
        word = "bronstein" if tc.get("mode", "bronstein") == "bronstein" else "delay"
        text = "%s %s+%s" % (word, format_duration(main), format_duration(tc["delay"]))
    elif kind == "hourglass":
        text = "hourglass %s" % format_duration(main)
    elif kind == "untimed":
        text = "untimed"
    elif kind == "ing":
        text = "ing %s+%dx%s" % (
            format_duration(main),
            tc["periods"],
            format_duration(tc.get("period", 0)),
        )
        if tc.get("penalty", _DEFAULT_PENALTY) != _DEFAULT_PENALTY:
            text += " penalty=%d" % tc["penalty"]
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
