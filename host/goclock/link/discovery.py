"""Finding the clock: `--port`, `$GOCLOCK_PORT`, or the one goclock among the serial ports.

A port counts as a goclock when it answers an `info` request with the protocol version; ports
that are busy or silent are reported as such by `goclock ports`, never opened twice.

A port that a running `goclock bridge` owns is reached through the bridge
(`open_transport`), by every command, with nothing to say: the bridge registers the port
in its runtime folder (goclock/bridge/runtime.py). `GOCLOCK_NO_BRIDGE=1` opens the port
itself (and finds it busy while a bridge has it).
"""

import contextlib
import os

from serial.tools import list_ports

from ..errors import GoclockError, NoClockError, UsageError
from .client import Client
from .transport import SerialTransport

PROBE_TIMEOUT = 0.6


def open_transport(port):
    """The line to `port`: through the bridge that owns it, if one runs; else the port."""
    try:
        from ..bridge import client, runtime  # the commands' side: a socket, no more
    except ImportError:  # no fcntl (Windows): no bridge to find
        return SerialTransport(port)
    info = runtime.lookup(port)
    if info is not None:
        return client.BridgeTransport(info)
    return SerialTransport(port)


def probe(port, timeout=PROBE_TIMEOUT):
    """Ask `port` for `info`. Return (info or None, a note saying why not)."""
    try:
        transport = open_transport(port)
    except GoclockError as exc:
        return None, str(exc)
    try:
        transport.discard_input()
        client = Client(transport, timeout=timeout)
        client.open_line()
        info = client.request("info")
        if "protocol" not in info:
            return None, "answers, but not as a goclock"
        return info, "goclock"
    except GoclockError as exc:
        return None, str(exc)
    finally:
        transport.close()


def scan(timeout=PROBE_TIMEOUT):
    """Every serial port pyserial lists, each with its probe result."""
    found = []
    for port in sorted(list_ports.comports(), key=lambda p: p.device):
        info, note = probe(port.device, timeout)
        found.append(
            {"port": port.device, "description": port.description, "info": info, "note": note}
        )
    return found


def choose_port(port=None):
    """The port to talk to: the one given, `$GOCLOCK_PORT`, or the only goclock found."""
    port = port or os.environ.get("GOCLOCK_PORT")
    if port:
        return port
    clocks = [p["port"] for p in scan() if p["info"]]
    if not clocks:
        raise NoClockError(
            "no goclock found: plug the clock in (a data USB cable), or give --port PATH "
            "(for `make sim`, the pty path it prints)"
        )
    if len(clocks) > 1:
        raise UsageError("several goclocks found (%s): choose one with --port" % ", ".join(clocks))
    return clocks[0]


@contextlib.contextmanager
def connect(port=None, timeout=None):
    """Open the clock's port, check its firmware speaks our protocol, yield a `Client`."""
    transport = open_transport(choose_port(port))
    try:
        client = Client(transport) if timeout is None else Client(transport, timeout)
        transport.discard_input()
        client.open_line()
        client.check_firmware()
        yield client
    finally:
        transport.close()
