"""The time control of an SGF game record's root, read and written.

What people have, and how it is read (`read_root` returns the time control and notes
saying what was assumed; anything it cannot be sure of is refused, never guessed):

    TM[1800]OT[5x30 byo-yomi]     FF[4] main time and overtime text: KGS, OGS, Sabaki
    OT[25/300 Canadian]           KGS, OGS: moves / seconds
    OT[15 moves / 10 min]         GoGui
    OT[30 fischer]                an increment in seconds (OGS; its max_time is not in
                                  the SGF: the clock's own 48 h ceiling applies)
    OT[0 Fischer]                 no increment: sudden death (said in a note)
    OT[30 simple]                 OGS: 30 s per move and no main time (TM is ignored): read
                                  as byo-yomi with one 30 s period, which is the same rule
    OT[5 bronstein delay]         a delay in seconds (`5 delay` is the simple US delay)
    OT[3x1200 Ing, 2 points]      Ing overtime, as goclock writes it
    OT[hourglass]                 hourglass, as goclock writes it
    TM[1200]TC[3]TT[30]           Fox (野狐): periods in TC, period seconds in TT
    TM[3600]LC[3]LT[30]           FF[3]-era and YuanYu roots: LC periods, LT seconds
    TM[3600]OM[25]OP[600]         FF[3]: moves per overtime (OM) in OP seconds: Canadian
    TM[1800]                      TM alone: sudden death (said in a note)

TM may carry units: `30 min`, `2h`, `1h30m`, `1:30:00`, `90分`. Read, with a note: a
byo-yomi period the clock cannot call (`OT[1x5 byo-yomi]`: under 10 s, or not whole
seconds) with `calls=none`; a bare TM shorter than one unit of its overtime (`TM[30]`
before 60 s periods: a program that wrote minutes?) as seconds, the note giving the
notation for minutes. Refused: TC without TT (or
TT without TC), LC without LT (or the other way), OM without OP, an `LT[]` with nothing
else (the FF[3] "lose on time" flag IGS writes: time was kept, its overtime is not
said), two sources that disagree, and no TM at all (an untimed game, or no record of
the time). The result is checked like any time control, after the caller's options
(`config set --from-sgf game.sgf calls=none`) are applied.
"""

import re

from sgfmill import sgf

from goclockfw.core.timecontrol import MIN_SPOKEN_PERIOD_MS

from ..errors import NotationError
from . import durations, notation
from .core import validate_time_control

_NUM = r"(\d+(?:\.\d+)?)"
_BYO = re.compile(
    r"^(\d+)\s*[x×*]\s*" + _NUM + r"\s*(?:s|sec|秒)?\s*(?:byo-?yomi|periods?)?$", re.I
)
_CANADIAN = re.compile(r"^(\d+)\s*/\s*" + _NUM + r"\s*(?:s|sec)?\s*(?:canadian)?$", re.I)
_MOVES_IN = re.compile(r"^(\d+)\s*moves?\s*/\s*" + _NUM + r"\s*(min|sec|s|m)\w*$", re.I)
_FISCHER = re.compile(
    r"^(?:fischer\s*:?\s*\+?" + _NUM + r"|\+?" + _NUM + r"\s*(?:s|sec)?\s*fischer)$", re.I
)
_DELAY = re.compile(r"^" + _NUM + r"\s*(?:s|sec)?\s*(bronstein|simple|us)?\s*delay$", re.I)
_SIMPLE = re.compile(r"^" + _NUM + r"\s*(?:s|sec)?\s*simple$", re.I)
_ING = re.compile(r"^(\d+)\s*x\s*" + _NUM + r"\s*ing(?:\s*,\s*(\d+)\s*points?)?$", re.I)
_HOURGLASS = re.compile(r"^hourglass$", re.I)


def _number(text):
    value = float(text)
    return int(value) if value.is_integer() else value


def parse_seconds(text):
    """Seconds from an SGF duration: `3600`, `1800.0`, `30 min`, `2h`, `1h30m`, `1:30:00`."""
    t = text.strip().lower()
    if re.fullmatch(_NUM, t):
        return _number(t)
    seconds = durations.clock_seconds(t)
    if seconds is None:
        seconds = durations.unit_seconds(t)
    if seconds is None:
        raise ValueError(text)
    return seconds


def overtime_json(text):
    """(JSON fields beside main, a note or None) of an OT text; NotationError if unknown."""
    ot = " ".join(text.split())
    m = _BYO.match(ot)
    if m:
        return {"type": "byoyomi", "periods": int(m.group(1)), "period": _number(m.group(2))}, None
    m = _CANADIAN.match(ot)
    if m:
        return {"type": "canadian", "moves": int(m.group(1)), "period": _number(m.group(2))}, None
    m = _MOVES_IN.match(ot)
    if m:
        scale = 60 if m.group(3).lower().startswith("m") else 1
        fields = {"type": "canadian", "moves": int(m.group(1))}
        fields["period"] = _number(m.group(2)) * scale
        return fields, None
    m = _FISCHER.match(ot)
    if m:
        increment = _number(m.group(1) or m.group(2))
        if increment == 0:
            return {"type": "sudden_death"}, "OT[%s]: no increment, read as sudden death" % text
        return {"type": "fischer", "increment": increment}, None
    m = _DELAY.match(ot)
    if m:
        mode = "bronstein" if (m.group(2) or "").lower() == "bronstein" else "simple"
        return {"type": "delay", "delay": _number(m.group(1)), "mode": mode}, None
    m = _SIMPLE.match(ot)
    if m:
        seconds = _number(m.group(1))
        fields = {"type": "byoyomi", "main": 0, "periods": 1, "period": seconds}
        return fields, "OT[%s]: %s s per move, read as one byo-yomi period of %s s" % (
            text,
            seconds,
            seconds,
        )
    m = _ING.match(ot)
    if m:
        fields = {"type": "ing", "periods": int(m.group(1)), "period": _number(m.group(2))}
        if m.group(3):
            fields["penalty"] = int(m.group(3))
        return fields, None
    if _HOURGLASS.match(ot):
        return {"type": "hourglass"}, None
    raise NotationError(
        "cannot read the SGF overtime OT[%s]: goclock knows forms like 5x30 byo-yomi, "
        "25/300 Canadian, 15 moves / 10 min, 30 fischer, 30 simple and 5 bronstein delay" % text
    )


def _prop(root, name):
    """A root property as text ("" when empty), or None; unknown ones (TC, LC ...) too."""
    if not root.has_property(name):
        return None
    raw = root.get_raw(name)
    return raw.decode("utf-8", "replace").strip()


def _count_and_length(root, count_name, length_name, what):
    """(periods or moves, seconds) of a pair like TC/TT, None when neither says anything;
    NotationError when one is missing or not a number."""
    count, length = _prop(root, count_name), _prop(root, length_name)
    if not count and not length:
        return None
    shown = "".join("%s[%s]" % (n, v) for n, v in ((count_name, count), (length_name, length)) if v)
    try:
        n = int(count) if count else None
    except ValueError:
        raise NotationError(
            "the SGF's %s[%s] is not a whole number" % (count_name, count)
        ) from None
    try:
        seconds = parse_seconds(length) if length else None
    except ValueError:
        raise NotationError(
            "the SGF's %s[%s] is not a number of seconds" % (length_name, length)
        ) from None
    if n == 0 or seconds == 0:
        return 0, 0  # no overtime, said outright
    if n is None or seconds is None:
        missing = length_name if n is not None else count_name
        raise NotationError(
            "the SGF's %s gives %s but no %s: the time control cannot be read without it"
            % (shown, what, missing)
        )
    return n, seconds


def _sources(root):
    """[(where it was read, JSON fields, note)] of every overtime the root states."""
    found = []
    ot = _prop(root, "OT")
    if ot:
        fields, note = overtime_json(ot)
        found.append(("OT[%s]" % ot, fields, note))
    for count, length, what, kind in (
        ("TC", "TT", "byo-yomi periods", "byoyomi"),
        ("LC", "LT", "byo-yomi periods", "byoyomi"),
        ("OM", "OP", "moves per overtime", "canadian"),
    ):
        if count == "LC" and _prop(root, "LT") == "" and not _prop(root, "LC"):
            continue  # LT[]: the FF[3] flag, below
        pair = _count_and_length(root, count, length, what)
        if pair is None:
            continue
        where = "%s[%s]%s[%s]" % (
            count,
            _prop(root, count) or "",
            length,
            _prop(root, length) or "",
        )
        n, seconds = pair
        if n == 0:
            note = "%s: no overtime, read as sudden death" % where
            found.append((where, {"type": "sudden_death"}, note))
        elif kind == "byoyomi":
            found.append((where, {"type": "byoyomi", "periods": n, "period": seconds}, None))
        else:
            found.append((where, {"type": "canadian", "moves": n, "period": seconds}, None))
    return found


def read_root(root):
    """(time-control JSON not yet checked, [notes]) of an sgfmill root node."""
    notes = []
    found = _sources(root)
    distinct = []
    for where, fields, note in found:
        if fields not in [f for _, f, _ in distinct]:
            distinct.append((where, fields, note))
    if len(distinct) > 1:
        raise NotationError(
            "the SGF's root gives two different overtimes, %s and %s: say which with a "
            "notation instead" % (distinct[0][0], distinct[1][0])
        )
    tm = _prop(root, "TM")
    if not distinct:
        if _prop(root, "LT") == "":
            raise NotationError(
                "the SGF's root has LT[] (time was kept, as IGS writes it) but says nothing of "
                "the overtime: give the time control as a notation (like can 1h+25/10m)"
            )
        if not tm:
            raise NotationError(
                "the SGF has no TM (main time) in its root: no time control to read (an "
                "untimed game, or none recorded)"
            )
        notes.append("TM[%s] alone: read as sudden death (the root names no overtime)" % tm)
        tc = {"type": "sudden_death"}
    else:
        where, tc, note = distinct[0]
        tc = dict(tc)
        if note:
            notes.append(note)
    if "main" in tc:  # a time per move: there is no main time
        if tm and tm != "0":
            notes.append("TM[%s] ignored: %s has no main time" % (tm, distinct[0][0]))
    elif tc["type"] != "untimed":
        if not tm:
            raise NotationError(
                "the SGF's root gives %s but no TM (main time): the time control cannot be "
                "read without it" % distinct[0][0]
            )
        try:
            tc["main"] = parse_seconds(tm)
        except ValueError:
            raise NotationError("the SGF's TM[%s] is not a number of seconds" % tm) from None
    if tc["type"] == "canadian":
        tc["carry"] = False
    where = distinct[0][0] if distinct else "TM[%s]" % tm
    _calls_off_when_too_short(tc, where, notes)
    _note_a_short_main_time(tc, tm, where, notes)
    return tc, notes


def _calls_off_when_too_short(tc, where, notes):
    """A byo-yomi period the clock cannot call (under 10 s, or not whole seconds) is clear
    in meaning all the same: read it with the calls off, and say so."""
    period = tc.get("period")
    if tc["type"] != "byoyomi" or period is None:
        return
    ms = period * 1000
    if ms >= MIN_SPOKEN_PERIOD_MS and ms % 1000 == 0:
        return
    tc["calls"] = "none"
    notes.append(
        "%s: periods of %s s are too short for the calls (at least %d s, in whole seconds): "
        "read with calls=none, the clock will not speak"
        % (where, _seconds_text(period), MIN_SPOKEN_PERIOD_MS // 1000)
    )


# What one unit of overtime is, by type: main time shorter than that is implausible.
_OVERTIME_UNIT = {
    "byoyomi": ("period", "a period"),
    "ing": ("period", "a period"),
    "canadian": ("period", "a block"),
    "fischer": ("increment", "the increment"),
    "delay": ("delay", "the delay"),
}


def _note_a_short_main_time(tc, tm, where, notes):
    """TM is seconds, but some programs write minutes: TM[30] before 60 s periods reads as
    30 seconds of main time, which nobody plays. Read as written, with a note saying so."""
    if not tm or not re.fullmatch(_NUM, tm.strip()) or tc["type"] not in _OVERTIME_UNIT:
        return
    field, what = _OVERTIME_UNIT[tc["type"]]
    main, unit = tc.get("main", 0), tc.get(field)
    if not main or not unit or main >= unit:
        return
    as_minutes = dict(tc, main=main * 60)
    try:
        meant = notation.format(validate_time_control(as_minutes))
    except NotationError:
        meant = None
    notes.append(
        "TM[%s] with %s: %s s of main time, less than %s (%s s): read as seconds, as SGF has "
        "it; if the program wrote minutes, give the time control as a notation%s"
        % (tm, where, _seconds_text(main), what, _seconds_text(unit), ": " + meant if meant else "")
    )


def time_control_from_root(root):
    """The checked time-control JSON of an sgfmill root node."""
    return validate_time_control(read_root(root)[0])


def load_root(path):
    """The root node of an SGF file; NotationError when it cannot be read."""
    try:
        with open(path, "rb") as f:
            game = sgf.Sgf_game.from_bytes(f.read())
    except OSError as exc:
        raise NotationError("cannot read %s: %s" % (path, exc.strerror or exc)) from None
    except ValueError as exc:
        raise NotationError("%s is not a valid SGF file: %s" % (path, exc)) from None
    return game.get_root()


def read_sgf(path):
    """(time-control JSON not yet checked, [notes]) of an SGF file's root."""
    return read_root(load_root(path))


def time_control_from_sgf(path):
    """Read an SGF file and return the checked time-control JSON of its root."""
    return validate_time_control(read_sgf(path)[0])


def _seconds_text(value):
    return str(int(value)) if float(value).is_integer() else str(value)


def root_properties(tc):
    """TM and OT texts for an SGF root from a time-control JSON, the way the servers write
    them (either None when the root should not have it: an untimed game has neither)."""
    kind = tc["type"]
    if kind == "untimed":
        return None, None
    tm = _seconds_text(tc.get("main", 0))
    if kind == "byoyomi" and tc.get("periods"):
        ot = "%dx%s byo-yomi" % (tc["periods"], _seconds_text(tc["period"]))
    elif kind == "canadian":
        ot = "%d/%s Canadian" % (tc["moves"], _seconds_text(tc["period"]))
    elif kind == "fischer":
        # As KGS and OGS write it; SGF has no place for a cap ("max").
        ot = "%s fischer" % _seconds_text(tc["increment"])
    elif kind == "delay" and tc.get("mode", "bronstein") == "bronstein" and not tc.get("main"):
        ot = "%s simple" % _seconds_text(tc["delay"])  # OGS: a time per move, no main time
    elif kind == "delay":
        ot = "%s %s delay" % (_seconds_text(tc["delay"]), tc.get("mode", "bronstein"))
    elif kind == "ing":
        ot = "%dx%s Ing, %d points" % (
            tc["periods"],
            _seconds_text(tc.get("period", 0)),
            tc.get("penalty", 2),
        )
    elif kind == "hourglass":
        ot = "hourglass"
    else:
        ot = None
    return tm, ot
