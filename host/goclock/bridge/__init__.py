"""`goclock bridge`: one process owns a clock's serial line and shares it.

    from goclock.bridge import start_bridge

    bridge = start_bridge("/dev/ttyACM0", web=True, origins=["http://127.0.0.1:8000"])
    bridge.web_url          # "ws://127.0.0.1:40123/": the page's WebSocket (no token)
    bridge.token            # this run's token: the page connects to web_url + "?token=…"
    bridge.socket_path      # the Unix socket every `goclock` command finds by itself
    bridge.stop()

    running("/dev/ttyACM0")  # a bridge started elsewhere: its pid, web_url, token; or None

The parts: serialline.py (the port, its threads, reopening it), hub.py (requests,
replies, watch and events among the peers), pending.py (the requests sent to the clock,
waiting for their replies, in order), peers.py (bounded queues; the Unix socket's
peers), websocket.py (the web pages' endpoint), runtime.py (how commands find a running
bridge), client.py (the commands' side), hall.py (MQTT publishing for a clock without
Wi-Fi). docs/bridge.md says how to use it.
"""

__all__ = ["Bridge", "BridgeBusy", "BridgeError", "running", "start_bridge"]


def running(port):
    """The bridge already running for `port`, as its info: {"pid", "port", "socket"}, and
    "web_url", "token", "needs_login" when it serves web pages; None when none runs."""
    from . import runtime

    return runtime.lookup(port)


def __getattr__(name):
    # Imported when used: every `goclock` command imports runtime and client (to find a
    # running bridge), and they must not pay for websockets and paho-mqtt.
    if name in ("Bridge", "BridgeError", "start_bridge"):
        from . import core

        return getattr(core, name)
    if name == "BridgeBusy":
        from .runtime import BridgeBusy

        return BridgeBusy
    raise AttributeError(name)
