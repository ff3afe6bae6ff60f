"""The board interface (board/base.py): every board is a Board, and a board that keeps every
default but time still runs the clock (the loop asks nothing a board may lack)."""

import ast
import json
import os

from conftest import FIRMWARE, run_micropython
from goclockfw.app.loop import Loop
from goclockfw.board.base import Board
from goclockfw.core.ticks import ticks_add
from support.chipclock import ChipSessionBoard
from support.sessions import make_session
from support.testboard import TestBoard
from support.vclock import VirtualBoard
from test_firmware_boards import hw  # noqa: F401 (the fixture: fake machine, rp2, esp32)

BASE = os.path.join(FIRMWARE, "goclockfw", "board", "base.py")


def test_the_base_imports_no_hardware_module():
    """So that the desktop and a page under MicroPython's WebAssembly port can subclass it."""
    with open(BASE) as f:
        tree = ast.parse(f.read())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add(node.module.split(".")[0])
    assert names <= {"goclockfw", "os"}, names


def test_the_chips_boards_are_boards(hw):  # noqa: F811 (the fixture)
    for board in (
        hw.mcu.McuBoard({"board": "bare"}),
        hw.rp2mod.Rp2Board({"board": "pico"}),
        hw.esp32.Esp32Board({"board": "esp32"}),
    ):
        assert isinstance(board, Board)
        assert board.network() is None  # no `network` module in the fakes: a plain Pico
        assert board.notices == [] and board.ring is not None


def test_the_tests_boards_are_boards():
    for cls in (TestBoard, VirtualBoard, ChipSessionBoard):
        assert issubclass(cls, Board), cls


DESKTOP = """
import json
from goclockfw.board.base import Board
from goclockfw.browser.board import BrowserBoard
from goclockfw.desktop.board import DesktopBoard
from goclockfw.desktop.chipboard import ChipBoard
from goclockfw.app.buttons import EdgeRing
out = {}
for board in (DesktopBoard(), BrowserBoard(), ChipBoard("rp2040", EdgeRing())):
    out[board.family] = [isinstance(board, Board), board.network() is None]
print(json.dumps(out))
"""


def test_the_desktop_browser_and_chip_model_boards_are_boards(micropython, tmp_path):
    script = tmp_path / "boards.py"
    script.write_text(DESKTOP)
    r = run_micropython(micropython, str(script), cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr.decode()
    out = json.loads(r.stdout.decode().strip().splitlines()[-1])
    # The desktop has the unix port's sockets (net/socklink.py); the others no network.
    assert out == {"desktop": [True, False], "browser": [True, True], "chip model": [True, True]}


class Bare(Board):
    """A board with a clock and nothing else: no pins, no line, no speaker, no display."""

    def __init__(self):
        Board.__init__(self)
        self.now = 0

    def ticks(self):
        return self.now

    def wait(self, ms):
        self.now = ticks_add(self.now, ms if ms > 0 else 1)


def test_a_board_with_only_a_clock_runs_a_game():
    board = Bare()
    loop = Loop(board, make_session())
    s = loop.session
    for _ in range(20):
        loop._step()  # (not `step`: a fault fails the test instead of being noted)
    assert s.commands.press(1, board.now)  # no buttons: White's press from a command source
    loop._step()
    assert s.clock.state == "running" and loop.errors == 0
    start = board.now
    while board.now - start < 5000:
        loop._step()
    assert s.commands.status()["black"]["main_ms"] < 6900000 - 4000  # Black's clock ran


def test_a_chip_gives_its_own_id_and_a_board_without_one_none(hw, monkeypatch):  # noqa: F811
    """`info`'s clock_id comes from the chip where it has one (machine.unique_id: the
    RP2040's flash id, the ESP32's MAC); the base's default is None."""
    assert Board().unique_id() is None
    assert hw.rp2mod.Rp2Board({"board": "pico"}).unique_id() is None  # a port without it
    monkeypatch.setattr(hw.mcu.machine, "unique_id", lambda: b"\xe6\x61\x38\x52", raising=False)
    for board in (hw.rp2mod.Rp2Board({"board": "pico"}), hw.esp32.Esp32Board({"board": "esp32"})):
        assert board.unique_id() == b"\xe6\x61\x38\x52"


class WithId(TestBoard):
    def unique_id(self):
        return b"\x01\x23\x45\x67\x89\xab\xcd\xef"


def test_info_says_the_boards_own_id_as_clock_id():
    assert make_session(board=WithId).commands.info()["clock_id"] == "0123456789abcdef"
    made = make_session().commands.info()["clock_id"]  # no id of its own: made, kept in flash
    assert len(made) == 16 and made != "0123456789abcdef"
