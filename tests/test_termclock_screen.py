"""The terminal clock's face (`make sim`, tools/termclock) and its serial line's stable name
(issue 17 item 9): what it shows for the lines the desktop board prints, one game at a
time; the preset menu with the preset's time control; `sim-flash/serial`."""

import io
import json
import os

from rich.console import Console

from goclock.cli import main
from goclock.unixport import Firmware
from tools.termclock import port
from tools.termclock.screen import Screen


class Quiet:
    command = None

    def play(self, path):
        pass

    def stop(self):
        pass


def shown(screen):
    console = Console(file=io.StringIO(), width=140, color_system=None)
    console.print(screen.render(Quiet()))
    return console.file.getvalue()


def view(state, note="", detail=""):
    side = {"black": "0:10", "white": "0:10", "black_sub": "", "white_sub": ""}
    return {"view": dict(side, turn="black", state=state, note=note, detail=detail)}


def feed(screen, *lines):
    for line in lines:
        screen.take(line, Quiet())


def test_the_power_loss_notice_and_the_calls_go_with_their_game():
    s = Screen("/x/sim-flash/serial")
    feed(
        s,
        {"notice": "power_resume", "message": "power loss: the game resumed, paused"},
        view("paused", "PAUSED"),
        view("running"),
        {"say": "30秒", "t": 95000},
        view("ended", "BLACK FLAG"),
    )
    text = shown(s)
    assert "power loss: the game resumed" in text and "30秒" in text
    feed(s, {"say": "重新开局", "t": 0}, view("idle", "White starts"))  # a reset: a new game
    text = shown(s)
    assert "power loss" not in text and "30秒" not in text
    assert "重新开局" in text  # said with the reset itself: it belongs to the new game
    feed(s, view("running"), {"say": "1", "t": 51000})
    assert "the clock said:  0:51  1   |   0:00  重新开局" in shown(s)


def test_the_first_view_after_boot_keeps_what_the_boot_said():
    s = Screen("p")
    feed(s, {"notice": "config", "message": "config damaged: defaults"}, view("idle", "x"))
    assert "config damaged" in shown(s)


def test_the_preset_menu_shows_the_preset_s_time_control():
    s = Screen("p")
    feed(s, view("idle", "preset 3 fast", "byo 30m+3x30s"))
    assert "PRESET 3 FAST   byo 30m+3x30s" in shown(s)
    feed(s, view("idle", "White starts"))
    assert "byo 30m+3x30s" not in shown(s)


def test_the_menu_detail_comes_from_the_firmware_under_the_unix_port(tmp_path):
    fw = Firmware(str(tmp_path), virtual=True, env={"GOCLOCK_VIEW": "1"})
    try:
        fw.wait(0)
        out = []
        for keys, ms in (
            ("!down arbiter\n", 300),
            ("!down left\n", 100),  # the arbiter key held, Black's button: the menu
            ("!up left\n", 300),
            ("!up arbiter\n", 500),
            ("a", 500),  # the next preset
        ):
            fw.keys(keys)
            out += fw.wait(ms)
        views = [x["view"] for x in out if "view" in x]
        menu = [(v["note"], v["detail"]) for v in views if v["detail"]]
        assert menu == [("preset 1 cn-national", "cn 2h/5"), ("preset 2 cn-local", "cn 1h/1")]
    finally:
        fw.stop()


def test_the_serial_line_has_a_stable_name(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("GOCLOCK_PORT", raising=False)
    flash = str(tmp_path / "sim-flash")
    os.makedirs(flash)
    for _run in range(2):  # two runs, two ptys, one name
        fw = Firmware(flash, virtual=True)
        try:
            path = port.link(flash, fw.port)
            assert path == os.path.join(flash, "serial") and os.readlink(path) == fw.port
            monkeypatch.setenv("GOCLOCK_PORT", path)
            assert main(["--json", "info"]) == 0
            assert "protocol" in json.loads(capsys.readouterr().out)
        finally:
            port.unlink(path, fw.port)
            fw.stop()
        assert not os.path.lexists(path)  # stopped: the name points at nothing stale
    rc = main(["status"])
    assert rc == 3
    assert capsys.readouterr().err == (
        "goclock: no such serial device: %s (the simulated clock is not running: start it "
        "with make sim)\n" % path
    )
