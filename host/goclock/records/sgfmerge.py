"""Write a game's time record into its SGF: BL/WL (and OB/OW) per move, TM/OT in the root,
the arbiter's actions and decisions as comments; or an SGF of the times alone.

Moves are matched in order: the n-th move node of the SGF's main line gets the n-th move of
the clock log (a timeout the arbiter ruled a pass is a move: the SGF should have a pass
there). A colour that differs stops the merge (the record and the log are not the same
game); a different number of moves is reported, and only the moves both have get times.
A ruled pass is never put onto a stone: where the SGF has a stone of the flagged side,
that move gets no times and a warning says so; where the SGF has no pass at all (the next
node is the opponent's), the pass is left out of the SGF and the moves after it are
matched one on, with a warning.

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

Every arbiter action and decision of the log (records/kinds.py) goes into a comment (C) on
the move it followed (the root, before the first move), added to any comment there; the
root also gets the game's details and result from the log (gameinfo.py: DT, EV, RO, PB, PW,
HA, RE: the result record that counts, or for a log of older firmware the clock's own W+T,
B+F), the table and time of day in its comment, and each side's main-time account. A
property the SGF has already wins: it is kept, with a warning when the log says otherwise
(RE compared in its short form, B+Resign = B+R; a "?" from the clock conflicts with nothing).
"""

import sys

from sgfmill import common, sgf

from .. import SIDES, ui
from ..errors import DeviceIOError, GoclockError
from ..timecontrol import sgfroot
from . import gameinfo

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


def _add_comment(node, lines):
    if not lines:
        return
    text = "\n".join(lines)
    if node.has_property("C"):
        text = node.get("C").rstrip("\n") + "\n\n" + text
    try:
        node.set("C", text)
    except UnicodeEncodeError as exc:  # an SGF in a charset (CA) without these letters
        node.set("C", text.encode(exc.encoding, "replace").decode(exc.encoding))


def _write_times(node, tc, move):
    props = move_time_left(tc, move)
    if props is None:
        return False
    left, count = props
    letter = "B" if move["side"] == "black" else "W"
    node.set_raw(letter + "L", left.encode())
    if count is not None:
        node.set_raw("O" + letter, str(int(count)).encode())
    return True


def _result_code(result):
    if not result or not result["final"]:
        return None
    return "%s+%s" % (result["winner"][0].upper(), "F" if result["by"] == "forfeit" else "T")


def root_values(record):
    """[(SGF property, value, what it is)] the log gives the root: the game's details (DT,
    EV, RO, PB, PW, HA) and its result (RE): the result record that counts, else (older
    firmware) the clock's own loss on time replayed."""
    d = gameinfo.details(record)
    out = []
    for prop, key, what in _DETAIL_PROPS:
        if key in d:
            out.append((prop, str(d[key]), what))
    handicap = d.get("handicap")
    if isinstance(handicap, int) and handicap >= 2:  # SGF: HA is 2 or more
        out.append(("HA", handicap, "the handicap"))
    final = gameinfo.final(record)
    if final is not None:
        out.append(("RE", final["result"], final["words"]))
    else:
        code = _result_code(record.replayed.result())
        if code:
            out.append(("RE", code, record.outcome))
    return out


_DETAIL_PROPS = (
    ("DT", "date", "the date"),
    ("EV", "event", "the event"),
    ("RO", "round", "the round"),
    ("PB", "black", "Black's name"),
    ("PW", "white", "White's name"),
)


def _differs(prop, theirs, ours):
    if prop == "RE":
        return ours != "?" and gameinfo.normal(theirs) != gameinfo.normal(ours)
    if prop == "DT":  # an SGF's DT may list several dates: the clock's must be among them
        return ours not in theirs
    return str(theirs).strip() != str(ours)


def _root_notes(root, record, warnings):
    """The game's details and result (DT, EV, RO, PB, PW, HA, RE) where the SGF has none
    (a property the SGF has is kept, with a warning when the log says otherwise), and the
    root's comment: the log, the details, the result, each side's account."""
    from . import report

    for prop, value, what in root_values(record):
        if not root.has_property(prop):
            try:
                root.set(prop, value)
            except UnicodeEncodeError as exc:
                warnings.append(
                    "%s is not written: the SGF's charset (%s) cannot hold %s (%s)"
                    % (prop, exc.encoding, what, value)
                )
            continue
        theirs = root.get(prop)
        if _differs(prop, theirs, value):
            if prop == "RE":
                text = "the SGF's result RE[%s] is kept; the clock says %s (%s)"
                warnings.append(text % (theirs, value, what))
            else:
                text = "the SGF's %s[%s] is kept; the clock log has %s for %s"
                warnings.append(text % (prop, theirs, value, what))
    lines = ["goclock: %s: %s" % (report.title(record), record.outcome)]
    for line in (gameinfo.summary_line(record), gameinfo.final_line(record)):
        if line:
            lines.append(line)
    acc = report.account(record)
    if acc:
        first = "at the first record kept" if record.cut else "main time"
        for side in SIDES:
            text = report.account_sentence(acc[side])
            if record.cut:
                text = text.replace(" start ", " %s " % first, 1)
            lines.append("%s's main time: %s" % (side.capitalize(), text))
    _add_comment(root, lines)


def _comment_actions(record, root, node_of_move):
    """Each action's words on the node of the move it came after (the root before any)."""
    moves = record.moves
    notes = {}
    k = 0  # moves[:k] came before the step
    for step in record.replayed.actions():
        while k < len(moves) and moves[k]["record"] <= step.number:  # a ruling is its pass
            k += 1
        node = root
        for j in range(k - 1, -1, -1):  # the last move before it that is in the SGF
            if j in node_of_move:
                node = node_of_move[j]
                break
        line = "goclock %s: %s" % (ui.time_used(step.rec.get("t")), step.words())
        notes.setdefault(id(node), (node, []))[1].append(line)
    for node, lines in notes.values():
        _add_comment(node, lines)


def merge(game, record):
    """Put the times of `record` (a GameRecord) into `game` (an sgfmill game).

    Returns a dict: sgf_moves, log_moves, timed (moves given times), mismatch (text to warn
    about, or None), warnings (a list of texts to warn about).
    """
    record.require_times()
    tc = record.time_control or {}
    root = game.get_root()
    if tc.get("type"):
        _set_root(root, tc)
    nodes = [n for n in game.get_main_sequence() if n.get_move()[0] is not None]
    moves = record.moves
    warnings = []
    # A log whose beginning the clock gave up (a full flash) starts at a later move: its
    # times go on the SGF's moves from there.
    skip = moves[0]["n"] - 1 if moves else 0
    nodes = nodes[skip:]
    node_of_move, timed, i, j = _match(moves, nodes, skip, tc, warnings)
    mismatch = None
    left_moves, left_nodes = len(moves) - i, len(nodes) - j
    if left_moves or left_nodes:
        mismatch = (
            "the SGF has %d moves and the clock log %d: times written on the first %d only"
            % (len(nodes) + skip, len(moves) + skip, skip + j)
        )
    elif tc.get("type") == "untimed" and moves:
        mismatch = (
            "an untimed game: SGF has no property for the time a move took, so no BL/WL "
            "were written (goclock logs export has every move's time)"
        )
    _root_notes(root, record, warnings)
    _comment_actions(record, root, node_of_move)
    return {
        "sgf_moves": len(nodes) + skip,
        "log_moves": len(moves) + skip,
        "timed": timed,
        "mismatch": mismatch,
        "warnings": warnings,
    }


def _match(moves, nodes, skip, tc, warnings):
    """The clock's moves against the SGF's, in order, each one's times written on its node;
    a timeout the clock ruled a pass is matched to the SGF's pass, or warned about.
    Returns (node of each move's index, moves given times, moves matched, nodes matched)."""
    timed = 0
    node_of_move = {}  # index into moves -> its SGF node
    i = j = 0  # moves[i], nodes[j]
    while i < len(moves) and j < len(nodes):
        move, node = moves[i], nodes[j]
        colour, point = node.get_move()
        colour = _COLOUR[colour]
        n = skip + j + 1  # the SGF's move number
        if move.get("pass"):
            who = move["side"].capitalize()
            if colour != move["side"]:
                warnings.append(
                    "move %d: the SGF has no pass where the clock has %s's timeout ruled a "
                    "pass (record %d): its time is not written, and the SGF's moves from %d "
                    "on are matched to the clock's one later" % (n, who, move["record"], n)
                )
                i += 1
                continue
            if point is not None:
                warnings.append(
                    "move %d: the clock has %s's timeout ruled a pass (record %d), the SGF a "
                    "stone at %s: no time written on that stone"
                    % (n, who, move["record"], common.format_vertex(point))
                )
                node_of_move[i] = node
                i += 1
                j += 1
                continue
        elif colour != move["side"]:
            raise GoclockError(
                "move %d is %s's in the SGF but %s's on the clock: they are not the same game "
                "(or a move is missing from one of them); nothing written"
                % (n, colour.capitalize(), move["side"].capitalize())
            )
        node_of_move[i] = node
        if _write_times(node, tc, move):
            timed += 1
        i += 1
        j += 1
    return node_of_move, timed, i, j


def timed_sgf(record):
    """An SGF of the log's times alone: the clock records who moved and when, not where, so
    each move is a node with its time left (BL/WL, OB/OW) and a comment naming it, and no
    stone; `--merge` puts the same times into the game record."""
    record.require_times()
    tc = record.time_control or {}
    game = sgf.Sgf_game(19)
    root = game.get_root()
    root.set(
        "GC",
        "times of goclock game %s; the moves' positions are not recorded by the clock "
        "(goclock logs sgf LOG --merge GAME.sgf puts them into the game record)" % record.game,
    )
    if tc.get("type"):
        _set_root(root, tc)
    node_of_move = {}
    node = root
    for i, move in enumerate(record.moves):
        node = node.new_child()
        _write_times(node, tc, move)
        what = "pass (timeout ruled a pass)" if move.get("pass") else "move"
        node.set(
            "C",
            "%s %d, %s: took %s"
            % (what, move["n"], move["side"].capitalize(), ui.time_used(move.get("used_ms"))),
        )
        node_of_move[i] = node
    warnings = []
    _root_notes(root, record, warnings)
    _comment_actions(record, root, node_of_move)
    return game, {"timed": len(record.moves), "warnings": warnings, "mismatch": None}


def write_sgf(game, out_path):
    """The SGF's bytes to `out_path`, or to standard output for "-"."""
    data = game.serialise()
    if out_path == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    try:
        with open(out_path, "wb") as f:
            f.write(data)
    except OSError as exc:
        raise DeviceIOError("cannot write %s: %s" % (out_path, exc.strerror or exc)) from None


def merge_file(record, sgf_path, out_path):
    game = load_sgf(sgf_path)
    result = merge(game, record)
    write_sgf(game, out_path)
    return result
