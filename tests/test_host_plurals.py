"""One of a thing is said in the singular (issue 17 item 7): "1 period", "1 preset",
"1 problem", "1 move left" — in the report, presets push, voice check and the view the
display and `make sim` show."""

import os
import shutil

from goclock import resources
from goclockfw.app import display
from support.cli import own_home, run  # noqa: F401 (own_home: autouse)
from support.games import play_game

# One period of 30 s and no main time: every move leaves its side "(1 period)".
ONE_PERIOD = {"type": "byoyomi", "main": 0, "periods": 1, "period": 30}


def test_report_says_1_period(line, capsys, tmp_path):
    game = play_game(line.clock, ONE_PERIOD, [(5000, 0), (9000, 1)])
    rc, out, err = run(capsys, "--port", line.path, "logs", "report", str(game))
    assert rc == 0, err
    assert "(1 period)" in out and "1 periods" not in out


def test_presets_push_of_one_says_1_preset(line, capsys):
    rc, out, err = run(capsys, "--port", line.path, "presets", "push", "fast", "--yes")
    assert rc == 0, err
    assert "1 preset on the clock" in out and "1 presets" not in out


def test_voice_check_says_1_problem(capsys, tmp_path):
    pack = str(tmp_path / "en")
    shutil.copytree(resources.voice_pack("en"), pack)
    os.remove(os.path.join(pack, "count_3.wav"))
    rc, out, err = run(capsys, "voice", "check", pack)
    assert rc == 2
    assert out.splitlines()[-1] == "1 problem" and "1 problem:" in err
    assert "problem(s)" not in out + err


def _status(black):
    white = {"main_ms": 600000, "moves": 25, "period_ms": 300000, "flagged": False}
    return {"state": "running", "turn": "black", "black": black, "white": white}


def test_the_view_says_1_move_left():
    v = display.view(_status({"main_ms": 0, "moves": 1, "period_ms": 4000, "flagged": False}))
    assert v["black_sub"] == "1 move left"
    v = display.view(_status({"main_ms": 5000, "moves": 1, "period_ms": 4000, "flagged": False}))
    assert v["black_sub"] == "then 1 move"
    assert display.view(_status(_status({})["white"]))["white_sub"] == "then 25 moves"


def test_voice_check_of_a_truncated_clip_does_not_call_it_unused(capsys, tmp_path):
    pack = str(tmp_path / "en")
    shutil.copytree(resources.voice_pack("en"), pack)
    clip = os.path.join(pack, "count_3.wav")
    with open(clip, "rb") as f:
        data = f.read()
    with open(clip, "wb") as f:
        f.write(data[: len(data) // 2])  # cut short, as by a copy that stopped
    rc, out, err = run(capsys, "voice", "check", pack)
    assert rc == 2
    assert "problem: bad format: count_3.wav: cut short" in out
    assert "count_3.wav is not used" not in out
    # A file no phrase names is still pointed out.
    shutil.copy(os.path.join(pack, "count_4.wav"), os.path.join(pack, "count_40.wav"))
    rc, out, err = run(capsys, "voice", "check", pack)
    assert "note: count_40.wav is not used by any phrase" in out
