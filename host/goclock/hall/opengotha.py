"""OpenGotha's tournament XML (its `tournament.dtd`), read and written as facts from its
repository say (github.com/lucvannier/opengotha; no code of it here):

- `<Tournament dataVersion=…>` holds `<Players>` of `<Player name= firstName= rank=
  country= club= rating= …/>` and `<Games>` of `<Game roundNumber= tableNumber=
  whitePlayer= blackPlayer= knownColor= handicap= result=/>`, round and table numbers
  from 1;
- a game names its players by key: name and first name joined, spaces removed, upper
  case ("Fan" "Hui" -> "FANHUI"), for dataVersion 201 and later (200 and earlier used an
  older form, which we do not write);
- results: RESULT_UNKNOWN, RESULT_WHITEWINS, RESULT_BLACKWINS, RESULT_EQUAL,
  RESULT_BOTHLOSE, RESULT_BOTHWIN, and each with _BYDEF (decided without play).

"Import tournament from XML" in OpenGotha takes a file with only `<Games>` and merges its
results into the open tournament: what `goclock hall results` writes.
"""

import re
import xml.etree.ElementTree as ET
from typing import NamedTuple

from ..errors import UsageError

DATA_VERSION = "201"

# Any SGF RE value (FF[4]): a win by resignation, time, forfeit or points, a draw, void,
# unknown.
RE_FORM = re.compile(r"^(?:[BW]\+(?:R|Resign|T|Time|F|Forfeit|\d+(?:\.\d+)?)?|0|Draw|Void|\?)$")


def check_re(text):
    """An SGF RE value, as given -> the same, or UsageError saying what is accepted."""
    if not isinstance(text, str) or not RE_FORM.match(text):
        raise UsageError(
            "%r is not a result: SGF RE forms are B+R, W+T, B+F, B+3.5, W+, 0 (jigo), Draw, "
            "Void, ?" % (text,)
        )
    return text


def result_of(re_value):
    """An SGF RE -> OpenGotha's result name. A forfeit is a win by default (no game was
    played); Void and ? leave the result unknown for the arbiter to enter."""
    if re_value in ("0", "Draw"):
        return "RESULT_EQUAL"
    if re_value in ("Void", "?") or not re_value:
        return "RESULT_UNKNOWN"
    winner = "RESULT_BLACKWINS" if re_value.startswith("B+") else "RESULT_WHITEWINS"
    if re_value[2:] in ("F", "Forfeit"):
        winner += "_BYDEF"
    return winner


def key_of(name, first_name):
    return (name + first_name).replace(" ", "").upper()


class Player(NamedTuple):
    key: str
    name: str
    first_name: str
    rank: str
    country: str
    club: str
    rating: int

    @property
    def full_name(self):
        return ("%s %s" % (self.first_name, self.name)).strip()


class Game(NamedTuple):
    round: int
    table: int
    white: str  # player keys
    black: str
    handicap: int
    known_color: bool
    result: str


class Tournament(NamedTuple):
    name: str
    short_name: str
    players: dict  # key -> Player
    games: list

    def round(self, n):
        return sorted((g for g in self.games if g.round == n), key=lambda g: g.table)


def _int(el, attr, default, where):
    text = el.get(attr, default)
    try:
        return int(text)
    except (TypeError, ValueError):
        raise UsageError("%s: %s=%r is not a whole number" % (where, attr, text)) from None


def read(path):
    """An OpenGotha tournament file -> Tournament; UsageError when it is not one."""
    try:
        root = ET.parse(path).getroot()
    except OSError as exc:
        raise UsageError("cannot read %s: %s" % (path, exc.strerror or exc)) from None
    except ET.ParseError as exc:
        raise UsageError("%s is not XML: %s" % (path, exc)) from None
    if root.tag != "Tournament":
        raise UsageError("%s is not an OpenGotha tournament (<%s>)" % (path, root.tag))
    players = {}
    for el in root.iterfind("Players/Player"):
        name, first = el.get("name", ""), el.get("firstName", "")
        p = Player(
            key_of(name, first),
            name,
            first,
            el.get("rank", ""),
            el.get("country", ""),
            el.get("club", ""),
            _int(el, "rating", "-2950", "%s: player %s %s" % (path, first, name)),
        )
        players[p.key] = p
    games = []
    for el in root.iterfind("Games/Game"):
        where = "%s: a game" % path
        g = Game(
            _int(el, "roundNumber", None, where),
            _int(el, "tableNumber", None, where),
            el.get("whitePlayer", ""),
            el.get("blackPlayer", ""),
            _int(el, "handicap", "0", where),
            el.get("knownColor", "true") != "false",
            el.get("result", "RESULT_UNKNOWN"),
        )
        for key in (g.white, g.black):
            if key not in players:
                raise UsageError(
                    "%s: round %d table %d names %r, not among its players"
                    % (path, g.round, g.table, key)
                )
        games.append(g)
    general = root.find("TournamentParameterSet/GeneralParameterSet")
    name = general.get("name", "") if general is not None else ""
    short = general.get("shortName", "") if general is not None else ""
    return Tournament(name, short, players, games)


def games_xml(games):
    """A games-only OpenGotha file (bytes, UTF-8) of `games` (Game tuples)."""
    root = ET.Element("Tournament", dataVersion=DATA_VERSION)
    box = ET.SubElement(root, "Games")
    for g in sorted(games, key=lambda g: (g.round, g.table)):
        ET.SubElement(
            box,
            "Game",
            roundNumber=str(g.round),
            tableNumber=str(g.table),
            whitePlayer=g.white,
            blackPlayer=g.black,
            knownColor="true" if g.known_color else "false",
            handicap=str(g.handicap),
            result=g.result,
        )
    ET.indent(root)
    return ET.tostring(root, encoding="UTF-8", xml_declaration=True) + b"\n"
