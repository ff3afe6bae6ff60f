"""A round's results, from what the hall holds in its folder:

- `assignments.json`: what `goclock hall assign` sent (per round and table: the clock, both
  players' OpenGotha keys and names, the handicap), and the tournament's players;
- `games.json`: which collected game (clock and game number) was played at which round
  and table: the game record's `info` when the firmware writes it, else the clock's state
  (its assignment) or the hall's own last assignment to that clock, when the game's first
  record arrived;
- `results.json`: results entered at the hall (`goclock hall result`);
- the collected logs: the clock's last `result` record, or a loss on time the clock
  decided (a `timeout` record not followed by a `ruling` turning it into a pass).

A result entered at the hall is the arbiter's word and comes first; then the log's own.
Writes OpenGotha's games-only XML, an EGF-style table (.h9) and a CSV.
"""

import csv
import io
import json
import os

from ..errors import UsageError
from ..records.gamerecord import GameRecord
from . import opengotha
from .opengotha import Game

ASSIGNMENTS = "assignments.json"
GAMES = "games.json"
RESULTS = "results.json"


def load(folder, name):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        return {}
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as exc:
        raise UsageError("cannot read %s: %s" % (path, exc)) from None
    return data if isinstance(data, dict) else {}


def save(folder, name, data):
    """Written whole to a new file, then renamed over the old one (never half a file)."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    tmp = path + ".new"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def record_assignments(folder, tournament, round_no, pairs):
    """Keep what was assigned: pairs = [(Game, clock)]."""
    data = load(folder, ASSIGNMENTS)
    data["event"] = tournament.name or tournament.short_name
    players = data.setdefault("players", {})
    rounds = data.setdefault("rounds", {})
    tables = rounds[str(round_no)] = {}
    for g, clock in pairs:
        for key in (g.black, g.white):
            p = tournament.players[key]
            players[key] = {
                "name": p.name,
                "first_name": p.first_name,
                "rank": p.rank,
                "country": p.country,
                "club": p.club,
                "rating": p.rating,
            }
        tables[str(g.table)] = {
            "clock": clock,
            "black": g.black,
            "white": g.white,
            "black_name": tournament.players[g.black].full_name,
            "white_name": tournament.players[g.white].full_name,
            "handicap": g.handicap,
            "known_color": g.known_color,
        }
    save(folder, ASSIGNMENTS, data)


def last_assignment(assignments, clock):
    """(round, table) of the latest round that assigned `clock`, or None."""
    best = None
    for rnd, tables in (assignments.get("rounds") or {}).items():
        for table, a in tables.items():
            if a.get("clock") == clock and (best is None or int(rnd) > best[0]):
                best = (int(rnd), int(table))
    return best


def enter_result(folder, round_no, table, re_value, by="hall", utc=None):
    opengotha.check_re(re_value)
    data = load(folder, RESULTS)
    data.setdefault(str(round_no), {})[str(table)] = {"result": re_value, "by": by, "utc": utc}
    save(folder, RESULTS, data)


def log_result(records):
    """The result a game's log says: (RE, by) or (None, None)."""
    found = (None, None)
    for i, r in enumerate(records):
        kind = r.get("event")
        if kind == "result" and isinstance(r.get("result"), str):
            found = (r["result"], r.get("by") or "clock")
        elif kind == "timeout" and r.get("side") in ("black", "white"):
            later = records[i + 1 :]
            if not any(
                x.get("event") == "ruling" and x.get("ruling") == "timeout_pass" for x in later
            ):
                if not any(x.get("event") == "result" for x in later) and found[0] is None:
                    found = ("W+T" if r["side"] == "black" else "B+T", "clock")
    return found


def game_info(records):
    """(round, table) from the game record's `info`, when the firmware wrote it."""
    head = next((r for r in records if r.get("event") == "game"), {})
    info = head.get("info") if isinstance(head.get("info"), dict) else {}
    rnd, table = info.get("round"), info.get("table")
    if isinstance(rnd, int) and isinstance(table, int):
        return rnd, table
    return None


def round_results(folder, round_no):
    """[(table, assignment, RE, by, source)] for every table assigned in the round."""
    assignments = load(folder, ASSIGNMENTS)
    tables = (assignments.get("rounds") or {}).get(str(round_no))
    if not tables:
        raise UsageError(
            "round %d was never assigned from this hall's folder %s (goclock hall assign)"
            % (round_no, folder)
        )
    entered = load(folder, RESULTS).get(str(round_no)) or {}
    bound = load(folder, GAMES)
    played = {}  # table -> [(clock, game, records, verdict ok)]
    for key, where in sorted(bound.items(), key=lambda kv: int(kv[0].rsplit("/", 1)[1])):
        clock, game = key.rsplit("/", 1)
        path = os.path.join(folder, clock, "game-%05d.log" % int(game))
        if not os.path.exists(path):
            continue
        rec = GameRecord.from_file(path)
        placed = game_info(rec.records) or (where.get("round"), where.get("table"))
        if placed[0] == round_no:
            played.setdefault(str(placed[1]), []).append((clock, int(game), rec))
    out = []
    for table in sorted(tables, key=int):
        a = tables[table]
        if table in entered:
            out.append((int(table), a, entered[table]["result"], entered[table].get("by"), "hall"))
            continue
        re_value, by, source = None, None, None
        for clock, game, rec in played.get(table, []):  # the latest game played there last
            if clock != a.get("clock"):
                continue
            r, b = log_result(rec.records)
            if r is not None:
                re_value, by = r, b
                source = "%s game %d%s" % (clock, game, "" if rec.ok else " (NOT VERIFIED)")
        out.append((int(table), a, re_value or "?", by, source))
    return out


def games_of(round_no, results):
    return [
        Game(
            round_no,
            table,
            a["white"],
            a["black"],
            int(a.get("handicap") or 0),
            bool(a.get("known_color", True)),
            opengotha.result_of(re_value),
        )
        for table, a, re_value, _by, _src in results
    ]


def csv_text(round_no, results):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(("round", "table", "black", "white", "handicap", "result", "by", "from"))
    for table, a, re_value, by, src in results:
        w.writerow(
            (
                round_no,
                table,
                a["black_name"],
                a["white_name"],
                a.get("handicap") or 0,
                re_value,
                by or "",
                src or "",
            )
        )
    return buf.getvalue()


def _outcome(re_value, colour):
    """+ - = or ? for the player of `colour` ("b"/"w")."""
    if re_value in ("0", "Draw"):
        return "="
    if not re_value or re_value[:2] not in ("B+", "W+"):
        return "?"
    won = re_value[0].lower() == colour
    return "+" if won else "-"


def h9_text(folder, upto_round):
    """An EGF-style results table of rounds 1..upto_round as the hall has them: players
    numbered by rating (no placement is computed here), a column per round: opponent's
    number, + - = ?, the colour, the handicap; 0- where a player had no game."""
    assignments = load(folder, ASSIGNMENTS)
    players = assignments.get("players") or {}
    order = sorted(players, key=lambda k: (-int(players[k].get("rating") or 0), k))
    number = {k: i + 1 for i, k in enumerate(order)}
    cells = {k: ["0-"] * upto_round for k in order}
    for rnd in range(1, upto_round + 1):
        if str(rnd) not in (assignments.get("rounds") or {}):
            continue
        for _table, a, re_value, _by, _src in round_results(folder, rnd):
            hd = int(a.get("handicap") or 0)
            cells[a["black"]][rnd - 1] = "%d%s/b%d" % (
                number[a["white"]],
                _outcome(re_value, "b"),
                hd,
            )
            cells[a["white"]][rnd - 1] = "%d%s/w%d" % (
                number[a["black"]],
                _outcome(re_value, "w"),
                hd,
            )
    lines = [
        "; EV[%s]" % (assignments.get("event") or ""),
        "; Generated by goclock hall results",
        ";",
        "; Pl Name                            Rk Co Club",
    ]
    for k in order:
        p = players[k]
        name = ("%s %s" % (p.get("name", ""), p.get("first_name", ""))).strip()
        lines.append(
            "%4d %-31s %-3s %-2s %-5s %s"
            % (
                number[k],
                name[:31],
                p.get("rank", ""),
                p.get("country", ""),
                p.get("club", "")[:5],
                " ".join("%8s" % c for c in cells[k]),
            )
        )
    return "\n".join(lines) + "\n"


def write_round(folder, round_no, out_dir=None):
    """round-N.xml, round-N.h9, round-N.csv in out_dir; their paths and the results."""
    out_dir = out_dir or folder
    results = round_results(folder, round_no)
    os.makedirs(out_dir, exist_ok=True)
    paths = {}
    for ext, data in (
        ("xml", opengotha.games_xml(games_of(round_no, results))),
        ("h9", h9_text(folder, round_no).encode("utf-8")),
        ("csv", csv_text(round_no, results).encode("utf-8")),
    ):
        path = os.path.join(out_dir, "round-%d.%s" % (round_no, ext))
        with open(path, "wb") as f:
            f.write(data)
        paths[ext] = path
    return paths, results
