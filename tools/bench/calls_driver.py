"""The firmware side of tools/bench/calls.py: the real app in real time, its calls timed from outside.

Runs under the MicroPython unix port (MICROPYPATH=firmware), never on CPython.
The firmware (its loop and session, firmware/goclockfw/app/) runs unchanged on the desktop board
(firmware/goclockfw/desktop/board.py) in REAL time: keys come on stdin from the bench,
console lines go to stdout as in `make sim`. Nothing in the firmware is
edited; four places are wrapped from here, each recording a time stamp
(time.ticks_us, the same CLOCK_MONOTONIC the bench reads) into a list:

- the clock's listener (`app.on_clock`): every event the core fires, with
  its exact tick, when the app is entered and when it is done with it;
- the loop's sleep (`board.wait`): when it went to sleep, for how many ms,
  and when it woke (each call carries the latest one before it);
- the announcer's echo: the moment a phrase is printed ({"say"} line);
- the speaker, a DesktopPlayer subclass handed to the app through
  `board.make_player`: when play() is entered and returns (its {"play"}
  line written), and every stop() that cuts a clip still playing;
- with "gc" as second argument, the heap in use (gc.mem_alloc) at those
  points: where it shrank, the garbage collector ran in between. Off by
  default: mem_alloc walks the heap's allocation table, about 0.4 ms a
  call on a PC, and that would be counted in the lateness measured.

The records are printed as {"b": [...]} lines only when the loop is about to
sleep, never between a deadline and the start of its call.

    micropython tools/bench/calls_driver.py '{"type": "byoyomi", ...}' [gc]
"""

import gc
import json
import sys
import time

from goclockfw.app.loop import Loop
from goclockfw.desktop import board as desktop_board
from goclockfw.storage.configcheck import validate_config

events = []


def flush():
    for e in events:
        sys.stdout.write(json.dumps({"b": e}))
        sys.stdout.write("\n")
    del events[:]


def no_probe():
    return 0


heap_now = no_probe  # gc.mem_alloc with the "gc" argument


class BenchPlayer(desktop_board.DesktopPlayer):
    """The desktop speaker, time-stamped: play() entered and returned, clips cut."""

    def play(self, what):
        t_in = time.ticks_us()
        heap = heap_now()
        ok = desktop_board.DesktopPlayer.play(self, what)
        t_out = time.ticks_us()
        until = getattr(self, "_until", None)  # the tick the clip ends (busy() until then)
        clip = what if isinstance(what, str) else None
        events.append(("play", t_in, t_out, clip, bool(ok), until, heap))
        return ok

    def stop(self):
        if self.busy():
            events.append(("cut", time.ticks_us()))
        desktop_board.DesktopPlayer.stop(self)


def make_app(tc):
    """The desktop board, its loop and session, with BenchPlayer and time control `tc`."""
    board = desktop_board.make_board()
    board.make_player = lambda rate, volume: BenchPlayer(board, volume)
    loop = Loop(board)
    app = loop.session
    app.commands.set_config(validate_config(dict(app.commands.get_config(), time_control=tc)))
    app.commands.reset(None)
    return board, loop, app


def time_sleeps(board):
    """Wrap the loop's sleep: flush the records, note the sleep and count collections.
    Returns the latest sleep (updated in place) and the collection count (a 1-list)."""
    # The loop's latest sleep: went to sleep (us), for (ms), woke (us), heap in use at its start.
    last_wait = [0, 0, 0, 0]
    gc_runs = [0]
    wait = board.wait

    def flushing_wait(ms):
        if events:
            flush()
        heap = heap_now()
        if heap < last_wait[3]:
            gc_runs[0] += 1  # the heap shrank since the last sleep: a collection
        last_wait[3] = heap
        last_wait[0] = time.ticks_us()
        last_wait[1] = ms
        wait(ms)
        last_wait[2] = time.ticks_us()

    board.wait = flushing_wait
    return last_wait, gc_runs


def time_clock_events(app, last_wait):
    """Wrap the clock's listener and the announcer's echo, each recording its time stamps."""
    on_clock = app.on_clock
    echo = app.announcer.echo

    def timed_on_clock(kind, side, tick, value):
        t = time.ticks_us()
        heap = heap_now()
        player = app.announcer.player
        busy = player is not None and player.busy()
        w = last_wait
        events.append(("clock", kind, side, tick, value, t, busy, w[0], w[1], w[2], w[3], heap))
        on_clock(kind, side, tick, value)
        events.append(("done", time.ticks_us()))

    def timed_echo(phrase):
        events.append(("say", phrase, time.ticks_us()))
        if echo is not None:
            echo(phrase)

    app.on_clock = timed_on_clock  # the core calls its listener's (the session's) on_clock
    app.announcer.echo = timed_echo


def tick_at_ms(board):
    """The board's ticks against the monotonic ms clock, read inside one millisecond."""
    while True:
        m1 = time.ticks_ms()
        tick = board.ticks()
        m2 = time.ticks_ms()
        if m1 == m2:
            return tick, m1


def main():
    global heap_now
    tc = json.loads(sys.argv[1])
    if len(sys.argv) > 2 and sys.argv[2] == "gc":
        heap_now = gc.mem_alloc
    board, loop, app = make_app(tc)
    last_wait, gc_runs = time_sleeps(board)
    time_clock_events(app, last_wait)
    tick, m1 = tick_at_ms(board)
    events.append(("ready", tick, m1, app.announcer.pack))
    flush()
    loop.run()
    a = app.announcer
    events.append(("end", a.worst_late_ms, a.skipped, a.said, loop.errors, gc_runs[0]))
    flush()


main()
