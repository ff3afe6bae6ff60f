"""Where a running bridge says which port it owns, so that every `goclock` finds it.

A bridge registers each name of its port (the path given, made absolute, and the path it
resolves to: `/dev/serial/by-id/usb-…` and `/dev/ttyACM0` are the same clock; a pyserial
URL is its own name) in the runtime folder:

    <name>.lock    held locked (flock) by the bridge for as long as it runs
    <name>.json    {"pid", "port", "socket", "started"}: where to reach it (0600); with
                   "web_url", "token", "needs_login" when it serves web pages
    <name>.sock    its Unix socket (mode 0600: only this user reaches it)

`<name>` is a hash of the port's name, so any path length fits a socket's 108 bytes. A
bridge that crashed leaves files behind but no lock: `lookup` takes the lock itself to
tell, and clears what the dead bridge left. The folder is `$GOCLOCK_RUNTIME_DIR`, else
`$XDG_RUNTIME_DIR/goclock`, else `/tmp/goclock-<uid>`; it must be this user's own and
closed to others (0700), or it is refused: another user could plant a socket there.
"""

import contextlib
import fcntl
import hashlib
import json
import os
import stat
import tempfile
import time

from ..errors import GoclockError


class BridgeBusy(GoclockError):
    """Another bridge already owns this port."""

    exit_code = 1


def runtime_dir():
    """The runtime folder, made (0700) if missing; refused if another user could write it."""
    path = os.environ.get("GOCLOCK_RUNTIME_DIR")
    if not path:
        xdg = os.environ.get("XDG_RUNTIME_DIR")
        if xdg and os.path.isdir(xdg):
            path = os.path.join(xdg, "goclock")
        else:
            path = os.path.join(tempfile.gettempdir(), "goclock-%d" % os.getuid())
    os.makedirs(path, mode=0o700, exist_ok=True)
    st = os.stat(path)
    if st.st_uid != os.getuid() or stat.S_IMODE(st.st_mode) & 0o022:
        raise GoclockError(
            "the bridge's runtime folder %s is not yours alone (owner or write bits): "
            "remove it, or set GOCLOCK_RUNTIME_DIR to a folder of your own" % path
        )
    return path


def is_url(port):
    return "://" in port


def names(port):
    """Every name by which `port` is known: a URL as it is; a path absolute and resolved."""
    if is_url(port):
        return [port]
    found = [os.path.abspath(port), os.path.realpath(port)]
    return list(dict.fromkeys(found))


def _stem(name):
    return os.path.join(runtime_dir(), hashlib.sha256(name.encode()).hexdigest()[:20])


class Registration:
    """The bridge's claim on its port's names: locks held, info files written."""

    def __init__(self, port, socket_path):
        self.port = port
        self.socket_path = socket_path
        self._held = {}  # name -> open lock file
        self.extra = {}

    def publish(self, **fields):
        """Add fields to every info file (the WebSocket's address and token, for a web
        command that finds this bridge running: the folder is this user's alone)."""
        self.extra.update(fields)
        for name in self._held:
            self._write(name)

    def claim(self, port_now=None):
        """Register every current name of the port (called again after a replug: the
        resolved path may have changed). Raises BridgeBusy when another bridge has one."""
        for name in names(port_now or self.port):
            if name in self._held:
                continue
            stem = _stem(name)
            lock = open(stem + ".lock", "a+")
            try:
                fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                lock.close()
                other = read_info(stem)
                raise BridgeBusy(
                    "a goclock bridge (pid %s) already owns %s"
                    % ((other or {}).get("pid", "?"), name)
                ) from None
            self._held[name] = lock
            self._write(name)

    def _write(self, name):
        stem = _stem(name)
        info = {
            "pid": os.getpid(),
            "port": self.port,
            "name": name,
            "socket": self.socket_path,
            "started": int(time.time()),
        }
        info.update(self.extra)
        tmp = stem + ".json.new"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(info, f)
        os.replace(tmp, stem + ".json")

    def release(self):
        for name, lock in self._held.items():
            stem = _stem(name)
            for ext in (".json",):
                with contextlib.suppress(OSError):
                    os.unlink(stem + ext)
            lock.close()
        self._held.clear()


def socket_path_for(port):
    """The Unix socket a bridge for `port` listens on (named after the port's first name)."""
    return _stem(names(port)[0]) + ".sock"


def read_info(stem):
    try:
        with open(stem + ".json") as f:
            info = json.load(f)
    except (OSError, ValueError):
        return None
    return info if isinstance(info, dict) else None


def lookup(port):
    """The info of the live bridge that owns `port`, or None. Files a dead bridge left
    (no one holds its lock) are removed on the way."""
    if os.environ.get("GOCLOCK_NO_BRIDGE"):
        return None
    try:
        folder = runtime_dir()
    except (GoclockError, OSError):
        return None
    for name in names(port):
        stem = os.path.join(folder, os.path.basename(_stem(name)))
        if not os.path.exists(stem + ".lock"):
            continue
        try:
            lock = open(stem + ".lock", "a+")
        except OSError:
            continue
        try:
            try:
                fcntl.flock(lock.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
            except OSError:
                info = read_info(stem)  # locked: a bridge runs
                if info and info.get("socket"):
                    return info
                continue
            _clear_stale(stem, read_info(stem))
        finally:
            lock.close()
    return None


def _clear_stale(stem, info):
    """The bridge behind these files is gone: remove its info and socket (we hold its lock)."""
    paths = [stem + ".json"]
    if info and isinstance(info.get("socket"), str):
        paths.append(info["socket"])
    for path in paths:
        with contextlib.suppress(OSError):
            os.unlink(path)
