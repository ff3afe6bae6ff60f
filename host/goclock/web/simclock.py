"""A simulated clock for `goclock web --sim`: the firmware under the MicroPython unix port,
in real time, its serial line a pty the bridge opens like a board's.

Its console (what it shows and says, as JSON lines on its stdout) is read and dropped by a
thread of its own: a pipe nobody reads fills, and the firmware would stop at its next
write. The flash is kept in a folder (default ~/.cache/goclock/web-sim), so the next
`goclock web --sim` finds its config and its game logs again.
"""

import os
import threading

from ..unixport import Firmware, lock_flash


def default_flash():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "goclock", "web-sim")


class SimulatedClock:
    def __init__(self, flash=None):
        self.flash = flash or default_flash()
        self._lock = lock_flash(self.flash)  # FlashBusy when another simulated clock has it
        self.fw = Firmware(self.flash, env={"GOCLOCK_VIEW": "0"})
        self.port = self.fw.port
        self._stopping = False
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self):
        while not self._stopping and self.fw.proc.poll() is None:
            try:
                self.fw.lines(0.5)
            except (OSError, ValueError):
                return

    def stop(self):
        self._stopping = True
        self.fw.stop()
        self._lock.close()
