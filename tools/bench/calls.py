"""Benchmark: call onset lateness, deadline -> playback start, on the desktop board in real time.

The real firmware (app, announcer, core, desktop board) runs under the MicroPython
unix port, driven by tools/bench/calls_driver.py, which time-stamps from outside:
the core's exact deadline tick of every call, the moment the app is told, the
phrase printed, and the speaker's play() entered. This process is the
launcher, as the terminal clock is in `make sim`: it reads the console lines,
spawns the audio command for each {"play"} line (a stand-in, `true`, unless
--audio), and plays a byo-yomi game on the keys, both sides, in REAL time.

The game: "cn" calls, 1 s main time, then 3 periods of 10 s. A move ends
with a press sent 0-300 ms (seeded random) after the deadline of one of its
calls, so most presses land while that call is being said and cut it. While
periods remain, most moves run to "还剩N次" (the period is used up; now and
then a press after "开始读秒", "5秒" or "8秒"); in the last period a move ends
after a count from "1" to "9", uniformly. Once --seconds of play are done, the
next side to move in its last period lets it run out: "10", "超时判负", the
end. With --stray P, after a count the waiting side presses its own button
(ignored: not its turn) 0-10 ms before the next count, with odds P.

Lateness is measured on one clock (CLOCK_MONOTONIC: MicroPython's
time.ticks_us and Python's time.monotonic_ns), from the first microsecond of
the deadline's millisecond tick. Reported: p50 / p99 / max (nearest rank) for
each announcement's first phrase; the second phrase of a same-tick pair
("10" then "超时判负") starts when the first ends, so for it the gap after that
end is reported instead. The lateness is split where the time went: the
loop's planned wake (it sleeps whole ms from the ms tick it read), sleeping
past that plan (the OS), waking to the core firing the call, and the app and
announcer up to play(). What the launcher adds is reported apart: reading the
{"play"} line, spawning the audio command; the audio player's own start-up
(opening the sound device) is not measured.

    python -m tools.bench.calls [--seconds 75] [--seed 5] [--no-view] [--audio] [--stray P] [--gc-probe] [--json]
"""

import argparse
import json
import os
import random
import select
import shutil
import subprocess
import sys
import tempfile
import time

from goclock.unixport import micropython_binary, micropython_env
from goclock.voice.speaker import Speaker

from .. import ROOT
from .calls_report import analyse, report

SOUNDS = os.path.join(ROOT, "sounds")
DRIVER = os.path.join(ROOT, "tools", "bench", "calls_driver.py")  # run by the unix port
TC = {"type": "byoyomi", "main": 1, "periods": 3, "period": 10, "calls": "cn"}
KEY = ("a", "l")  # Black's button is the left one ("a"), White's the right one ("l")
TICKS_PERIOD = 2**30
OVERRUN_S = 60  # a game still on this long after --seconds is stopped
LAST_PERIOD = ("还剩1次",) + tuple(str(i) for i in range(1, 11))
MAX_PRESS_LATE_MS = 300
STRAY_BEFORE_MS = 10  # --stray: the waiting side's press lands this close before a deadline
# The odds of pressing after a call of a period that is not the last (by its first two
# characters): most moves use their period up, so the game reaches the dense counting of
# the last periods ("1" ... "9", one a second) within half a minute.
PRESS_AFTER = {"开始": 0.05, "5秒": 0.1, "8秒": 0.1, "还剩": 1.0}


def mono_us():
    return time.monotonic_ns() // 1000


def ticks_diff(a, b):
    """firmware/goclockfw/core/ticks.py semantics (2**30 period), for the board's ticks."""
    return ((a - b + TICKS_PERIOD // 2) & (TICKS_PERIOD - 1)) - TICKS_PERIOD // 2


class Game:
    """The launcher's side of the run: reads the firmware, presses keys on schedule."""

    def __init__(self, seconds, seed, view, audio, stray=0.0, gc_probe=False):
        self.seconds = seconds
        self.stray = stray
        self.rng = random.Random(seed)
        self.tmp = tempfile.TemporaryDirectory()
        env = dict(
            micropython_env(),
            GOCLOCK_FLASH=os.path.join(self.tmp.name, "flash"),
            GOCLOCK_SOUNDS=SOUNDS,
        )
        env.pop("GOCLOCK_VIRTUAL", None)
        if not view:
            env["GOCLOCK_VIEW"] = "0"
        binary = micropython_binary()
        if binary is None:
            raise SystemExit("no MicroPython unix port: run `make venv` first")
        self.proc = subprocess.Popen(
            [binary, DRIVER, json.dumps(TC)] + (["gc"] if gc_probe else []),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            cwd=ROOT,
            start_new_session=True,
        )
        self.speaker = Speaker()
        if not audio or self.speaker.command is None:
            self.speaker.command = [shutil.which("true") or "/bin/true"]
        self.events = []  # the driver's records, in order
        self.launcher = []  # (kind "play"/"beep", line read at, audio command spawned at)
        self.keys = []  # scheduled [at_us, key, what]
        self.presses = []  # (side, call tick, deadline due_us, "move"/"stray", key sent at)
        self.view_lines = 0
        self.ready = None  # (board tick, monotonic ms) at the same millisecond
        self.started_at = None
        self.quitting = False
        self.gc_probe = gc_probe
        self.in_last = [False, False]  # each side: in its last period
        self.pressing = False  # a press is on its way for the move being played
        self._buf = b""

    # ----- time base -------------------------------------------------------------

    def due_us(self, tick):
        """The first microsecond of board tick `tick`, on the monotonic clock."""
        tick0, ms0 = self.ready
        return (ms0 + ticks_diff(tick, tick0)) * 1000

    # ----- keys ---------------------------------------------------------------------

    def schedule(self, at_us, key, what):
        self.keys.append([at_us, key, what])
        self.keys.sort(key=lambda k: k[0])

    def send_due_keys(self):
        now = mono_us()
        while self.keys and self.keys[0][0] <= now:
            at, key, what = self.keys.pop(0)
            try:
                self.proc.stdin.write(key.encode())
                self.proc.stdin.flush()
            except (BrokenPipeError, ValueError):
                return
            sent = mono_us()
            if isinstance(what, tuple):
                self.presses.append(what + (sent,))
            if key == "q":
                self.proc.stdin.close()

    # ----- the firmware's lines -------------------------------------------------------

    def on_record(self, rec, read_at):
        self.events.append(rec)
        kind = rec[0]
        if kind == "ready":
            self.ready = (rec[1], rec[2])
            self.started_at = read_at
            self.schedule(read_at + 200000, KEY[1], "start")  # White's button starts Black
            return
        if kind != "clock":
            return
        what, side, tick, value = rec[1], rec[2], rec[3], rec[4]
        if what in ("start", "press"):
            self.pressing = False
        elif what == "call":
            self._on_call(side, tick, value)
        elif what == "timeout":
            self.keys = [k for k in self.keys if not isinstance(k[2], tuple)]
            self.quitting = True
            self.schedule(read_at + 500000, "q", "quit")

    def _on_call(self, side, tick, phrase):
        """Press after this call? Decided call by call, with the odds of PRESS_AFTER."""
        if phrase in LAST_PERIOD:
            self.in_last[side] = True
        if self.pressing or phrase == "超时判负":
            return
        finishing = mono_us() - self.started_at >= self.seconds * 1000000
        if finishing and self.in_last[side]:
            return  # this side lets its last period run out: the game ends
        if phrase.isdigit():
            # Uniform over "1" .. "9": after "10" the minute is gone.
            odds = 1 / (10 - int(phrase)) if int(phrase) < 10 else 0
        else:
            odds = PRESS_AFTER.get(phrase[:2], 0)
        due = self.due_us(tick)
        if self.rng.random() < odds:
            self.pressing = True
            at = due + self.rng.randint(0, MAX_PRESS_LATE_MS * 1000)
            self.schedule(at, KEY[side], (side, tick, due, "move"))
        elif phrase.isdigit() and int(phrase) < 9 and self.rng.random() < self.stray:
            # The waiting player touches their button just before the next count.
            at = due + 1000000 - self.rng.randint(0, STRAY_BEFORE_MS * 1000)
            self.schedule(at, KEY[1 - side], (1 - side, tick, due + 1000000, "stray"))

    def on_console(self, obj, read_at):
        if "view" in obj:
            self.view_lines += 1
        elif "play" in obj:
            self.speaker.play(obj["play"])
            self.launcher.append(("play", read_at, mono_us()))
        elif "beep" in obj:
            self.launcher.append(("beep", read_at, None))
        elif "stop" in obj:
            self.speaker.stop()

    def read(self, timeout_s):
        fd = self.proc.stdout.fileno()
        if not select.select([fd], [], [], max(0.0, timeout_s))[0]:
            return True
        chunk = os.read(fd, 65536)
        read_at = mono_us()
        if not chunk:
            return False
        self._buf += chunk
        while b"\n" in self._buf:
            line, self._buf = self._buf.split(b"\n", 1)
            try:
                obj = json.loads(line.decode("utf-8"))
            except ValueError:
                continue
            if not isinstance(obj, dict):
                continue
            if "b" in obj:
                self.on_record(obj["b"], read_at)
            else:
                self.on_console(obj, read_at)
        return True

    def run(self):
        hard_end = None
        try:
            while True:
                now = mono_us()
                if self.started_at is not None and hard_end is None:
                    hard_end = self.started_at + (self.seconds + OVERRUN_S) * 1000000
                if hard_end is not None and now > hard_end and not self.quitting:
                    self.quitting = True  # a game that would not end: stop here
                    self.schedule(now, "q", "quit")
                wait = 0.5
                if self.keys:
                    wait = min(wait, (self.keys[0][0] - now) / 1e6)
                if not self.read(wait):
                    break
                self.send_due_keys()
            self.proc.wait(10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self.speaker.stop()
            self.tmp.cleanup()
        if self.proc.returncode:
            raise SystemExit("the firmware driver failed (exit %d)" % self.proc.returncode)
        if self.ready is None:
            raise SystemExit("the firmware driver never got ready")
        return (mono_us() - self.started_at) / 1e6


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=75, help="play at least this long")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--no-view", action="store_true", help="no view lines (as GOCLOCK_VIEW=0)")
    ap.add_argument("--audio", action="store_true", help="spawn the PC's real audio player")
    ap.add_argument(
        "--stray",
        type=float,
        default=0.0,
        help="odds, per count of the last period, that the waiting side presses just before the next",
    )
    ap.add_argument(
        "--gc-probe",
        action="store_true",
        help="count garbage collections (gc.mem_alloc: about 0.4 ms more in each figure)",
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    game = Game(args.seconds, args.seed, not args.no_view, args.audio, args.stray, args.gc_probe)
    wall = game.run()
    r = analyse(game)
    r.update(
        wall_s=wall,
        moves=len([e for e in game.events if e[0] == "clock" and e[1] == "press"]),
        ended=any(e[0] == "clock" and e[1] == "timeout" for e in game.events),
        view=not args.no_view,
        view_lines=game.view_lines,
        gc_probe=args.gc_probe,
        tc=TC,
        stray_before_ms=STRAY_BEFORE_MS,
        overrun_s=OVERRUN_S,
        audio_command=os.path.basename(game.speaker.command[0]),
    )
    if args.json:
        print(json.dumps(r))
    else:
        report(r)
    return 0 if r["announcements"] else 1


if __name__ == "__main__":
    sys.exit(main())
