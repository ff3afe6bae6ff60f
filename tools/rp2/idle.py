"""The idle CPU share second by second, after a reset and after a pause (emulated Pico).

`make measure-rp2`'s (c) averages 10 s that start right after the request: the notice it
says (its clip decoded and played) and the last quiet-time steps fall in them. This
splits the same stretch into windows of `--window` seconds, so the steady state and
what the first seconds cost are seen apart. Nothing is sent to the chip meanwhile.

    python -m tools.rp2.idle [--image UF2] [--layout mpy|frozen] [--windows 8] [--window 1]
"""

import argparse
import sys

from . import layout, measure


def windows(pico, s, n, seconds):
    return [measure.idle_window(pico, s, seconds)["cpu"] for _ in range(n)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--image", default="build/rp2/micropython.uf2")
    ap.add_argument("--layout", choices=("mpy", "frozen"), default="mpy")
    ap.add_argument("--windows", type=int, default=8)
    ap.add_argument("--window", type=float, default=1.0, help="emulated s per window")
    a = ap.parse_args(argv)
    files = layout.firmware_files() if a.layout == "mpy" else layout.frozen_firmware_files()
    pico, s = measure.boot(a.image, files)
    s.wait_ready(timeout=60)
    measure.wait_prepared(pico, s)
    s.request("config.set", config={"time_control": measure.TC})
    for label, request in (("after a reset", "reset"), ("after a pause", "pause")):
        if request == "pause":
            s.request("press", side="white")
            s.run_for(2.0)
        s.request(request)
        if request == "reset":
            measure.wait_prepared(pico, s)
        shares = windows(pico, s, a.windows, a.window)
        print(
            "%s, %g s windows: %s %%"
            % (label, a.window, " ".join("%.2f" % (100 * x) for x in shares))
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
