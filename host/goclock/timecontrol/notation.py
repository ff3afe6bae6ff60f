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

Options may follow, separated by spaces: `carry` (`carry=yes|no`), `calls=cn|jp|en|none`
(`silent`, `calls=silent` and `calls=off` are `calls=none`), `first=white` (handicap
games), `late=15m` (lateness that loses), `max=10m`, `penalty=2`, and time odds:
`white=10m` (White's main time), `white.periods=3` (any field of one side). Options alone
(no time control) modify one given another way: `apply_options`.

Durations: `2h`, `1h30m`, `90s`, `1.5s`, `25:00`, `1:30:00`, or `0`, and the natural
spellings `30min`, `30 min`, `1.5h` (durations.py). A type word glued to its time reads as
two (`cn2h/5`); a misspelt type word or option is refused naming the closest. The JSON is
checked by the firmware's own `timecontrol.parse`, so a notation is accepted exactly when
the clock accepts it.
"""

import difflib
import re

from goclockfw.app import tctext

from .. import SIDES
from ..errors import NotationError
from . import durations, gtp
from .core import validate_time_control

EXAMPLES = (
    "cn 2h/5, byo 1h+5x30s, sd 30m, can 1h+15/10m, fischer 5m+3s, bronstein 5m+3s, "
    "delay 5m+3s, hourglass 5m, untimed, ing 3h+3x20m"
)
_TYPES = {
    "cn": "cn",
    "byo": "byo",
    "byoyomi": "byo",
    "byo-yomi": "byo",
    "sd": "sd",
    "sudden_death": "sd",
    "sudden-death": "sd",
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


def parse_duration(text):
    """Seconds (int, or float for fractions) from `2h`, `1h30m`, `90s`, `25:00`, `0`, and
    the natural spellings (`30min`, `1.5h`, `45sec`: durations.py)."""
    t = text.strip().lower()
    if t == "0":
        return 0
    if t.startswith("-"):
        raise NotationError(
            "%r is not a duration: a duration cannot be negative (write it like 2h, 1h30m, "
            "45s or 25:00)" % text
        )
    seconds = durations.clock_seconds(t)
    if seconds is None:
        seconds = durations.unit_seconds(t)
    if seconds is not None:
        return seconds
    hint = " (a unit is needed: %sm or %ss)" % (t, t) if t.replace(".", "", 1).isdigit() else ""
    raise NotationError(
        "%r is not a duration%s: write it like 2h, 1h30m, 45s, 1.5s or 25:00" % (text, hint)
    )


def format_duration(seconds):
    """The shortest notation of a duration: 7200 -> 2h, 5430 -> 1h30m30s, 0 -> 0."""
    return tctext.duration(seconds)


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


# The option words, for the "did you mean" of a misspelt one.
_OPTION_WORDS = ("carry", "silent", "calls", "first", "late", "max", "penalty", "white", "black")
# calls=...: the profiles, and the other words people use for them.
_CALLS = {
    "cn": "cn",
    "jp": "jp",
    "en": "en",
    "none": "none",
    "silent": "none",
    "off": "none",
    "chinese": "cn",
    "japanese": "jp",
    "english": "en",
}
_YES = ("yes", "y", "true", "on", "1")
_NO = ("no", "n", "false", "off", "0")


def _did_you_mean(word, choices):
    """' — did you mean X?' for the closest of `choices`, or ''."""
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return " — did you mean %s?" % close[0] if close else ""


def _carry(tc, value):
    if tc.get("type") not in (None, "canadian"):
        raise NotationError("'carry' only goes with Canadian time (can MAIN+MOVES/PERIOD)")
    if value in _YES:
        tc["carry"] = True
    elif value in _NO:
        tc["carry"] = False
    else:
        raise NotationError("carry=%s: write carry (or carry=yes), or carry=no" % value)


def _calls(tc, value):
    profile = _CALLS.get(value)
    if profile is None:
        raise NotationError(
            "calls=%s: unknown call profile%s (one of cn, jp, en, none; silent or off for "
            "none)" % (value, _did_you_mean(value, list(_CALLS)))
        )
    tc["calls"] = profile


def _option(tc, token):
    word = token.lower()
    if word == "carry":
        _carry(tc, "yes")
        return
    if word == "silent":
        tc["calls"] = "none"
        return
    key, eq, value = word.partition("=")
    if not eq or not value:
        guess = _did_you_mean(key, _OPTION_WORDS) if not eq else ""
        raise NotationError(
            "%r is not an option%s (options: carry, calls=cn|jp|en|none, first=white, "
            "late=15m, max=10m, penalty=2, white=10m, white.periods=3)" % (token, guess)
        )
    if key == "carry":
        _carry(tc, value)
    elif key == "calls":
        _calls(tc, value)
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
        raise NotationError(
            "unknown option %r%s" % (key, _did_you_mean(key.split(".")[0], _OPTION_WORDS))
        )


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
    # "byo 1h + 5 x 30s" reads like "byo 1h+5x30s", "sd 30 min" like "sd 30min".
    text = re.sub(r"\s*([+/])\s*", r"\1", text.strip())
    text = re.sub(r"(?<=\d)\s*[x×*]\s*(?=\d)", "x", text)
    text = re.sub(r"(?<=\d)\s+(?=(?:%s)(?![^\s+/]))" % durations.UNIT_WORD, "", text, flags=re.I)
    tokens = text.split()
    if tokens:
        # "cn2h/5" reads like "cn 2h/5": a type word glued to its body.
        m = re.match(r"^([a-z_-]+?)(\d.*)$", tokens[0], re.I)
        if m and m.group(1).lower() in _TYPES:
            tokens[0:1] = [m.group(1), m.group(2)]
    return tokens


def _is_option(token):
    return "=" in token or token.lower() in ("carry", "silent", "max")


def is_options_only(text):
    """True when `text` holds options and no time control (like `calls=none white=10m`)."""
    tokens = _tokens(text)
    return bool(tokens) and _is_option(tokens[0])


def _unknown_type(tokens):
    """The error for a first word that is no time control: the closest one, if any."""
    word = tokens[0]
    m = re.match(r"^([a-z_-]+?)(\d.*)$", word, re.I)
    letters, glued = (m.group(1), m.group(2)) if m else (word, None)
    close = difflib.get_close_matches(letters.lower(), list(_TYPES), n=1, cutoff=0.6)
    if close:
        fixed = " ".join([close[0]] + ([glued] if glued else []) + tokens[1:])
        return NotationError(
            "unknown time control %r — did you mean %s? (%s)" % (letters, close[0], fixed)
        )
    return NotationError("unknown time control %r: write one like %s" % (word, EXAMPLES))


def parse_raw(text):
    """The time-control JSON of a notation string, not yet checked by the firmware."""
    tokens = _tokens(text)
    if not tokens:
        raise NotationError("no time control given: write one like %s" % EXAMPLES)
    kind = _TYPES.get(tokens[0].lower())
    if kind is None:
        raise _unknown_type(tokens)
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


def format(tc):
    """The notation of a time-control JSON object; `parse(format(tc))` gives `tc` back."""
    text = tctext.text(tc)  # the firmware's own writing: the clock's menu shows the same
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
