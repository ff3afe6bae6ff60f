"""`goclock web`: the web app served on this machine, and a clock's line bridged to its pages.

    from goclock.web import start_web

    web = start_web("/dev/ttyACM0")      # or None: the pages alone; sim=True: a simulated clock
    web.url                              # "http://127.0.0.1:8000/"
    web.stop()

server.py serves the built app (web/dist) and `bridge.json`, the address and this run's
token of the bridge's WebSocket (goclock.bridge, docs/bridge.md), to the pages it served
alone; simclock.py runs the firmware under the MicroPython unix port when asked for a
simulated clock.
"""

from .server import WebError, start_web

__all__ = ["WebError", "start_web"]
