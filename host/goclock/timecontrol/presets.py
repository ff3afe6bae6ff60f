"""Presets: named time controls. Built-in ones for common events, plus the user's own.

The built-ins are the clock's factory presets (firmware/goclockfw/storage/configcheck.py),
read from the firmware package: the host and the clock can never disagree about them.

The user's presets live in `$GOCLOCK_HOME/presets.json` (default `~/.config/goclock`), as a
list of `{"name", "notation", "time_control"}`. The clock keeps at most 10, picked at the board
by a referee without a PC; `goclock presets push` sends them.
"""

import json
import os

from goclockfw.storage.configcheck import default_presets

from ..errors import GoclockError
from . import notation

MAX_ON_CLOCK = 10

# What each built-in is for. The built-ins themselves are the clock's factory presets
# (goclockfw/storage/configcheck.py): one list, kept with the firmware.
ABOUT = {
    "cn-national": "Chinese national events: 2 h limit, 5 reserved minutes",
    "cn-local": "Chinese local events: 1 h limit, 1 reserved minute",
    "fast": "fast games: 30 min, then 3 x 30 s",
    "rapid": "club and online rapid: 10 min, then 3 x 30 s",
    "blitz": "blitz: byo-yomi only, 5 x 10 s",
    "sd-1h": "sudden death, 1 h each (包干)",
    "cn-moves": "1 h, then 15 moves per 10 min, leftover carried",
    "canadian": "1 h, then 25 moves per 5 min (online Canadian)",
    "fischer": "20 min, 10 s added per move",
    "ing": "Ing rules: 3 h, then 3 x 20 min of overtime, 2 points each",
}
# (name, notation, what it is for), in the clock's order: preset 1 first.
BUILTIN = tuple(
    (p["name"], notation.format(p["time_control"]), ABOUT.get(p["name"], ""))
    for p in default_presets()
)


def home():
    return os.environ.get("GOCLOCK_HOME") or os.path.join(
        os.path.expanduser("~"), ".config", "goclock"
    )


def _user_path():
    return os.path.join(home(), "presets.json")


def user_presets():
    path = _user_path()
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as exc:
        raise GoclockError("cannot read your presets in %s: %s" % (path, exc)) from None
    if not isinstance(data, list):
        raise GoclockError("%s is damaged: expected a list of presets; fix or delete it" % path)
    for i, p in enumerate(data, 1):
        # What the commands read of each entry; a hand-edited file gets a clear line, not a
        # traceback. (The time control itself is checked by the clock when pushed or set.)
        if not (
            isinstance(p, dict)
            and isinstance(p.get("name"), str)
            and isinstance(p.get("time_control"), dict)
        ):
            raise GoclockError(
                '%s is damaged: preset %d needs a "name" and a "time_control" object; '
                "fix or delete it" % (path, i)
            )
    return data


def _save(presets):
    path = _user_path()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(presets, f, ensure_ascii=False, indent=1)
    os.replace(tmp, path)  # a crash mid-write leaves the old file, never half of one


def all_presets():
    """Built-ins then the user's, each a dict with name, notation, time_control, origin."""
    out = []
    for name, text, about in BUILTIN:
        out.append(
            {
                "name": name,
                "notation": text,
                "time_control": notation.parse(text),
                "about": about,
                "origin": "built-in",
            }
        )
    for p in user_presets():
        out.append(dict(p, origin="yours"))
    return out


def find(name):
    for p in reversed(all_presets()):  # the user's own shadow a built-in of the same name
        if p["name"].lower() == name.lower():
            return p
    names = ", ".join(p["name"] for p in all_presets())
    raise GoclockError("no preset named %r (known: %s)" % (name, names))


def add(name, text, about="", force=False):
    if not name or len(name) > 24 or any(c in name for c in "/\\\n"):
        raise GoclockError("a preset name is 1-24 characters, without slashes: %r" % name)
    if not force and any(name.lower() == b[0].lower() for b in BUILTIN):
        raise GoclockError(
            "%r is a built-in preset: choose another name, or add --force to have yours "
            "used instead of it" % name
        )
    tc = notation.parse(text)
    presets = [p for p in user_presets() if p["name"].lower() != name.lower()]
    entry = {"name": name, "notation": notation.format(tc), "time_control": tc}
    if about:
        entry["about"] = about
    presets.append(entry)
    _save(presets)
    return entry


def remove(name):
    presets = user_presets()
    kept = [p for p in presets if p["name"].lower() != name.lower()]
    if len(kept) == len(presets):
        raise GoclockError("you have no preset named %r" % name)
    _save(kept)


def compact(tc):
    """The time control without default fields: the clock's request line is 1 KB at most."""
    out = dict(tc)
    if out.get("calls") == "cn":
        del out["calls"]
    if out.get("carry") is False:
        del out["carry"]
    return out


def for_clock(names):
    """The presets list for `presets.set`: the named ones, or yours, or the built-ins."""
    if names:
        chosen = [find(n) for n in names]
    else:
        chosen = user_presets() or all_presets()
    if len(chosen) > MAX_ON_CLOCK:
        raise GoclockError(
            "the clock holds at most %d presets, %d given: name the ones to push"
            % (MAX_ON_CLOCK, len(chosen))
        )
    return [{"name": p["name"], "time_control": compact(p["time_control"])} for p in chosen]
