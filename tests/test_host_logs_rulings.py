"""Game logs with a timeout ruled a pass, and logs of the new controls: the SGF merge, the
report and the export, from logs written by the firmware's own session for games played
by the real clock core (as the app logs them: each record with the status of that moment)."""

import json

import pytest
from sgfmill import sgf

from goclock.cli import main
from goclock.records import report, sgfmerge
from goclock.records.gamerecord import GameRecord
from support.sessions import make_session


def play(directory, time_control, script):
    """The bytes of the log of a game played by the real session: `script` is a list of
    (t, action, side) with action press, pause, resume, advance or ruling; White's button
    starts Black's clock at 0."""
    s = make_session(player=False)
    s.commands.set_config(dict(s.store.config, time_control=time_control))
    s.commands.reset(None)
    s.commands.press(1, 0)
    for t, action, side in script:
        s.step(t)
        if action == "press":
            assert s.commands.press(side, t), s.commands.reason
        elif action == "pause":
            s.commands.pause()
        elif action == "resume":
            s.commands.resume()
        elif action == "ruling":
            assert s.commands.can_timeout_pass()
            s.commands.timeout_pass()
    s.step(script[-1][0] + 1)
    if s.clock.state == "running":
        s.commands.pause()
    gid = s.journal.current
    s.commands.reset(None)
    return s.journal.read(gid, 0, 1 << 24)[0]


B, W = 0, 1
BYO = {"type": "byoyomi", "main": 10, "periods": 1, "period": 30}
# Black 5 s, White 3 s; Black runs out of main time at 13 s and of its last period at 73 s
# (30 s paused on the way); the arbiter rules the timeout a pass at 80 s; White 2 s; Black
# 8 s into a fresh period.
RULED = [
    (5000, "press", B),
    (8000, "press", W),
    (20000, "pause", None),
    (50000, "resume", None),
    (75000, "advance", None),
    (80000, "ruling", None),
    (82000, "press", W),
    (90000, "press", B),
]


def sgf_game(colours, pass_at=()):
    game = sgf.Sgf_game(19)
    node = game.get_root()
    for i, colour in enumerate(colours):
        node = node.new_child()
        node.set_move(colour, None if i in pass_at else (i // 19, i % 19))
    return game


@pytest.fixture
def ruled(tmp_path):
    return GameRecord(play(tmp_path / "flash", BYO, RULED))


def test_a_ruled_pass_is_a_move_with_its_time(ruled):
    assert ruled.ok
    moves = ruled.moves
    assert [m["side"] for m in moves] == ["black", "white", "black", "white", "black"]
    ruling = moves[2]
    assert ruling["pass"] is True
    assert ruling["used_ms"] == 73000 - 8000 - 30000  # to the flag, the pause excluded
    assert ruling["left"] == {"main_ms": 0, "periods": 1, "period_ms": 30000, "flagged": False}


def test_sgf_merge_writes_the_ruled_pass(ruled):
    """It failed: 'the press records carry no time left'."""
    game = sgf_game("bwbwb", pass_at=(2,))
    result = sgfmerge.merge(game, ruled)
    assert result == {
        "sgf_moves": 5,
        "log_moves": 5,
        "timed": 5,
        "mismatch": None,
        "warnings": [],
    }
    nodes = [n for n in game.get_main_sequence() if n.get_move()[0]]
    assert nodes[2].get_move() == ("b", None)
    assert nodes[2].get("BL") == 30.0 and nodes[2].get("OB") == 1
    assert nodes[4].get("BL") == 22.0 and nodes[4].get("OB") == 1
    assert nodes[3].get("WL") == 5.0 and not nodes[3].has_property("OW")


def test_report_counts_the_ruled_pass(ruled, capsys):
    """It showed 0 overtime for that move, and left its time out of Black's total."""
    s = report.summary(ruled)
    assert s["black"]["used_ms"] == 5000 + 35000 + 8000
    assert s["black"]["overtime_moves"] == 2 and s["black"]["longest_move"] == 3
    report.print_report(ruled)
    out = capsys.readouterr().out
    assert "pass (ruling) 0:35" in out and "0:30 (1 period)" in out


def test_cli_sgf_and_report_with_a_ruling(tmp_path, capsys):
    log = tmp_path / "game.log"
    log.write_bytes(play(tmp_path / "flash", BYO, RULED))
    record = tmp_path / "game.sgf"
    record.write_bytes(sgf_game("bwbwb", pass_at=(2,)).serialise())
    out_sgf = tmp_path / "timed.sgf"
    rc = main(["logs", "sgf", str(log), "--merge", str(record), "-o", str(out_sgf)])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert "times of 5 moves written" in err
    rc = main(["--json", "logs", "report", str(log)])
    out, err = capsys.readouterr()
    assert rc == 0 and json.loads(out)["summary"]["black"]["overtime_moves"] == 2


# ----- the new controls in the log, the SGF and the report ---------------------------------


def merged(tmp_path, tc, script, colours):
    rec = GameRecord(play(tmp_path / "flash", tc, script))
    game = sgf_game(colours)
    result = sgfmerge.merge(game, rec)
    nodes = [n for n in game.get_main_sequence() if n.get_move()[0]]
    return rec, game.get_root(), nodes, result


def test_ing_overtime_in_the_sgf(tmp_path):
    tc = {"type": "ing", "main": 10, "periods": 3, "period": 20}
    rec, root, nodes, _ = merged(
        tmp_path, tc, [(25000, "press", B), (26000, "press", W), (40000, "press", B)], "bwb"
    )
    assert root.get_raw("TM") == b"10" and root.get("OT") == "3x20 Ing, 2 points"
    assert nodes[0].get("BL") == 5.0 and nodes[0].get("OB") == 3  # period 1, 5 s left
    assert nodes[1].get("WL") == 9.0
    assert nodes[2].get("BL") == 11.0 and nodes[2].get("OB") == 2
    assert rec.moves[2]["left"]["points"] == 4
    assert report.summary(rec)["black"]["overtime_moves"] == 2


def test_untimed_game_has_no_time_left_to_write(tmp_path):
    tc = {"type": "untimed"}
    rec = GameRecord(play(tmp_path / "flash", tc, [(5000, "press", B), (65000, "press", W)]))
    game = sgf_game("bw")
    game.get_root().set_raw("TM", b"1800")  # a stale time control in the record
    result = sgfmerge.merge(game, rec)
    root = game.get_root()
    assert not root.has_property("TM") and not root.has_property("OT")
    nodes = [n for n in game.get_main_sequence() if n.get_move()[0]]
    assert not any(n.has_property("BL") or n.has_property("WL") for n in nodes)
    assert result["timed"] == 0 and "untimed" in result["mismatch"]
    assert [m["used_ms"] for m in rec.moves] == [5000, 60000]
    assert [m["left"]["spent_ms"] for m in rec.moves] == [5000, 60000]
    s = report.summary(rec)
    assert s["white"]["used_ms"] == 60000 and s["white"]["overtime_moves"] == 0


def test_time_per_move_and_caps_in_the_sgf(tmp_path):
    tc = {"type": "delay", "main": 0, "delay": 30, "mode": "bronstein"}
    _, root, nodes, _ = merged(tmp_path / "a", tc, [(12000, "press", B)], "b")
    assert root.get("OT") == "30 simple" and nodes[0].get("BL") == 18.0
    tc = {"type": "fischer", "main": 20, "increment": 10, "max": 30}
    _, root, nodes, _ = merged(tmp_path / "b", tc, [(1000, "press", B)], "b")
    assert root.get("OT") == "10 fischer" and nodes[0].get("BL") == 29.0  # 20 - 1 + 10
    tc = {"type": "hourglass", "main": 60}
    _, root, nodes, _ = merged(tmp_path / "c", tc, [(10000, "press", B), (15000, "press", W)], "bw")
    assert root.get("OT") == "hourglass"
    assert nodes[0].get("BL") == 50.0 and nodes[1].get("WL") == 65.0
