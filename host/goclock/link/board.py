"""A board's files through mpremote, and the check that no game is lost to a deploy.

`Board` wraps mpremote's own serial transport (raw REPL file writes), so the copy is
mpremote's code, not ours; `Board.remove_stale` deletes what an older deploy left behind
(firmware.stale). `guard()` asks the clock, over the goclock protocol, whether a game is on
before anything interrupts it.
"""

from ..errors import DeviceTimeout, GoclockError, ProtocolError, TransportError
from ..firmware import stale
from .client import Client
from .transport import SerialTransport


def guard(port, force=False):
    """Refuse (GoclockError) while a game is on the clock, unless forced; returns the state.

    Forced, the clock is asked to end the game (`maintenance`: logged, never resumed), which
    turns its keyboard interrupt back on: without that no REPL can be had during a game,
    not even after a power cycle (the game would resume with it off again)."""
    from ..bridge import runtime

    bridge = runtime.lookup(port)
    if bridge is not None:
        raise GoclockError(
            "a goclock bridge (pid %s) owns %s: stop it first (Ctrl-C in its window); a deploy "
            "needs the port itself" % (bridge.get("pid"), port)
        )
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
