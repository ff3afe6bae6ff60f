"""Benchmark: presses charged in real time on the desktop board (`make bench`).

The firmware runs on the PC's clock, as in `make sim`. Forty presses are keys
sent at known moments; the move times the clock charged (from its game log)
are compared with the intervals this process measured. Both ends wake on the
same pipe write, so what is left is the two processes' scheduling jitter plus
the clock's own charge error (the issue asks for at most 2 ms). A figure, not
a test: tests run on virtual time.
"""

import statistics
import sys
import tempfile
import time

from goclock.unixport import Firmware
from goclockfw.storage.logline import verify_bytes

PRESSES = 40


def main():
    with tempfile.TemporaryDirectory() as flash:
        fw = Firmware(flash, virtual=False, env={"GOCLOCK_VIEW": "0"})
        try:
            fw.lines(0.5)  # booted
            tc = {"type": "sudden_death", "main": 600}
            fw.request({"cmd": "config.set", "config": {"time_control": tc}})
            fw.request({"cmd": "reset"})
            fw.keys("l")
            sent = [time.monotonic()]
            for i in range(PRESSES):
                time.sleep(0.12 + 0.013 * (i % 10))
                fw.keys("a" if i % 2 == 0 else "l")
                sent.append(time.monotonic())
            time.sleep(0.1)  # the debounce window of the last press
            st = fw.request({"cmd": "status"})
            records = verify_bytes(fw.read_log(st["game"]))["records"]
        finally:
            fw.stop()
    used = [r["used_ms"] for r in records if r["event"] == "press"]
    host = [(b - a) * 1000 for a, b in zip(sent, sent[1:])]
    errors = sorted(abs(u - h) for u, h in zip(used, host))
    print("presses charged in real time: %d of %d recorded" % (len(used), PRESSES))
    print(
        "  |charged - measured| ms: median %.2f, p90 %.2f, max %.2f"
        % (statistics.median(errors), errors[int(len(errors) * 0.9)], errors[-1])
    )
    return 0 if len(used) == PRESSES else 1


if __name__ == "__main__":
    sys.exit(main())
