"""Issue 17, item 2: data deleted without a question.

`goclock logs clear` removed every finished game's log at once, exit 0, no prompt, no
check that they were ever pulled; `presets push` with one preset of your own replaced all
ten factory presets without a word. Now `logs clear` lists each game (moves, how it ended,
whether it was pulled), asks in a terminal, needs --yes in a script (exit 2 otherwise), and
refuses a game never pulled to this computer unless --force: "pulled" is a complete,
verified copy taken by `goclock logs pull`, kept in a ledger by the clock's `id` (info).
`presets push` says what it replaces and asks likewise.
"""

import json
import os

import pytest

from conftest import run_micropython
from goclock.cli import build_parser, config, logs
from goclock.records import ledger
from goclockfw.storage import identity
from support.cli import own_home, run  # noqa: F401 (own_home: autouse)
from support.clockline import ClockLine
from support.flashfs import flash_fs
from support.games import play_game
from support.sessions import make_session, reboot

SD = {"type": "sudden_death", "main": 60}


def two_games(line):
    """Two finished games on the clock (ids 1 and 2: 4 and 3 moves, reset after)."""
    play_game(line.clock, SD, [(1000, 0), (2000, 1), (3000, 0), (4000, 1)])
    play_game(line.clock, SD, [(1000, 0), (2000, 1), (3000, 0)])
    return [g["game"] for g in line.session.journal.list()]


def clears(line):
    return [r for r in line.requests if r["cmd"] == "logs.clear"]


# ----- the clock's identity ----------------------------------------------------------


def test_the_clock_has_a_stable_id():
    s = make_session()
    first = s.commands.info()["clock_id"]
    assert len(first) == 16 and int(first, 16) >= 0
    assert (
        reboot(s).commands.info()["clock_id"] == first
    )  # kept in flash: the same after a power cut
    assert make_session().commands.info()["clock_id"] != first  # another clock, another id


def test_a_board_id_is_used_and_a_damaged_file_replaced():
    flash, fs = flash_fs(64)
    assert identity.clock_id(fs, b"\xe6\x61\x4c\x31\x1b\x3b\x5e\x21") == "e6614c311b3b5e21"
    assert fs.read(identity.NAME) is None  # nothing kept: the board has its own
    fs.write_atomic(identity.NAME, b"\xff\xfe not an id")
    made = identity.clock_id(fs)
    assert len(made) == 16 and fs.read(identity.NAME) == made.encode()
    assert identity.clock_id(fs) == made


MPY_ID = """
from support.flashfs import flash_fs
from goclockfw.storage.identity import clock_id
flash, fs = flash_fs(64)
made = clock_id(fs)
print(made, clock_id(fs) == made, fs.read("clock-id") == made.encode(), clock_id(fs, b"\\x0a\\xff"))
"""


def test_the_id_on_micropython(micropython, tmp_path):
    script = tmp_path / "ident.py"
    script.write_text(MPY_ID, encoding="utf-8")
    proc = run_micropython(micropython, str(script))
    assert proc.returncode == 0, proc.stderr.decode()
    made, again, kept, board = proc.stdout.decode().split()
    assert len(made) == 16 and (again, kept, board) == ("True", "True", "0aff")


# ----- logs clear --------------------------------------------------------------------


def test_clear_refuses_games_never_pulled(line, capsys):
    games = two_games(line)
    rc, out, err = run(capsys, "--port", line.path, "logs", "clear", "--yes")
    assert rc == 2 and clears(line) == []
    assert out.splitlines() == [
        "game 1: 4 moves, ended: reset, NOT PULLED (never pulled)",
        "game 2: 3 moves, ended: reset, NOT PULLED (never pulled)",
    ]
    assert err == (
        "goclock: games 1 2 were never pulled to this computer: goclock logs pull --all -o "
        "DIR first (or --force to delete them all the same)\n"
    )
    assert [g["game"] for g in line.session.journal.list()] == games


def test_clear_after_a_pull_asks_in_a_terminal_and_needs_yes_in_scripts(line, capsys, tmp_path):
    two_games(line)
    rc, out, err = run(capsys, "--port", line.path, "logs", "pull", "--all", "-o", str(tmp_path))
    assert rc == 0, err
    rc, out, err = run(capsys, "--port", line.path, "logs", "clear")
    assert rc == 2 and clears(line) == []  # no terminal to ask in
    assert "game 1: 4 moves, ended: reset, pulled to %s" % (tmp_path / "game-00001.log") in out
    assert "2 game logs would be deleted: run goclock logs clear --yes" in err
    asked = []
    args = build_parser().parse_args(["--port", line.path, "logs", "clear"])
    with pytest.raises(Exception, match="nothing deleted"):
        logs.do_clear(args, ask=lambda q: asked.append(q) or False)
    assert asked == ["Delete 2 game logs from the clock?"] and clears(line) == []
    assert logs.do_clear(args, ask=lambda q: True) == 0
    assert [r["game"] for r in clears(line)] == [1, 2]  # one by one, the games listed
    assert line.session.journal.list() == []


def test_a_copy_deleted_since_or_another_clock_is_not_pulled(line, capsys, tmp_path):
    two_games(line)
    run(capsys, "--port", line.path, "logs", "pull", "1", "-o", str(tmp_path))
    os.remove(tmp_path / "game-00001.log")
    rc, out, err = run(capsys, "--port", line.path, "logs", "clear", "1", "--yes")
    assert rc == 2 and "which is gone" in out and clears(line) == []
    # Another clock with a game 1 of its own: its game was never pulled from it.
    with ClockLine() as other:
        play_game(other.clock, SD, [(1000, 0), (2000, 1), (3000, 0), (4000, 1)])
        run(capsys, "--port", line.path, "logs", "pull", "1", "-o", str(tmp_path))
        rc, out, err = run(capsys, "--port", other.path, "logs", "clear", "1", "--yes")
        assert rc == 2 and "NOT PULLED (never pulled)" in out
        rc, out, err = run(capsys, "--port", other.path, "logs", "clear", "--yes", "--force")
        assert rc == 0 and "1 game log removed" in out
    with open(ledger.ledger_path(), encoding="utf-8") as f:
        kept = json.load(f)["clocks"]
    assert list(kept) == [line.session.commands.info()["clock_id"]] and list(
        kept[line.session.commands.info()["clock_id"]]
    ) == ["1"]


def test_the_current_game_is_never_cleared(line, capsys):
    two_games(line)
    line.clock.configure(SD)
    line.clock.start()
    line.clock.run(61000)  # Black lost on time: the game on the clock, ended
    current = line.session.journal.current
    rc, out, err = run(capsys, "--port", line.path, "logs", "clear", str(current), "--force")
    assert rc == 2 and "is the clock's current game" in err


# ----- presets push ------------------------------------------------------------------


def test_presets_push_says_what_it_replaces_and_asks(line, capsys):
    run(capsys, "presets", "add", "club", "byo", "45m+5x30s")
    factory = line.session.commands.get_presets()
    assert len(factory) == 10
    rc, out, err = run(capsys, "--port", line.path, "presets", "push")
    assert rc == 2 and line.session.commands.get_presets() == factory  # nothing replaced
    assert out.startswith("the clock's 10 presets: 1 cn-national (cn 2h/5); 2 cn-local")
    assert "to be replaced by 1: 1 club (byo 45m+5x30s)" in out
    assert (
        "pushing would replace the clock's 10 presets with this one: run goclock presets "
        "push --yes" in err
    )
    args = build_parser().parse_args(["--port", line.path, "presets", "push"])
    asked = []
    with pytest.raises(Exception, match="nothing pushed"):
        config.do_presets_push(args, ask=lambda q: asked.append(q) or False)
    assert asked == ["Replace the clock's 10 presets with this one?"]
    assert config.do_presets_push(args, ask=lambda q: True) == 0
    assert [p["name"] for p in line.session.commands.get_presets()] == ["club"]
    capsys.readouterr()
    rc, out, err = run(capsys, "--port", line.path, "presets", "push")  # nothing to replace
    assert rc == 0 and out == "the clock has this preset already: nothing to replace\n"
