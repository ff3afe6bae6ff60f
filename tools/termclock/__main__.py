"""The terminal clock (`make sim`): the clock's firmware, unchanged, under the MicroPython unix port on the desktop board.

The firmware runs as a child process (goclock.unixport.Firmware): a pty for its serial
line, linked as `serial` in the flash directory (port.py: `sim-flash/serial`, the same
name every run, so `export GOCLOCK_PORT=$PWD/sim-flash/serial` keeps working), whose path
is printed so that `goclock --port PATH` talks to the simulated clock exactly as to a
board. Its keys come from our stdin, and what it would show, say or
light comes back as JSON lines.

In a terminal: both clocks drawn large, whose turn, periods or moves left, paused or
flag; the keys are "a" (left button: Black's by default), "l" (right button: White's),
space (arbiter key), "h" (hold the arbiter key down / let it go), "q" to quit. Calls are
printed and played with aplay, paplay or ffplay when one is installed. Without a
terminal on stdin: a short scripted demo game in virtual time, printing what the clock
says.

    python -m tools.termclock [--flash DIR] [--demo]

Two simulated clocks on one flash directory would write the same config and game logs at
once, so the flash directory is locked (flock on DIR/.sim.lock) while a clock uses it; a
second `make sim` on it stops with a clear message instead.
"""

import argparse
import os
import sys
import threading

from goclock.unixport import Firmware, FlashBusy, lock_flash
from goclock.voice.speaker import Speaker

from .. import ROOT
from . import demo, port, screen


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flash", default=os.path.join(ROOT, "sim-flash"), help="the flash directory")
    ap.add_argument("--demo", action="store_true", help="play the scripted demo game")
    args = ap.parse_args(argv)
    if args.demo or not sys.stdin.isatty():
        return demo.run(Firmware)
    try:
        lock = lock_flash(args.flash)
    except FlashBusy as exc:
        raise SystemExit("sim: %s" % exc) from None
    try:
        fw = Firmware(args.flash)
        stable = port.link(args.flash, fw.port)
        try:
            return screen.run(fw, Speaker(), threading, stable)
        finally:
            port.unlink(stable, fw.port)
    finally:
        lock.close()


if __name__ == "__main__":
    sys.exit(main())
