"""The exit status of every goclock command: 0 ok, 1 device or I/O error, 2 bad usage or
input, 3 no clock found (host/goclock/errors.py, `goclock --help`, the README).

One table of cases, each a command line, the clock it meets and the status it must end
with. The clocks: the real firmware on a pty (tests/support/clockline.py: idle, paused,
running, a side marked late, holding a game log, or one whose flash altered that log), one
that never answers, none at all (no serial port answers as a goclock), and a port that does
not exist. A test checks that the table has every command of the parser, each with the
statuses it can give.
"""

import argparse
import json
import os
import pathlib

import pytest
from sgfmill import sgf

from conftest import REPO, SCENARIOS
from goclock.cli import build_parser, main
from support.clockline import ClockLine
from support.games import game_log, play_game
from support.recordings import record_pack

TC = {"type": "byoyomi", "main": 60, "periods": 3, "period": 30}
PRESSES = [(10000, 0), (20000, 1), (30000, 0), (40000, 1)]

# (command line, clock, exit status). In the command line: PORT is the clock's port
# (absent for the clocks "none" and "missing", which add their own), LOG a good pulled log,
# ALTERED one with a changed record, DIR an empty directory, SGF a game record.
CASES = [
    ("ports", "none", 0),
    ("info", "idle", 0),
    ("info", "silent", 1),
    ("info", "none", 3),
    ("info", "missing", 3),
    ("info extra", "idle", 2),
    ("status", "idle", 0),
    ("status", "silent", 1),
    ("status", "none", 3),
    ("status", "missing", 3),
    ("status --timeout soon", "idle", 2),
    ("watch --seconds 0.05", "idle", 0),
    ("watch --seconds 0.05", "silent", 1),
    ("watch --seconds 0.05", "none", 3),
    ("watch --seconds -x", "idle", 2),
    ("config show", "idle", 0),
    ("config show", "silent", 1),
    ("config show", "none", 3),
    ("config show extra", "idle", 2),
    ("config set --volume 5", "idle", 0),
    ("config set --volume 11", "idle", 2),
    ("config set --voice xx", "idle", 2),
    ("config set byo 1h+5x30", "idle", 2),
    ("config set --file DIR/none.json", "idle", 2),
    ("config set", "idle", 2),
    ("config set --volume 3", "running", 2),  # the clock refuses while a clock runs
    ("config set --volume 3", "silent", 1),
    ("config set sd 30m", "none", 3),
    ("presets list", "none", 0),
    ("presets list --device", "idle", 0),
    ("presets list --device", "silent", 1),
    ("presets list --device", "none", 3),
    ("presets list --devices", "none", 2),
    ("presets add club sd 30m", "none", 0),
    ("presets add club nonsense", "none", 2),
    ("presets add a/b sd 30m", "none", 2),
    ("presets remove mine", "none", 0),
    ("presets remove nosuch", "none", 2),
    ("presets push --yes", "idle", 0),
    ("presets push", "idle", 2),  # it would replace the clock's presets: --yes in scripts
    ("presets push nosuch", "idle", 2),
    ("presets push", "silent", 1),
    ("presets push", "none", 3),
    ("pause", "running", 0),
    ("pause", "idle", 2),
    ("pause", "silent", 1),
    ("pause", "none", 3),
    ("resume", "paused", 0),
    ("resume", "idle", 2),
    ("resume", "silent", 1),
    ("resume", "none", 3),
    ("reset", "idle", 0),
    ("reset --yes", "paused", 0),
    ("reset", "paused", 2),
    ("reset --preset 11", "idle", 2),  # the clock has its 10 factory presets
    ("reset", "silent", 1),
    ("reset", "none", 3),
    ("press white", "idle", 0),
    ("press red", "idle", 2),
    ("press white", "silent", 1),
    ("press white", "none", 3),
    ("late black", "idle", 0),
    ("late black", "running", 2),
    ("late black", "silent", 1),
    ("late black", "none", 3),
    ("arrive black", "idle", 2),
    ("arrive black", "late", 0),
    ("arrive black", "silent", 1),
    ("arrive black", "none", 3),
    ("time set black 25:00", "paused", 0),
    ("time set black --periods -2", "paused", 2),
    ("time set black --moves x", "paused", 2),
    ("time set white", "paused", 2),
    ("time set black 25:00", "running", 2),
    ("time set black 25:00", "silent", 1),
    ("time set black 25:00", "none", 3),
    ("logs list", "idle", 0),
    ("logs list", "silent", 1),
    ("logs list", "none", 3),
    ("logs list 3", "idle", 2),
    ("logs pull -o DIR", "logs", 0),
    ("logs pull 99 -o DIR", "logs", 2),
    ("logs pull -o DIR", "idle", 2),  # no game logs on the clock
    ("logs pull -o DIR", "silent", 1),
    ("logs pull -o DIR", "none", 3),
    ("logs pull -o DIR", "altered", 1),  # the clock's own copy is damaged
    ("logs verify LOG", "none", 0),
    ("logs verify ALTERED", "none", 2),
    ("logs verify DIR/none.log", "none", 2),
    ("logs export LOG", "none", 0),
    ("logs export nosuch", "none", 2),
    ("logs export LOG -o DIR/no/such/dir/x.json", "none", 1),
    ("logs export 1", "logs", 0),
    ("logs export 1", "silent", 1),
    ("logs export 1", "none", 3),
    ("logs sgf LOG --merge SGF -o DIR/out.sgf", "none", 0),
    ("logs sgf LOG --merge DIR/none.sgf -o DIR/out.sgf", "none", 2),
    ("logs sgf LOG --merge SGF -o DIR/no/such/dir/out.sgf", "none", 1),  # cannot write
    ("logs sgf 1 --merge SGF -o DIR/out.sgf", "silent", 1),
    ("logs sgf 1 --merge SGF -o DIR/out.sgf", "none", 3),
    ("logs report LOG", "none", 0),
    ("logs report nosuch", "none", 2),
    ("logs report 1", "silent", 1),
    ("logs report 1", "none", 3),
    ("logs clear --yes --force", "logs", 0),
    ("logs clear --yes", "logs", 2),  # game 1 was never pulled
    ("logs clear --force", "logs", 2),  # no terminal to ask in: --yes
    ("logs clear x", "logs", 2),
    ("logs clear", "silent", 1),
    ("logs clear", "none", 3),
    ("deploy --board pico --dry-run --voice none", "none", 0),
    ("deploy --board nosuch", "none", 2),
    ("deploy --board pico --dry-run --voice xx", "none", 2),
    ("deploy --board pico --voice none", "none", 3),
    ("voice check ZH", "none", 0),
    ("voice check DIR", "none", 2),
    ("voice check DIR/none", "none", 2),
    ("voice push ZH", "none", 3),
    ("voice phrases --like en", "none", 0),
    ("voice phrases --like nosuch", "none", 2),
    ("voice convert RECS DIR/pack", "none", 0),
    ("voice convert DIR DIR/pack", "none", 2),  # no recordings in it
    ("voice convert RECS LOG/pack", "none", 1),  # cannot write: LOG is a file
    ("voice push", "none", 2),
    ("bridge", "none", 3),
    ("bridge", "missing", 3),
    ("bridge --web-port 70000", "idle", 2),
    ("bridge --hall club", "idle", 2),  # a hall needs the clock's name in it
    ("bridge --web --web-host BEYOND", "idle", 2),  # beyond loopback only with a password
    ("hall", "none", 2),  # which hall?
    ("hall --hall Club", "none", 2),  # not a hall name: a-z 0-9 _ -
    ("hall --hall club --broker 127.0.0.1:1 --connect-timeout 0.3", "none", 1),  # no broker
    ("hall assign DIR/none.xml --round 1 --hall club", "none", 2),
    ("hall assign LOG --round 1 --hall club", "none", 2),  # not XML
    ("hall result 1 B+R --round 1 --hall club --folder DIR", "none", 2),  # never assigned
    ("hall result 1 B+X --round 1 --hall club --folder DIR", "none", 2),  # not an SGF RE
    ("hall results --round 1 --hall club --folder DIR", "none", 2),
    ("hall setup --hall club --tables 2 --out DIR/broker", "none", 0),
    ("hall setup --hall club --out DIR/broker", "none", 2),  # no clocks
    ("hall setup --hall club --clocks Table-1 --out DIR/broker", "none", 2),
    ("result 1 B+X", "idle", 2),
    ("result 1 B+R", "idle", 2),  # no game 1 on it yet
    ("result 1 B+R", "silent", 1),
    ("result 1 B+R", "none", 3),
    ("web --port 70000", "none", 2),
    ("web --dist DIR", "none", 2),  # no built app there
    ("simulate SCENARIO", "none", 0),
    ("simulate DIR/none.json", "none", 2),
    ("simulate BADSCENARIO", "none", 2),
]

# What no case here can show, and why (each is tested elsewhere or cannot fail that way).
NOT_HERE = {
    ("ports", 1): "listing ports never fails: a port that does not answer is listed as such",
    ("ports", 2): "takes no input",
    ("ports", 3): "no clock is an answer, not an error",
    ("presets list", 1): "only --device talks to the clock (its cases are here)",
    ("deploy", 0): "copying needs a board: test_host_cli.py uses a fake board",
    ("deploy", 1): "copying needs a board (mpremote): test_host_cli.py",
    ("voice push", 0): "copying needs a board",
    ("voice push", 1): "copying needs a board (mpremote)",
    ("bridge", 0): "runs until stopped: tests/test_bridge_hall.py runs it as a process",
    ("bridge", 1): "a port another bridge owns: tests/test_bridge.py",
    ("hall", 0): "runs until stopped: tests/test_hall_view.py runs it as a process",
    ("hall", 3): "talks to a broker, never to a clock's port",
    ("hall assign", 0): "needs a broker and clocks: tests/test_hall_results.py",
    ("hall assign", 1): "clocks that do not take it: tests/test_hall_results.py",
    ("hall assign", 3): "talks to a broker, never to a clock's port",
    ("hall result", 0): "needs an assigned round: tests/test_hall_results.py",
    ("hall results", 0): "needs an assigned round: tests/test_hall_results.py",
    ("result", 0): "a game on the clock: tests/test_hall_results.py",
    ("web", 0): "runs until stopped: tests/web/test_configurator.py runs `goclock web --sim`",
    ("web", 1): "a web port another program has: tests/test_web_command.py",
    ("web", 3): "no clock found serves the pages alone (bridge.json says why); a given port "
    "that is missing: tests/test_web_command.py",
}
LOCAL = {
    "presets add",
    "presets remove",
    "logs verify",
    "voice check",
    "voice convert",
    "voice phrases",
    "simulate",
    "hall result",
    "hall results",
    "hall setup",
}


def commands(parser=None, prefix=""):
    """Every leaf command of the parser, as 'logs pull'."""
    parser = parser or build_parser()
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                leaves = commands(sub, prefix + name + " ")
                if not leaves or sub.get_default("handler"):  # `goclock hall` runs by itself
                    leaves.append(prefix + name)
                found += leaves
    return found


COMMANDS = commands()


def command_of(line):
    words = line.split()
    two = " ".join(words[:2])
    return two if two in COMMANDS else words[0]


def test_every_command_has_its_statuses():
    covered = {}
    for line, _, rc in CASES:
        covered.setdefault(command_of(line), set()).add(rc)
    assert set(covered) == set(COMMANDS)
    for cmd, rcs in covered.items():
        wanted = {0, 2} if cmd in LOCAL else {0, 1, 2, 3}
        missing = {rc for rc in wanted - rcs if (cmd, rc) not in NOT_HERE}
        assert not missing, (cmd, missing)


@pytest.fixture
def files(tmp_path):
    _, data = game_log(TC, PRESSES)
    log = tmp_path / "game.log"
    log.write_bytes(data)
    altered = tmp_path / "altered.log"
    altered.write_bytes(data.replace(b'"used_ms":10000', b'"used_ms":9000'))
    game = sgf.Sgf_game(19)
    node = game.get_root()
    for i in range(len(PRESSES)):
        node = node.new_child()
        node.set_move("bw"[i % 2], (i, i))
    record = tmp_path / "game.sgf"
    record.write_bytes(game.serialise())
    bad = tmp_path / "bad_scenario.json"
    bad.write_text(json.dumps({"time_control": {"type": "nonsense"}, "events": []}))
    empty = tmp_path / "empty"
    empty.mkdir()
    return {
        "LOG": str(log),
        "ALTERED": str(altered),
        "SGF": str(record),
        "DIR": str(empty),
        "ZH": os.path.join(REPO, "sounds", "zh"),
        "SCENARIO": os.path.join(SCENARIOS, "byoyomi_cn_60.json"),
        "BADSCENARIO": str(bad),
    }


@pytest.fixture(autouse=True)
def own_home(tmp_path, monkeypatch):
    # deploy compiles a two-module stand-in for the firmware, not the whole of it
    fw = tmp_path / "fw" / "goclockfw"
    (fw / "core").mkdir(parents=True)
    (fw / "__init__.py").write_text("VERSION = '9'\n")
    (fw / "core" / "clock.py").write_text("X = 1\n")
    monkeypatch.setattr("goclock.resources.firmware_dir", lambda: str(fw))
    home = tmp_path / "home"
    home.mkdir()
    (home / "presets.json").write_text(
        json.dumps([{"name": "mine", "notation": "sd 1h", "time_control": TC}])
    )
    monkeypatch.setenv("GOCLOCK_HOME", str(home))
    monkeypatch.delenv("GOCLOCK_PORT", raising=False)
    monkeypatch.setattr("serial.tools.list_ports.comports", lambda: [])


def clock_for(kind):
    """The clock a case meets, set up on the table as a player or arbiter would."""
    if kind in ("none", "missing"):
        return None
    line = ClockLine()
    clock = line.clock
    if kind == "silent":
        line.faults.mode = "silent"
    elif kind in ("running", "paused"):  # three moves made, White to move
        clock.start()
        clock.play([(1000, "black"), (2000, "white"), (3000, "black")])
        if kind == "paused":
            clock.ask("pause")
    elif kind == "late":
        clock.ask("late", side="black")
    elif kind in ("logs", "altered"):
        assert play_game(clock, TC, PRESSES) == 1
        if kind == "altered":  # the clock's own copy changed in its flash
            assert clock.damage_flash(b'"used_ms":10000', b'"used_ms":10001') == 4
    return line


@pytest.mark.parametrize("line, kind, rc", CASES, ids=["%s/%s" % c[:2] for c in CASES])
def test_exit_status(files, capsys, monkeypatch, line, kind, rc):
    if "BEYOND" in line:  # an address beyond loopback, named by 127.0.0.1 taken for one
        from goclock.bridge import websocket

        monkeypatch.setattr(websocket, "is_loopback", lambda host: False)
        line = line.replace("BEYOND", "127.0.0.1")
    if "RECS" in line:  # a folder of recordings for `voice convert`, made only when needed
        files["RECS"] = os.path.join(os.path.dirname(files["DIR"]), "recs")
        record_pack(pathlib.Path(files["RECS"]), "en")
    argv = []
    for word in line.split():
        for key in ("LOG", "ALTERED", "SGF", "DIR", "ZH", "BADSCENARIO", "SCENARIO", "RECS"):
            if key in files:
                word = word.replace(key, files[key])
        argv.append(word)
    clock = clock_for(kind)
    if clock is not None:
        argv = ["--port", clock.path] + argv
        if kind == "silent":
            argv = ["--timeout", "0.1"] + argv
    elif kind == "missing":
        argv = ["--port", "/dev/does-not-exist"] + argv
    try:
        try:
            got = main(argv)
        except SystemExit as exc:  # argparse's own errors
            got = exc.code
    finally:
        if clock is not None:
            clock.close()
    out, err = capsys.readouterr()
    assert got == rc, (line, kind, out[-300:], err)
    if rc:
        assert "Traceback" not in err and err.strip(), err
