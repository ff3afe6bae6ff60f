"""Game logs on the host: pull (resumable), verify, export, merge into SGF, report — against
the real firmware on a pty (tests/support/clockline.py), holding the log of a game played on
it."""

import csv
import io
import json
import os

import pytest
from sgfmill import sgf

from goclock.cli import main
from support.games import play_game

TC = {"type": "byoyomi", "main": 60, "periods": 3, "period": 30}
# Black 10 s, White 10 s, Black thinks into byo-yomi (55 s, a pause in between), White 5 s,
# then quick moves.
PRESSES = [(10000, 0), (20000, 1), (95000, 0), (100000, 1)] + [
    (100000 + 2000 * i, (i + 1) % 2) for i in range(1, 9)
]


@pytest.fixture
def game(line):
    """The game played on the clock (it is over: reset after the last move); its id."""
    return play_game(line.clock, TC, PRESSES, pause=(70000, 90000))


def run(line, capsys, *argv):
    rc = main(["--port", line.path, *argv])
    out, err = capsys.readouterr()
    return rc, out, err


def pulled(line, game, capsys, out_dir):
    rc, out, err = run(line, capsys, "logs", "pull", "-o", str(out_dir))
    assert rc == 0, err
    return os.path.join(str(out_dir), "game-%05d.log" % game)


def test_pull_and_verify(line, game, capsys, tmp_path):
    path = pulled(line, game, capsys, tmp_path / "out")
    with open(path, "rb") as f:
        data = f.read()
    assert data == line.clock.log(game)
    rc, out, err = run(line, capsys, "logs", "verify", path)
    records = [ln for ln in data.split(b"\n") if ln and ln.strip(b".")]  # not the mark lines
    assert b"\n." in data  # progress marks of the running clock begin the next record's line
    assert rc == 0 and "intact, %d records" % len(records) in out


def test_pull_resumes_after_the_line_drops(line, game, capsys, tmp_path):
    out_dir = tmp_path / "out"
    log = line.clock.log(game)
    assert len(log) > 1024 + 512  # more than the two chunks that get through
    line.faults.cut_after = 1024  # two chunks arrive, then the cable is pulled
    rc, out, err = run(line, capsys, "logs", "pull", "-o", str(out_dir))
    assert rc == 1
    assert "run the same command again to resume" in err and "Traceback" not in err
    part = os.path.join(str(out_dir), "game-%05d.log.part" % game)
    assert os.path.getsize(part) == 1024
    again = line.replug()  # the same clock, plugged in again
    try:
        rc, out, err = run(again, capsys, "--json", "logs", "pull", "-o", str(out_dir))
        assert rc == 0, err
        result = json.loads(out)[0]
        assert result["resumed_from"] == 1024 and result["ok"] is True
        assert [r for r in again.requests if r["cmd"] == "logs.get"][0]["offset"] == 1024
        with open(result["path"], "rb") as f:
            assert f.read() == log
        assert not os.path.exists(part)
    finally:
        again.close()


def test_pull_of_a_game_in_progress_then_the_rest(line, capsys, tmp_path):
    # The game on the clock is still on: its log grows (moves, progress marks) between pulls.
    clock = line.clock
    clock.configure(TC)
    clock.start()
    clock.play([(10000, "black"), (20000, "white")])
    clock.run(5000)  # White's clock runs: progress marks are being written
    out_dir = tmp_path / "out"
    rc, out, err = run(line, capsys, "--json", "logs", "pull", "-o", str(out_dir))
    assert rc == 0, err
    (first,) = json.loads(out)
    game = line.session.journal.current
    assert first["game"] == game and first["running"] is True and first["ok"] is True
    with open(first["path"], "rb") as f:
        assert f.read() == clock.log(game)  # all there was
    clock.play([(30000, "black")])
    clock.run(3000)
    rc, out, err = run(line, capsys, "--json", "logs", "pull", "-o", str(out_dir))
    assert rc == 0, err
    (again,) = json.loads(out)
    assert again["resumed_from"] == first["size"] and again["size"] > first["size"]
    with open(again["path"], "rb") as f:
        assert f.read() == clock.log(game)  # the copy continued, not started over
    assert again["ok"] is True and again["verdict"].startswith("intact, 5 records")


def test_tampered_log_fails_verification(line, game, capsys, tmp_path):
    path = pulled(line, game, capsys, tmp_path / "out")
    with open(path, "rb") as f:
        data = f.read()
    # Give Black ten more seconds on move 3: the record still parses, the chain breaks.
    forged = data.replace(b'"used_ms":55000', b'"used_ms":45000')
    assert forged != data
    with open(path, "wb") as f:
        f.write(forged)
    rc, out, err = run(line, capsys, "logs", "verify", path)
    assert rc != 0
    assert "ALTERED" in out and "checksum mismatch" in err


def test_log_cut_short(line, game, capsys, tmp_path):
    path = pulled(line, game, capsys, tmp_path / "out")
    with open(path, "rb") as f:
        data = f.read()
    with open(path, "wb") as f:
        f.write(data[:-20])
    rc, out, err = run(line, capsys, "logs", "verify", path)
    assert rc != 0 and "CUT SHORT" in out


def test_pull_reports_an_altered_log_on_the_clock(line, game, capsys, tmp_path):
    # White's 5 s move, changed in the clock's flash (a worn cell, a stray write)
    assert line.clock.damage_flash(b'"used_ms":5000', b'"used_ms":4000') == 1
    rc, out, err = run(line, capsys, "logs", "pull", "-o", str(tmp_path))
    assert rc == 1 and "game %d: ALTERED" % game in err


def test_export_json_and_csv(line, game, capsys, tmp_path):
    path = pulled(line, game, capsys, tmp_path / "out")
    rc, out, err = run(line, capsys, "logs", "export", path, "--format", "json")
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["verified"]["ok"] is True
    assert doc["time_control"]["periods"] == 3
    assert [m["side"] for m in doc["moves"]] == ["black" if s == 0 else "white" for _, s in PRESSES]
    assert doc["moves"][2]["used_ms"] == 55000  # the pause did not count
    # Black's main time ran out at 60 s of the move (the pause excluded): 5 s of the period used.
    assert doc["moves"][2]["left"] == {
        "main_ms": 0,
        "flagged": False,
        "periods": 3,
        "period_ms": 25000,
    }
    # Straight from the clock, by game number: the same export.
    rc, out2, err = run(line, capsys, "logs", "export", str(game))
    assert json.loads(out2) == dict(doc)

    csv_path = tmp_path / "game.csv"
    rc, out, err = run(line, capsys, "logs", "export", path, "--format", "csv", "-o", str(csv_path))
    assert rc == 0, err
    rows = list(csv.DictReader(io.StringIO(csv_path.read_text(encoding="utf-8"))))
    assert len(rows) == len(doc["records"])
    presses = [r for r in rows if r["event"] == "press"]
    assert [int(r["move"]) for r in presses] == list(range(1, len(PRESSES) + 1))
    assert presses[2]["used_ms"] == "55000" and presses[2]["period_ms"] == "25000"
    assert any(r["phrase"] == "开始读秒" for r in rows)


def write_sgf(path, moves):
    game = sgf.Sgf_game(19)
    game.get_root().set("PB", "黑方")
    node = game.get_root()
    for i in range(moves):
        node = node.new_child()
        node.set_move("b" if i % 2 == 0 else "w", (i // 19, i % 19))
    path.write_bytes(game.serialise())


def test_sgf_merge(line, game, capsys, tmp_path):
    path = pulled(line, game, capsys, tmp_path / "out")
    record = tmp_path / "game.sgf"
    write_sgf(record, len(PRESSES))
    timed = tmp_path / "timed.sgf"
    rc, out, err = run(line, capsys, "logs", "sgf", path, "--merge", str(record), "-o", str(timed))
    assert rc == 0, err
    assert "warning" not in err
    game = sgf.Sgf_game.from_bytes(timed.read_bytes())
    root = game.get_root()
    assert root.get_raw("TM") == b"60" and root.get("OT") == "3x30 byo-yomi"
    assert root.get("PB") == "黑方"
    nodes = [n for n in game.get_main_sequence() if n.get_move()[0]]
    assert nodes[0].get("BL") == 50.0 and not nodes[0].has_property("OB")
    assert nodes[1].get("WL") == 50.0
    # Move 3: Black pressed 5 s into byo-yomi: 25 s of the period and 3 periods left.
    assert nodes[2].get("BL") == 25.0 and nodes[2].get("OB") == 3
    assert all(n.has_property("BL" if n.get_move()[0] == "b" else "WL") for n in nodes)


def test_sgf_merge_reports_a_different_move_count(line, game, capsys, tmp_path):
    path = pulled(line, game, capsys, tmp_path / "out")
    record = tmp_path / "game.sgf"
    write_sgf(record, len(PRESSES) + 3)
    timed = tmp_path / "timed.sgf"
    rc, out, err = run(line, capsys, "logs", "sgf", path, "--merge", str(record), "-o", str(timed))
    assert "the SGF has 15 moves and the clock log 12: times written on the first 12 only" in err
    nodes = [
        n
        for n in sgf.Sgf_game.from_bytes(timed.read_bytes()).get_main_sequence()
        if n.get_move()[0]
    ]
    assert [n.has_property("BL") or n.has_property("WL") for n in nodes] == [True] * 12 + [
        False
    ] * 3


def test_sgf_merge_refuses_another_game(line, game, capsys, tmp_path):
    path = pulled(line, game, capsys, tmp_path / "out")
    game = sgf.Sgf_game(19)
    game.get_root().new_child().set_move("w", (3, 3))  # White first: not this game
    record = tmp_path / "other.sgf"
    record.write_bytes(game.serialise())
    rc, out, err = run(
        line, capsys, "logs", "sgf", path, "--merge", str(record), "-o", str(tmp_path / "x.sgf")
    )
    assert rc != 0 and "move 1 is White's in the SGF but Black's on the clock" in err
    assert not (tmp_path / "x.sgf").exists()


def test_report_and_plot(line, game, capsys, tmp_path):
    path = pulled(line, game, capsys, tmp_path / "out")
    png = tmp_path / "game.png"
    rc, out, err = run(line, capsys, "logs", "report", path, "--plot", str(png))
    assert rc == 0, err
    assert "0:55" in out and "intact" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rc, out, err = run(line, capsys, "--json", "logs", "report", path)
    summary = json.loads(out)["summary"]
    assert summary["black"]["used_ms"] == 10000 + 55000 + 4 * 2000
    assert summary["black"]["longest_move"] == 3 and summary["black"]["overtime_moves"] == 5


def test_list_and_clear(line, game, capsys):
    rc, out, err = run(line, capsys, "--json", "logs", "list")
    assert [g["game"] for g in json.loads(out)] == [game]  # the next game has no log yet
    rc, out, err = run(line, capsys, "logs", "clear", "--yes", "--force")
    assert rc == 0 and "1 game log removed" in out
    assert line.session.journal.list() == []
    rc, out, err = run(line, capsys, "logs", "pull")
    assert rc != 0 and "no game logs" in err
