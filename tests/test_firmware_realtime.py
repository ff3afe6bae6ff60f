"""Real time on the desktop board: calls start within 20 ms of their deadlines, presses are charged exactly.

The only test here with real waiting (about 4 s): the firmware runs on the
PC's clock, as in `make sim`. Presses are keys sent at known moments; what
the clock charged is compared with the moments this process measured, which
carry its own scheduling jitter too.
"""

import statistics
import time

from firmware_helpers import boot, log_bytes, set_tc, status
from gamelog import verify_bytes

CALL_SLACK_MS = 20


def test_calls_on_time_and_presses_charged_as_timed(tmp_path):
    fw = boot(tmp_path, virtual=False)
    try:
        set_tc(fw, {"type": "sudden_death", "main": 2.5})
        fw.lines(0.3)
        fw.keys("l")
        start = time.monotonic()
        says = []
        while time.monotonic() - start < 3.2:
            says += [x for x in fw.lines(0.1) if "say" in x]
        # The countdown before a loss on time: "8" at 0.5 s, "9" at 1.5 s, "10" at 2.5 s.
        got = {x["say"]: x["t"] for x in says}
        for phrase, due in (("8", 500), ("9", 1500), ("10", 2500)):
            assert phrase in got, says
            assert 0 <= got[phrase] - due <= CALL_SLACK_MS, (phrase, got[phrase])
        st = status(fw)
        assert st["state"] == "ended" and st["black"]["flagged"]

        set_tc(fw, {"type": "sudden_death", "main": 600})
        fw.keys("l")
        sent = [time.monotonic()]
        for i in range(10):
            time.sleep(0.12 + 0.013 * i)
            fw.keys("a" if i % 2 == 0 else "l")
            sent.append(time.monotonic())
        time.sleep(0.1)  # the debounce window of the last press
        st = status(fw)
        assert st["moves"] == 10
        recs = verify_bytes(log_bytes(tmp_path, st["game"]))["records"]
        used = [r["used_ms"] for r in recs if r["event"] == "press"]
        host = [(b - a) * 1000 for a, b in zip(sent, sent[1:])]
        errors = [abs(u - h) for u, h in zip(used, host)]
        # Both ends wake on the same pipe write; what is left is scheduling jitter.
        assert statistics.median(errors) <= 2, errors
        assert max(errors) <= 10, errors
    finally:
        fw.stop()
