"""What `goclock logs pull` says when there is nothing new, and on Ctrl-C (issue 17 item
9): against the real firmware on a pty, holding a finished game."""

import os

import pytest

from goclock.records import pull
from support.cli import own_home, run  # noqa: F401 (own_home: autouse)
from support.games import play_game

TC = {"type": "byoyomi", "main": 60, "periods": 3, "period": 30}
PRESSES = [(4000 + 3000 * i, i % 2) for i in range(20)]


@pytest.fixture
def game(line):
    return play_game(line.clock, TC, PRESSES)


def goclock(line, capsys, *argv):
    return run(capsys, "--port", line.path, *argv)


def test_a_re_pull_of_a_complete_log_says_it_is_already_complete(line, game, capsys, tmp_path):
    out_dir = str(tmp_path)
    rc, out, err = goclock(line, capsys, "logs", "pull", str(game), "-o", out_dir)
    assert rc == 0, err
    assert "resumed" not in out and "already complete" not in out
    rc, out, err = goclock(line, capsys, "logs", "pull", str(game), "-o", out_dir)
    assert rc == 0, err
    assert "(already complete: nothing new since the last pull)" in out
    assert "resumed at byte" not in out
    with open(pull.log_path(out_dir, game), "rb") as f:
        assert f.read() == line.clock.log(game)


def test_ctrl_c_in_a_pull_says_the_part_is_kept_and_how_to_resume(
    line, game, capsys, tmp_path, monkeypatch
):
    out_dir = str(tmp_path)
    real_fetch = pull.fetch
    calls = []

    def fetch_then_ctrl_c(client, g, offset):
        calls.append(offset)
        if len(calls) == 3:  # two chunks are in the .part: the user presses Ctrl-C
            raise KeyboardInterrupt
        return real_fetch(client, g, offset)

    monkeypatch.setattr(pull, "fetch", fetch_then_ctrl_c)
    rc, out, err = goclock(line, capsys, "logs", "pull", str(game), "-o", out_dir)
    part = pull.log_path(out_dir, game) + ".part"
    assert rc == 130
    assert err == (
        "goclock: interrupted: the 1024 bytes of game %d pulled so far are kept in %s: run "
        "the same command again to resume\n" % (game, part)
    )
    assert os.path.getsize(part) == 1024
    monkeypatch.setattr(pull, "fetch", real_fetch)
    rc, out, err = goclock(line, capsys, "logs", "pull", str(game), "-o", out_dir)
    assert rc == 0, err
    assert "(resumed at byte 1024: " in out and "intact" in out
    assert not os.path.exists(part)
    with open(pull.log_path(out_dir, game), "rb") as f:
        assert f.read() == line.clock.log(game)
