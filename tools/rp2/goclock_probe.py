"""The goclock test probe: on the emulated Pico as /goclock_probe.mpy, never deployed.

probe_boot.py (the Pico's /boot.py in test layouts) imports it. MicroPython runs /boot.py,
then /main.py, in one interpreter, so what this patches in the firmware's classes is what
main.py's loop then uses. It adds one serial command, `probe`, answering with the heap
after a gc.collect() (the real gc.mem_free() of the running firmware) and with what the
previous request cost on the chip: `last_us`, emulated microseconds (time.ticks_us) from
Protocol.feed taking the request's bytes to the moment the loop has handed the last byte
of its reply (and of any event it produced) to the USB serial (Loop._send), and
`last_alloc`, gc.mem_alloc() growth over the same span (valid while no collection falls
inside: the probe collects right before, so only a request allocating more than the free
heap would; a negative value says it did).

Its own cost, a few small functions and a list, is `probe_bytes`: the heap its import
takes, measured by probe_boot.py (the firmware modules it patches are imported before).
"""

import gc
import time

from goclockfw.app import loop, session
from goclockfw.protocol import commands

_last = [0, 0, 0, 0, 0]  # t0 (us), alloc0, last_us, last_alloc, 1 while a request is measured
_feed = commands.Protocol.feed
_send = loop.Loop._send
_init = commands.Protocol.__init__


def _probe_feed(self, data):
    _last[0] = time.ticks_us()
    _last[1] = gc.mem_alloc()
    _last[4] = 1
    return _feed(self, data)


def _probe_send(self):
    _send(self)
    if _last[4] and not self.session.out.used:  # the reply is out, all of it
        _last[2] = time.ticks_diff(time.ticks_us(), _last[0])
        _last[3] = gc.mem_alloc() - _last[1]
        _last[4] = 0


def _probe(req):
    gc.collect()
    return {
        "mem_free": gc.mem_free(),
        "mem_alloc": gc.mem_alloc(),
        "last_us": _last[2],
        "last_alloc": _last[3],
        "app_file": session.__file__,
        "probe_bytes": probe_bytes,
    }


def _probe_init(self, app_, write=None):
    _init(self, app_, write)
    self._cmds["probe"] = _probe


commands.Protocol.feed = _probe_feed
commands.Protocol.__init__ = _probe_init
loop.Loop._send = _probe_send
probe_bytes = 0  # set by probe_boot.py
