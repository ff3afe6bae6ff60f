"""An OGS (online-go.com) time-control object, as goclock's time-control JSON.

OGS describes a game's clock with a JSON object whose `system` names the form (seconds
throughout; `speed` and `pause_on_weekends` do not concern a clock at the board):

    {"system": "byoyomi", "main_time": 600, "period_time": 30, "periods": 5}
    {"system": "fischer", "initial_time": 300, "time_increment": 10, "max_time": 600}
    {"system": "canadian", "main_time": 600, "period_time": 300, "stones_per_period": 20}
    {"system": "simple", "per_move": 30}          each move at most 30 s, no main time
    {"system": "absolute", "total_time": 1800}     sudden death
    {"system": "none"}                             no time limit

`goclock config set --from-ogs FILE` reads such an object, or a game or challenge object
holding one under "time_control" (an object, or its JSON text), or under
"time_control_parameters". A needed field that is missing, or not a number, is refused by
name; nothing is guessed.
"""

import json

from ..errors import NotationError

_FIELDS = {
    "byoyomi": ("main_time", "period_time", "periods"),
    "fischer": ("initial_time", "time_increment", "max_time"),
    "canadian": ("main_time", "period_time", "stones_per_period"),
    "simple": ("per_move",),
    "absolute": ("total_time",),
    "none": (),
}


def _find(obj):
    """The time-control object inside what an OGS file may hold."""
    if isinstance(obj, dict) and "system" in obj:
        return obj
    if isinstance(obj, dict):
        for key in ("time_control", "time_control_parameters"):
            inner = obj.get(key)
            if isinstance(inner, str):
                try:
                    inner = json.loads(inner)
                except ValueError:
                    continue
            if isinstance(inner, dict) and "system" in inner:
                return inner
    raise NotationError(
        'no OGS time control found: expected an object with "system" (byoyomi, fischer, '
        'canadian, simple, absolute or none), or one under "time_control"'
    )


def _number(tc, key):
    value = tc.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise NotationError(
            "the OGS %s time control needs %s as a number of seconds, got %r"
            % (tc["system"], key, value)
        )
    return int(value) if float(value).is_integer() else value


def time_control(obj):
    """goclock's time-control JSON (not yet checked) of an OGS object."""
    tc = _find(obj)
    system = tc.get("system")
    if system not in _FIELDS:
        raise NotationError(
            "unknown OGS time system %r (one of %s)" % (system, ", ".join(sorted(_FIELDS)))
        )
    v = {key: _number(tc, key) for key in _FIELDS[system]}
    if system == "byoyomi":
        out = {"type": "byoyomi", "main": v["main_time"], "periods": v["periods"]}
        out["period"] = v["period_time"]
        return out
    if system == "fischer":
        out = {"type": "fischer", "main": v["initial_time"], "increment": v["time_increment"]}
        out["max"] = v["max_time"]
        return out
    if system == "canadian":
        out = {"type": "canadian", "main": v["main_time"], "moves": v["stones_per_period"]}
        out.update(period=v["period_time"], carry=False)
        return out
    if system == "simple":
        # Each move at most per_move seconds: one byo-yomi period per move, no main time.
        return {"type": "byoyomi", "main": 0, "periods": 1, "period": v["per_move"]}
    if system == "absolute":
        return {"type": "sudden_death", "main": v["total_time"]}
    return {"type": "untimed"}


def read_file(path):
    """goclock's time-control JSON (not yet checked) of an OGS JSON file."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as exc:
        raise NotationError("cannot read %s: %s" % (path, exc.strerror or exc)) from None
    except ValueError as exc:
        raise NotationError("%s is not valid JSON: %s" % (path, exc)) from None
    return time_control(data)
