"""Which games' logs this computer holds a complete, verified copy of: the ledger of pulls.

`goclock logs clear` deletes a game's log from the clock only once it was pulled: a copy
was taken by `goclock logs pull` (or collected by the hall, which writes here the same
way), its checksum chain and sequence verified, and it holds the whole log as the clock
has it now. The clock is told apart from others by the `clock_id` of its `info` (the board's
unique id, or one the clock made once and keeps in flash); a log is told apart from a
later state of itself by its size and the checksum of its last record (a game ruled on
after its flag grows, and a pull before that is not the whole of it).

    $GOCLOCK_HOME/pulled.json      (default ~/.config/goclock/pulled.json)
    {"version": 1, "clocks": {"<clock id>": {"<game>": {
        "size": 74663, "last": "1f0e33a2", "records": 577, "moves": 143,
        "outcome": "...", "path": "/abs/path/game-00012.log", "when": "2026-12-01T21:30:13"}}}}

`path` is where the copy is (null when the hall holds it): a copy deleted or changed
since no longer counts.
"""

import datetime
import json
import os

from goclockfw.storage import logline

from ..errors import GoclockError
from ..timecontrol.presets import home

VERSION = 1


def ledger_path():
    return os.path.join(home(), "pulled.json")


def _load():
    path = ledger_path()
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        return {"version": VERSION, "clocks": {}}
    except (OSError, ValueError) as exc:
        raise GoclockError("cannot read the ledger of pulled logs %s: %s" % (path, exc)) from None
    if not isinstance(data, dict) or not isinstance(data.get("clocks"), dict):
        raise GoclockError("%s is not a ledger of pulled logs" % path)
    return data


def _save(data):
    path = ledger_path()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".new"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)  # the old ledger or the new one, never half of one


def last_checksum(data):
    """The checksum (8 hex digits) the last record of a log's bytes claims, or None."""
    for line in reversed(data.split(b"\n")):
        line = logline.after_marks(line.rstrip(b"\r"))
        if not line:
            continue
        c = logline.claimed(line)
        return None if c is None else "%08x" % c
    return None


def note(clock_id, game, data, path, check, record):
    """Write down a complete, verified copy of `game`'s log (`data`, as pulled)."""
    if not clock_id or not check.ok:
        return False
    ledger = _load()
    games = ledger["clocks"].setdefault(str(clock_id), {})
    games[str(game)] = {
        "size": len(data),
        "last": last_checksum(data),
        "records": len(record.records),
        "moves": len(record.moves),
        "outcome": record.outcome,
        "path": os.path.abspath(path) if path else None,
        "when": datetime.datetime.now().isoformat(timespec="seconds"),
    }
    _save(ledger)
    return True


def pulled(clock_id, game, size, last):
    """(True, where) when a complete verified copy of this state of the log was taken;
    (False, why not) otherwise."""
    if not clock_id:
        return False, "the clock gives no id, so its pulls cannot be told from another's"
    entry = _load()["clocks"].get(str(clock_id), {}).get(str(game))
    if entry is None:
        return False, "never pulled"
    if entry.get("size") != size or entry.get("last") != last:
        return False, "pulled before it grew (%d of %d bytes): pull it again" % (
            entry.get("size", 0),
            size,
        )
    copy = entry.get("path")
    if copy is None:
        return True, "collected by the hall"
    try:
        with open(copy, "rb") as f:
            data = f.read()
    except OSError:
        return False, "pulled to %s, which is gone" % copy
    if len(data) != size or last_checksum(data) != last:
        return False, "pulled to %s, which has changed since" % copy
    return True, "pulled to %s" % copy
