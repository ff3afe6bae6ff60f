"""The goclock command line against the real firmware on a pty (tests/support/clockline.py):
what it sends, what the clock makes of it, what it prints, and one clear line with a
non-zero exit (never a traceback) for every user error."""

import json
import os

import pytest

from goclock import firmware as firmware_build
from goclock import resources
from goclock.cli import build_parser, deploy, device, main
from support.cli import one_line_error, own_home, run  # noqa: F401 (own_home: autouse)
from support.clockline import ClockLine

# Black's main time runs out at 65 s; "30秒" is called 30 s into a 60 s period, at 1:35.
BYO_60 = {"type": "byoyomi", "main": 65, "periods": 5, "period": 60}


def sent(line, cmd):
    """The requests `cmd` the clock received from the host."""
    return [r for r in line.requests if r["cmd"] == cmd]


def test_config_set_by_notation_sends_the_core_json(line, capsys):
    rc, out, err = run(capsys, "--port", line.path, "config", "set", "cn", "1h/5", "--volume", "5")
    assert rc == 0, err
    assert sent(line, "config.set")[0]["config"] == {
        "time_control": {
            "type": "byoyomi",
            "main": 3300,
            "periods": 5,
            "period": 60,
            "calls": "cn",
        },
        "volume": 5,
    }
    assert "cn 1h/5" in out
    stored = line.session.store.config
    assert stored["volume"] == 5 and stored["time_control"]["main"] == 3300


def test_config_set_from_sgf_and_file(line, capsys, tmp_path):
    sgf = tmp_path / "g.sgf"
    sgf.write_text("(;GM[1]FF[4]SZ[19]TM[1500]OT[25/300 Canadian];B[pd])")
    rc, out, err = run(capsys, "--port", line.path, "config", "set", "--from-sgf", str(sgf))
    assert rc == 0, err
    assert line.session.store.config["time_control"]["moves"] == 25
    tc = tmp_path / "tc.json"
    tc.write_text(json.dumps({"type": "fischer", "main": 300, "increment": 5}))
    rc, out, err = run(capsys, "--port", line.path, "config", "set", "--file", str(tc))
    assert rc == 0 and line.session.store.config["time_control"]["increment"] == 5


def test_config_show_json(line, capsys):
    rc, out, err = run(capsys, "--port", line.path, "--json", "config", "show")
    assert json.loads(out) == line.session.store.config
    rc, out, err = run(capsys, "config", "show", "--port", line.path)
    assert "cn 2h/5" in out  # the factory setting: 2 h in all, the last 5 minutes byo-yomi


def test_bad_notation_is_one_line(line, capsys):
    rc, out, err = run(capsys, "--port", line.path, "config", "set", "byo", "1h+5x30")
    one_line_error(rc, err, "'30' is not a duration")
    assert not sent(line, "config.set")


def test_refused_while_running(line, capsys):
    run(capsys, "--port", line.path, "press", "white")  # starts the game
    assert line.session.clock.state == "running"
    rc, out, err = run(
        capsys, "--port", line.path, "time", "set", "black", "25:00", "--periods", "3"
    )
    one_line_error(rc, err, "time can only be set while the clocks are paused")
    rc, out, err = run(capsys, "--port", line.path, "pause")
    assert rc == 0 and "paused" in out
    rc, out, err = run(
        capsys, "--port", line.path, "time", "set", "black", "25:00", "--periods", "3"
    )
    assert rc == 0, err
    assert dict(line.requests[-1], id=None) == {
        "id": None,
        "cmd": "time.set",
        "side": "black",
        "main": 1500,
        "periods": 3,
    }
    assert "25:00  3 × 1:00" in out
    black = line.session.commands.status()["black"]
    assert black["main_ms"] == 1500000 and black["periods"] == 3


def test_time_set_needs_something(line, capsys):
    rc, out, err = run(capsys, "--port", line.path, "time", "set", "white")
    one_line_error(rc, err, "say what to set")
    assert not sent(line, "time.set")


def test_reset_to_a_preset_by_name(line, capsys):
    rc, out, err = run(
        capsys, "--port", line.path, "presets", "push", "cn-national", "fast", "--yes"
    )
    assert rc == 0, err
    assert [p["name"] for p in line.session.commands.get_presets()] == ["cn-national", "fast"]
    rc, out, err = run(capsys, "--port", line.path, "reset", "--preset", "fast")
    assert rc == 0 and "byo 30m+3x30s" in out
    assert line.requests[-1]["preset"] == 2  # numbered from 1
    assert line.session.tc.to_json()["main"] == 1800
    rc, out, err = run(capsys, "--port", line.path, "reset", "--preset", "nope")
    one_line_error(rc, err, "the clock has no preset 'nope'")


def test_user_presets(line, capsys):
    rc, out, err = run(
        capsys, "presets", "add", "club", "byo", "45m+5x30s", "--about", "Tuesday club"
    )
    assert rc == 0, err
    rc, out, err = run(capsys, "--json", "presets", "list")
    mine = [p for p in json.loads(out) if p["origin"] == "yours"]
    assert mine[0]["time_control"]["main"] == 2700
    rc, out, err = run(capsys, "--port", line.path, "presets", "push", "--yes")  # yours by default
    assert [p["name"] for p in line.session.commands.get_presets()] == ["club"]
    rc, out, err = run(capsys, "--port", line.path, "config", "set", "--preset", "club")
    assert rc == 0 and line.session.store.config["time_control"]["periods"] == 5
    assert line.session.store.config["time_control"]["main"] == 2700
    rc, out, err = run(capsys, "presets", "remove", "club")
    rc, out, err = run(capsys, "presets", "remove", "club")
    one_line_error(rc, err, "you have no preset named 'club'")


@pytest.mark.parametrize(
    "entry",
    [{"name": "club"}, {"name": 5, "time_control": {}}, {"name": "x", "time_control": "sd"}],
)
def test_damaged_user_presets_file_is_one_line(capsys, entry):
    home = os.environ["GOCLOCK_HOME"]
    os.makedirs(home)
    with open(os.path.join(home, "presets.json"), "w", encoding="utf-8") as f:
        json.dump([entry], f)
    for argv in (["presets", "list"], ["config", "set", "--preset", "club", "--dry-run"]):
        rc, out, err = run(capsys, *argv)
        one_line_error(rc, err, "presets.json is damaged: preset 1")


def test_every_builtin_preset_fits_one_request(line, capsys):
    # The clock comes with the built-ins as its factory presets: replace them first, so that
    # what it holds afterwards is what the push sent.
    line.clock.ask("presets.set", presets=[{"name": "x", "time_control": {"type": "untimed"}}])
    rc, out, err = run(capsys, "--port", line.path, "presets", "push", "--yes")
    assert rc == 0, err
    (push,) = sent(line, "presets.set")
    names = [p["name"] for p in line.session.commands.get_presets()]
    assert names == [p["name"] for p in push["presets"]] and len(names) >= 8


def test_too_many_presets(capsys):
    for i in range(11):
        run(capsys, "presets", "add", "p%d" % i, "sd", "%dm" % (i + 1))
    rc, out, err = run(capsys, "--port", "/dev/null", "presets", "push")
    one_line_error(rc, err, "at most 10 presets")


@pytest.mark.parametrize(
    "mode,text",
    [("silent", "did not answer info"), ("garbage", "does not speak the goclock protocol")],
)
def test_device_errors_are_one_line(line, capsys, mode, text):
    line.faults.mode = mode
    rc, out, err = run(capsys, "--port", line.path, "--timeout", "0.3", "status")
    one_line_error(rc, err, text)


def test_wrong_firmware_version(line, capsys):
    line.faults.info = {"protocol": 7}
    rc, out, err = run(capsys, "--port", line.path, "status")
    one_line_error(rc, err, "speaking protocol 7")
    assert not sent(line, "status")  # refused before anything else was asked


def test_no_device_and_busy_device(line, capsys, monkeypatch):
    rc, out, err = run(capsys, "--port", "/dev/does-not-exist", "info")
    one_line_error(rc, err, "no such serial device")
    monkeypatch.setattr("serial.tools.list_ports.comports", lambda: [])
    rc, out, err = run(capsys, "info")
    one_line_error(rc, err, "no goclock found")
    from goclock.link.transport import SerialTransport

    holder = SerialTransport(line.path)
    try:
        rc, out, err = run(capsys, "--port", line.path, "info")
        one_line_error(rc, err, "is busy")
    finally:
        holder.close()


class Port:
    def __init__(self, device):
        self.device = device
        self.description = "USB serial"


def test_ports_and_autodetect(capsys, monkeypatch):
    clocks = [ClockLine(), ClockLine()]
    silent = ClockLine()
    silent.faults.mode = "silent"
    try:
        ports = [Port(c.path) for c in clocks + [silent]]
        monkeypatch.setattr("serial.tools.list_ports.comports", lambda: ports)
        rc, out, err = run(capsys, "--json", "ports")
        found = {p["port"]: p for p in json.loads(out)}
        assert found[clocks[0].path]["info"]["board"] == "test"
        assert found[clocks[1].path]["info"]["protocol"] == 3
        assert found[silent.path]["info"] is None
        rc, out, err = run(capsys, "status")
        one_line_error(rc, err, "several goclocks found")
        ports.pop(0)
        rc, out, err = run(capsys, "--json", "info")
        assert rc == 0 and json.loads(out)["board"] == "test"
    finally:
        for c in clocks + [silent]:
            c.close()


def game_at(line, t, ms_per_request):
    """A game of BYO_60 whose clock has run to `t`; then `ms_per_request` of it runs after
    each request answered (watch runs no faster than the host asks)."""
    line.clock.configure(BYO_60)
    line.clock.start()
    line.clock.run(t)
    line.ms_per_request = ms_per_request


def test_watch_prints_events_and_leaves_on_ctrl_c(line, capsys):
    # info 1:30, status 1:32, watch 1:34: "30秒" at 1:35 is said while watched.
    game_at(line, 90000, 2000)
    args = build_parser().parse_args(["--port", line.path, "watch", "--seconds", "100"])
    calls = {"n": 0}

    def now():
        calls["n"] += 1
        if calls["n"] > 8:
            raise KeyboardInterrupt  # the user presses Ctrl-C
        return 0.0

    assert device.do_watch(args, now=now) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("running, black to move, 0 moves played  |  black 0:00  5 × 0:33")
    assert out[1:4] == [
        "running, black to move, 0 moves played  |  black 0:00  5 × 0:31  |  white 1:05  5 × 1:00",
        "1:35  Black: “30秒”",
        "running, black to move, 0 moves played  |  black 0:00  5 × 0:30  |  white 1:05  5 × 1:00",
    ]
    assert line.requests[-1]["cmd"] == "watch" and line.requests[-1]["on"] is False
    assert not line.session.protocol.watching


def test_watch_json_lines(line, capsys):
    game_at(line, 90000, 2000)
    rc, out, err = run(capsys, "--port", line.path, "--json", "watch", "--seconds", "0.3")
    lines = [json.loads(x) for x in out.splitlines()]
    assert rc == 0 and lines[0]["event"] == "status" and lines[0]["black"]["period_ms"] == 33000
    # then every event the clock sent while watched, as it sent it
    assert lines[1:] == line.events()
    assert {"event": "call", "t": 95000, "side": "black", "phrase": "30秒"} in lines


def test_group_without_command_shows_help(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["logs"])
    assert exc.value.code == 0
    assert "pull" in capsys.readouterr().out


class FakeBoard:
    """A board's file system as deploy sees it through mpremote: put, mkdir, walk, remove."""

    def __init__(self, port, present=()):
        self.port = port
        self.files = {p: b"old" for p in present}
        self.dirs = []
        self.removed = []
        self.restarted = False

    def mkdir(self, path):
        self.dirs.append(path)

    def walk(self, path):
        return [p for p in sorted(self.files) if p.startswith(path.rstrip("/") + "/")]

    def put(self, local, remote, progress=None):
        with open(local, "rb") as f:
            self.files[remote] = f.read()
        if progress:
            progress(len(self.files[remote]), len(self.files[remote]))

    def remove_stale(self, plan):
        gone = firmware_build.stale(sorted(self.files), plan)
        for path in gone:
            del self.files[path]
            self.removed.append(path)
        return gone

    def restart(self):
        self.restarted = True


@pytest.fixture
def firmware(tmp_path, monkeypatch):
    """A small stand-in for the goclockfw package: what deploy compiles and copies."""
    src = tmp_path / "goclockfw"
    for rel, text in {
        "__init__.py": "VERSION = '9'\n",
        "core/clockcore.py": "def run():\n    return 1\n",
        "board/rp2board.py": "X = 1\n",
        "board/esp32board.py": "X = 2\n",
        "desktop/board.py": "print('desktop only')\n",
        "scenario/runner.py": "print('desktop only')\n",
    }.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text)
    monkeypatch.setattr(resources, "firmware_dir", lambda: str(src))
    return src


def _deploy(args, present=(), install_driver=lambda port: (True, None)):
    boards = []
    rc = deploy.do_deploy(
        args,
        open_board=lambda port: boards.append(FakeBoard(port, present)) or boards[-1],
        install_driver=install_driver,
    )
    return rc, boards[0]


def test_deploy_compiles_the_package_into_lib(line, firmware, capsys):
    args = build_parser().parse_args(
        ["--port", line.path, "deploy", "--board", "pico", "--voice", "none"]
    )
    rc, board = _deploy(args)
    assert rc == 0
    assert sorted(board.files) == [
        "/board.json",
        "/lib/goclockfw/__init__.mpy",
        "/lib/goclockfw/board/rp2board.mpy",
        "/lib/goclockfw/build.sha256",
        "/lib/goclockfw/core/clockcore.mpy",
        "/main.py",
    ]
    assert board.files["/lib/goclockfw/core/clockcore.mpy"][:1] == b"M"  # .mpy, not source
    # the package's hash, which the board compares with its ROMFS partition's, comes last
    lib = [path for path in board.files if path.startswith("/lib/")]
    assert lib[-1] == "/lib/goclockfw/build.sha256"
    assert len(board.files[lib[-1]].strip()) == 64
    assert b"from goclockfw.boot import run" in board.files["/main.py"]
    assert json.loads(board.files["/board.json"])["family"] == "rp2"
    assert board.restarted


def test_deploy_removes_what_an_older_deploy_left(line, firmware, capsys):
    old = [
        "/app.mpy",  # the flat layout before the package
        "/gameclock.py",
        "/lib/goclockfw/core/clockcore.py",  # a .py beside the new .mpy would win the import
        "/lib/goclockfw/core/gone.mpy",  # a module that no longer exists
        "/config.json",
        "/logs/00001.log",
        "/sounds/zh/count_1.wav",
        "/lib/ssd1306.mpy",
        "/boot.py",
    ]
    args = build_parser().parse_args(
        ["--port", line.path, "deploy", "--board", "esp32-devkitc", "--voice", "none"]
    )
    rc, board = _deploy(args, present=old)
    assert rc == 0
    assert sorted(board.removed) == [
        "/app.mpy",
        "/gameclock.py",
        "/lib/goclockfw/core/clockcore.py",
        "/lib/goclockfw/core/gone.mpy",
    ]
    kept = ("/config.json", "/logs/00001.log", "/sounds/zh/count_1.wav", "/lib/ssd1306.mpy")
    assert all(p in board.files for p in kept + ("/boot.py",))
    assert "/lib/goclockfw/board/esp32board.mpy" in board.files
    assert "/lib/goclockfw/board/rp2board.mpy" not in board.files


def test_deploy_refuses_while_a_game_runs(line, firmware, capsys):
    line.clock.start()
    line.clock.run(5000)
    game = line.session.journal.current
    assert line.clock.board.kbd is False  # no Ctrl-C on the REPL while a game is on
    opened = []
    args = build_parser().parse_args(
        ["--port", line.path, "deploy", "--board", "esp32-devkitc", "--voice", "none"]
    )
    with pytest.raises(Exception) as err:
        deploy.do_deploy(args, open_board=opened.append)
    assert "a game is on the clock" in str(err.value) and not opened
    assert line.session.clock.state == "running"
    forced = build_parser().parse_args(
        ["--port", line.path, "deploy", "--board", "esp32-devkitc", "--voice", "none", "--force"]
    )
    assert not sent(line, "maintenance")
    assert _deploy(forced)[0] == 0
    # forced: the clock is asked to end the game first, so its REPL can be had at all
    assert [r["cmd"] for r in line.requests][-2:] == ["status", "maintenance"]
    assert line.sent[-1]["ended"] == game and line.session.clock.state == "idle"
    assert line.clock.board.kbd is True


def test_deploy_with_voice_pack(line, firmware, capsys):
    args = build_parser().parse_args(["--port", line.path, "deploy", "--board", "pico"])
    rc, board = _deploy(args)
    assert rc == 0
    assert "/sounds/zh/manifest.json" in board.files
    assert "/sounds" in board.dirs


def test_deploy_dry_run_and_unknown_names(firmware, capsys):
    rc, out, err = run(capsys, "deploy", "--board", "pico", "--dry-run", "--voice", "none")
    assert rc == 0 and "-> :/lib/goclockfw/core/clockcore.mpy" in out
    assert "simulate" not in out and "desktop" not in out
    rc, out, err = run(capsys, "deploy", "--board", "pico", "--dry-run", "--voice", "xx")
    one_line_error(rc, err, "no voice pack 'xx'")
    assert rc == 2


def test_voice_check(capsys):
    sounds = os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "sounds", "zh"
    )
    rc, out, err = run(capsys, "voice", "check", sounds)
    assert rc == 0 and out.strip().endswith("ok")
