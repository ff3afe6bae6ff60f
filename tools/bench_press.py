"""Benchmark: presses charged in real time on the desktop board (`make bench`).

The firmware runs on the PC's clock, as in `make sim`. Forty presses are keys
sent at known moments; the move times the clock charged (from its game log)
are compared with the intervals this process measured. Both ends wake on the
same pipe write, so what is left is the two processes' scheduling jitter plus
the clock's own charge error (the issue asks for at most 2 ms). A figure, not
a test: tests run on virtual time.
"""

import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
sys.path.insert(0, os.path.join(HERE, "..", "firmware"))

from firmware_helpers import boot, log_bytes, set_tc, status  # noqa: E402

from goclockfw.storage.logline import verify_bytes  # noqa: E402

PRESSES = 40


def main():
    with tempfile.TemporaryDirectory() as flash:
        fw = boot(flash, virtual=False)
        try:
            set_tc(fw, {"type": "sudden_death", "main": 600})
            fw.keys("l")
            sent = [time.monotonic()]
            for i in range(PRESSES):
                time.sleep(0.12 + 0.013 * (i % 10))
                fw.keys("a" if i % 2 == 0 else "l")
                sent.append(time.monotonic())
            time.sleep(0.1)  # the debounce window of the last press
            st = status(fw)
            records = verify_bytes(log_bytes(flash, st["game"]))["records"]
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
