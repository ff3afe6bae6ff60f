"""Presets: named time controls. Built-in ones for common events, plus the user's own.

The user's presets live in `$GOCLOCK_HOME/presets.json` (default `~/.config/goclock`), as a
list of `{"name", "notation", "time_control"}`. The clock keeps at most 10, picked at the board
by a referee without a PC; `goclock presets push` sends them.
"""

import json
import os

from . import notation
from .errors import GoclockError

MAX_ON_CLOCK = 10

# (name, notation, what it is for). Names are short: the clock announces presets by number.
BUILTIN = (
    ("cn-national", "cn 2h/5", "Chinese national events: 2 h limit, 5 reserved minutes"),
    ("cn-local", "cn 1h/1", "Chinese local events: 1 h limit, 1 reserved minute"),
    ("fast", "byo 30m+3x30s", "fast games: 30 min, then 3 x 30 s"),
    ("rapid", "byo 10m+3x30s", "club and online rapid: 10 min, then 3 x 30 s"),
    ("blitz", "byo 0+5x10s", "blitz: byo-yomi only, 5 x 10 s"),
    ("sd-1h", "sd 1h", "sudden death, 1 h each (包干)"),
    ("cn-moves", "can 1h+15/10m carry", "1 h, then 15 moves per 10 min, leftover carried"),
    ("canadian", "can 1h+25/5m", "1 h, then 25 moves per 5 min (online Canadian)"),
    ("fischer", "fischer 20m+10s", "20 min, 10 s added per move"),
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


def add(name, text, about=""):
    if not name or len(name) > 24 or any(c in name for c in "/\\\n"):
        raise GoclockError("a preset name is 1-24 characters, without slashes: %r" % name)
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
