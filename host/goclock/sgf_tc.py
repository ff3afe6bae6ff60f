"""The time control of an SGF game record (root TM and OT), read and written.

TM is the main time in seconds. OT is free text; the forms written by the servers and
programs players use are understood:

    OT[5x30 byo-yomi]        KGS, OGS, Sabaki: periods x seconds
    OT[25/300 Canadian]      KGS: moves / seconds
    OT[15 moves / 10 min]    GoGui
    OT[30 fischer]           an increment in seconds
    OT[5 bronstein delay]    a delay in seconds (`5 delay` is the simple US delay)
    TM[1200]TC[3]TT[30]      Fox (野狐): periods in TC, period seconds in TT

No OT (and no TC/TT) means sudden death. The result is checked like any time control.
"""

import re

from sgfmill import sgf

from .errors import NotationError
from .fwcore import validate_time_control

_NUM = r"(\d+(?:\.\d+)?)"
_BYO = re.compile(
    r"^(\d+)\s*[x×*]\s*" + _NUM + r"\s*(?:s|sec|秒)?\s*(?:byo-?yomi|periods?)?$", re.I
)
_CANADIAN = re.compile(r"^(\d+)\s*/\s*" + _NUM + r"\s*(?:s|sec)?\s*(?:canadian)?$", re.I)
_MOVES_IN = re.compile(r"^(\d+)\s*moves?\s*/\s*" + _NUM + r"\s*(min|sec|s|m)\w*$", re.I)
_FISCHER = re.compile(
    r"^(?:fischer\s*:?\s*\+?" + _NUM + r"|\+?" + _NUM + r"\s*(?:s|sec)?\s*fischer)", re.I
)
_DELAY = re.compile(r"^" + _NUM + r"\s*(?:s|sec)?\s*(bronstein|simple|us)?\s*delay$", re.I)


def _number(text):
    value = float(text)
    return int(value) if value.is_integer() else value


def overtime_json(text):
    """The JSON fields (beside type and main) of an OT text; NotationError if unknown."""
    ot = " ".join(text.split())
    m = _BYO.match(ot)
    if m:
        return {"type": "byoyomi", "periods": int(m.group(1)), "period": _number(m.group(2))}
    m = _CANADIAN.match(ot)
    if m:
        return {"type": "canadian", "moves": int(m.group(1)), "period": _number(m.group(2))}
    m = _MOVES_IN.match(ot)
    if m:
        scale = 60 if m.group(3).lower().startswith("m") else 1
        return {"type": "canadian", "moves": int(m.group(1)), "period": _number(m.group(2)) * scale}
    m = _FISCHER.match(ot)
    if m:
        return {"type": "fischer", "increment": _number(m.group(1) or m.group(2))}
    m = _DELAY.match(ot)
    if m:
        mode = "bronstein" if (m.group(2) or "").lower() == "bronstein" else "simple"
        return {"type": "delay", "delay": _number(m.group(1)), "mode": mode}
    raise NotationError(
        "cannot read the SGF overtime OT[%s]: goclock knows forms like 5x30 byo-yomi, "
        "25/300 Canadian, 15 moves / 10 min and 30 fischer" % text
    )


def _prop(root, name):
    """A root property as text, or None; unknown properties (Fox's TC/TT) too."""
    if not root.has_property(name):
        return None
    raw = root.get_raw(name)
    return raw.decode("utf-8", "replace").strip()


def time_control_from_root(root):
    """The time-control JSON of an sgfmill root node."""
    tm = _prop(root, "TM")
    if tm is None:
        raise NotationError("the SGF has no TM (main time) in its root: no time control to read")
    try:
        main = _number(tm)
    except ValueError:
        raise NotationError("the SGF's TM[%s] is not a number of seconds" % tm) from None
    ot = _prop(root, "OT")
    tc, tt = _prop(root, "TC"), _prop(root, "TT")
    if ot:
        extra = overtime_json(ot)
    elif tc is not None and tt is not None and tc.isdigit():
        try:
            extra = {"type": "byoyomi", "periods": int(tc), "period": _number(tt)}
        except ValueError:
            raise NotationError("the SGF's TT[%s] is not a number of seconds" % tt) from None
        if not extra["periods"]:
            extra = {"type": "sudden_death"}
    else:
        extra = {"type": "sudden_death"}
    extra["main"] = main
    if extra["type"] == "canadian":
        extra["carry"] = False
    return validate_time_control(extra)


def time_control_from_sgf(path):
    """Read an SGF file and return the time-control JSON of its root."""
    try:
        with open(path, "rb") as f:
            game = sgf.Sgf_game.from_bytes(f.read())
    except OSError as exc:
        raise NotationError("cannot read %s: %s" % (path, exc.strerror or exc)) from None
    except ValueError as exc:
        raise NotationError("%s is not a valid SGF file: %s" % (path, exc)) from None
    return time_control_from_root(game.get_root())


def _seconds_text(value):
    return str(int(value)) if float(value).is_integer() else str(value)


def root_properties(tc):
    """TM and OT texts for an SGF root from a time-control JSON (OT None if not needed)."""
    tm = _seconds_text(tc.get("main", 0))
    kind = tc["type"]
    if kind == "byoyomi" and tc.get("periods"):
        ot = "%dx%s byo-yomi" % (tc["periods"], _seconds_text(tc["period"]))
    elif kind == "canadian":
        ot = "%d/%s Canadian" % (tc["moves"], _seconds_text(tc["period"]))
    elif kind == "fischer":
        ot = "%s fischer" % _seconds_text(tc["increment"])
    elif kind == "delay":
        ot = "%s %s delay" % (_seconds_text(tc["delay"]), tc.get("mode", "bronstein"))
    else:
        ot = None
    return tm, ot
