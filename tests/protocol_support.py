"""The one place the protocol tests get a clock from, on CPython and under the MicroPython unix port.

The app behind the protocol is the real firmware session (tests/support/sessions.py) on a
littlefs flash, in virtual time. Everything a test needs of it goes through here: make a
device, move its time, take a snapshot of everything a request could change.
"""

import json

from support.sessions import make_session
from support.sessions import snapshot as _snapshot


def make_device(flash_dir=None, write=None):
    """(app, protocol, sent): a fresh clock on a flash of its own. Its event lines go to
    `write`, or are collected (as text) in `sent` when no `write` is given."""
    app = make_session(player=False)
    sent = []
    proto = app.protocol

    def collect(data, n=-1):  # the protocol's write(buf, n): one line, buf[:n]
        sent.append(
            data if isinstance(data, str) else bytes(data[: len(data) if n < 0 else n]).decode()
        )

    proto.write = write or collect
    return app, proto, sent


def set_time(app, ms):
    """Move the clock's time to `ms` (an injected tick, never the wall clock)."""
    app.now = ms


def snapshot(app):
    """Everything a request may change, as comparable text."""
    return _snapshot(app)


def ask(proto, req):
    """The reply to one request object, parsed."""
    return json.loads(proto.handle_line(json.dumps(req).encode()))


def start_game(app, proto):
    """A game under way: White started Black's clock, Black moved at 30 s, White's runs at 41 s."""
    ask(proto, {"id": 0, "cmd": "press", "side": "white"})
    set_time(app, 30000)
    ask(proto, {"id": 0, "cmd": "press", "side": "black"})
    set_time(app, 41000)
