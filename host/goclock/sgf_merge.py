"""Write a game's time record into its SGF: BL/WL (and OB/OW) per move, TM/OT in the root.

Moves are matched in order: the n-th move node of the SGF's main line gets the n-th move of
the clock log. A colour that differs stops the merge (the record and the log are not the same
game); a different number of moves is reported, and only the moves both have get times.

What is written on each move node, for the side that moved: what that side had left when it
pressed the clock, as the firmware logs it with the press (firmware/goclockfw/app/app.py):
- BL/WL: seconds left: the main time; in byo-yomi what was left of the current period; in a
  Canadian block what was left of the block. (A Fischer increment is added after the press,
  so it is not in BL/WL yet.)
- OB/OW: in byo-yomi the periods left (as KGS writes it), in a Canadian block the moves left.
"""

from sgfmill import sgf

from . import sgf_tc
from .errors import GoclockError

_COLOUR = {"b": "black", "w": "white"}


def _seconds(ms):
    text = "%.3f" % (ms / 1000.0)
    return text.rstrip("0").rstrip(".")


def time_properties(tc_type, left):
    """(time left in seconds as text, overtime count or None) from a move's `left` fields."""
    main = left.get("main_ms")
    if main:
        return _seconds(main), None
    if tc_type == "byoyomi" and "periods" in left:
        return _seconds(left.get("period_ms", 0)), left["periods"]
    if tc_type == "canadian" and "moves" in left:
        return _seconds(left.get("period_ms", 0)), left["moves"]
    return _seconds(main or 0), None


def load_sgf(path):
    try:
        with open(path, "rb") as f:
            return sgf.Sgf_game.from_bytes(f.read())
    except OSError as exc:
        raise GoclockError("cannot read %s: %s" % (path, exc.strerror or exc)) from None
    except ValueError as exc:
        raise GoclockError("%s is not a valid SGF file: %s" % (path, exc)) from None


def merge(game, record):
    """Put the times of `record` (a GameRecord) into `game` (an sgfmill game).

    Returns a dict: sgf_moves, log_moves, timed (moves given times), mismatch (text or None).
    """
    record.require_times()
    tc = record.time_control or {}
    root = game.get_root()
    if tc.get("type"):
        tm, ot = sgf_tc.root_properties(tc)
        root.set_raw("TM", tm.encode())
        if ot:
            root.set("OT", ot)
        elif root.has_property("OT"):
            root.unset("OT")
    nodes = [n for n in game.get_main_sequence() if n.get_move()[0] is not None]
    moves = record.moves
    for i, (node, move) in enumerate(zip(nodes, moves)):
        colour = _COLOUR[node.get_move()[0]]
        if colour != move["side"]:
            raise GoclockError(
                "move %d is %s's in the SGF but %s's on the clock: they are not the same game "
                "(or a move is missing from one of them); nothing written"
                % (i + 1, colour.capitalize(), move["side"].capitalize())
            )
        left, count = time_properties(tc.get("type"), move["left"])
        letter = "B" if colour == "black" else "W"
        node.set_raw(letter + "L", left.encode())
        if count is not None:
            node.set_raw("O" + letter, str(int(count)).encode())
    timed = min(len(nodes), len(moves))
    mismatch = None
    if len(nodes) != len(moves):
        mismatch = (
            "the SGF has %d moves and the clock log %d: times written on the first %d only"
            % (
                len(nodes),
                len(moves),
                timed,
            )
        )
    return {"sgf_moves": len(nodes), "log_moves": len(moves), "timed": timed, "mismatch": mismatch}


def merge_file(record, sgf_path, out_path):
    game = load_sgf(sgf_path)
    result = merge(game, record)
    try:
        with open(out_path, "wb") as f:
            f.write(game.serialise())
    except OSError as exc:
        raise GoclockError("cannot write %s: %s" % (out_path, exc.strerror or exc)) from None
    return result
