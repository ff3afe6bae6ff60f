"""The one place the protocol tests get a clock from, on CPython and under the MicroPython unix port.

Today the app behind the protocol is tests/fake_app.py; when the real application session
replaces it, only this module changes. Everything a test needs of the app goes through here:
make a device, move its time, take a snapshot of everything a request could change.
"""

import json

from fake_app import FakeApp
from goclockfw.protocol.commands import Protocol
from goclockfw.storage.fs import FS


def make_device(flash_dir, write=None):
    """(app, protocol, sent): a fresh clock on the flash directory. Its event lines go to
    `write`, or are collected in `sent` when no `write` is given."""
    app = FakeApp(FS(str(flash_dir)))
    sent = []
    proto = Protocol(app, write or sent.append)
    app.protocol = proto
    return app, proto, sent


def set_time(app, ms):
    """Move the clock's time to `ms` (an injected tick, never the wall clock)."""
    app.now = ms


def snapshot(app):
    """Everything a request may change, as comparable text."""
    return app.snapshot()


def ask(proto, req):
    """The reply to one request object, parsed."""
    return json.loads(proto.handle_line(json.dumps(req).encode()))


def start_game(app, proto):
    """A game under way: White started Black's clock, Black moved at 30 s, White's runs at 41 s."""
    ask(proto, {"id": 0, "cmd": "press", "side": "white"})
    set_time(app, 30000)
    ask(proto, {"id": 0, "cmd": "press", "side": "black"})
    set_time(app, 41000)
