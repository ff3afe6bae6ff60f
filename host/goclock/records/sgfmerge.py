"""Write a game's time record into its SGF: BL/WL (and OB/OW) per move, TM/OT in the root.

Moves are matched in order: the n-th move node of the SGF's main line gets the n-th move of
the clock log (a timeout the arbiter ruled a pass is a move: the SGF has a pass there). A
colour that differs stops the merge (the record and the log are not the same game); a
different number of moves is reported, and only the moves both have get times.

What is written on each move node, for the side that moved: what that side had left as the
move left it, as the firmware logs it with the press (firmware/goclockfw/events.py):
- BL/WL: seconds left: the main time (a Fischer increment or a Bronstein refund included);
  in byo-yomi or Ing overtime what was left of the period in use; in a Canadian block what
  was left of the block; with a time per move (Bronstein, no main time) what was left of
  the move's time. After a timeout ruled a pass: the last period, whole.
- OB/OW: in byo-yomi and Ing overtime the periods left (as KGS writes it), in a Canadian
  block the moves left.
An untimed game has no time left to write: its root loses TM/OT and its moves get nothing
(SGF has no property for the time a move took: `goclock logs export` has it).
"""

from sgfmill import sgf

from ..errors import DeviceIOError, GoclockError
from ..timecontrol import sgfroot

_COLOUR = {"b": "black", "w": "white"}
_OVERTIME_COUNT = {"byoyomi": "periods", "ing": "periods", "canadian": "moves"}


def _seconds(ms):
    text = "%.3f" % (ms / 1000.0)
    return text.rstrip("0").rstrip(".")


def time_properties(tc_type, left):
    """(time left in seconds as text, overtime count or None) from a move's `left` fields."""
    main = left.get("main_ms")
    if main:
        return _seconds(main), None
    count = _OVERTIME_COUNT.get(tc_type)
    if count and count in left:
        return _seconds(left.get("period_ms", 0)), left[count]
    if "period_ms" in left:  # a time per move: what was left of it
        return _seconds(left["period_ms"]), None
    return _seconds(main or 0), None


def move_time_left(tc, move):
    """(seconds text, count or None) a move left its side with; None for an untimed game."""
    if tc.get("type") == "untimed":
        return None
    return time_properties(tc.get("type"), move["left"])


def load_sgf(path):
    try:
        with open(path, "rb") as f:
            return sgf.Sgf_game.from_bytes(f.read())
    except OSError as exc:
        raise GoclockError("cannot read %s: %s" % (path, exc.strerror or exc)) from None
    except ValueError as exc:
        raise GoclockError("%s is not a valid SGF file: %s" % (path, exc)) from None


def _set_root(root, tc):
    tm, ot = sgfroot.root_properties(tc)
    if tm is not None:
        root.set_raw("TM", tm.encode())
    elif root.has_property("TM"):
        root.unset("TM")
    if ot is not None:
        root.set("OT", ot)
    elif root.has_property("OT"):
        root.unset("OT")


def merge(game, record):
    """Put the times of `record` (a GameRecord) into `game` (an sgfmill game).

    Returns a dict: sgf_moves, log_moves, timed (moves given times), mismatch (text to warn
    about, or None).
    """
    record.require_times()
    tc = record.time_control or {}
    root = game.get_root()
    if tc.get("type"):
        _set_root(root, tc)
    nodes = [n for n in game.get_main_sequence() if n.get_move()[0] is not None]
    moves = record.moves
    # A log whose beginning the clock gave up (a full flash) starts at a later move: its
    # times go on the SGF's moves from there.
    skip = moves[0]["n"] - 1 if moves else 0
    nodes = nodes[skip:]
    timed = 0
    for i, (node, move) in enumerate(zip(nodes, moves), skip):
        colour = _COLOUR[node.get_move()[0]]
        if colour != move["side"]:
            raise GoclockError(
                "move %d is %s's in the SGF but %s's on the clock: they are not the same game "
                "(or a move is missing from one of them); nothing written"
                % (i + 1, colour.capitalize(), move["side"].capitalize())
            )
        props = move_time_left(tc, move)
        if props is None:
            continue
        left, count = props
        letter = "B" if colour == "black" else "W"
        node.set_raw(letter + "L", left.encode())
        if count is not None:
            node.set_raw("O" + letter, str(int(count)).encode())
        timed += 1
    both = min(len(nodes), len(moves))
    mismatch = None
    if len(nodes) != len(moves):
        mismatch = (
            "the SGF has %d moves and the clock log %d: times written on the first %d only"
            % (
                len(nodes) + skip,
                len(moves) + skip,
                both + skip,
            )
        )
    elif tc.get("type") == "untimed" and both:
        mismatch = (
            "an untimed game: SGF has no property for the time a move took, so no BL/WL "
            "were written (goclock logs export has every move's time)"
        )
    return {
        "sgf_moves": len(nodes) + skip,
        "log_moves": len(moves) + skip,
        "timed": timed,
        "mismatch": mismatch,
    }


def merge_file(record, sgf_path, out_path):
    game = load_sgf(sgf_path)
    result = merge(game, record)
    try:
        with open(out_path, "wb") as f:
            f.write(game.serialise())
    except OSError as exc:
        raise DeviceIOError("cannot write %s: %s" % (out_path, exc.strerror or exc)) from None
    return result
