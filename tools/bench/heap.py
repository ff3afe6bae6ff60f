"""Heap use of the firmware under the MicroPython unix port (`make bench-heap`, part of `make bench`).

Runs the real firmware (the board loop, app/loop.py, and its session) on the desktop board
in virtual time, driven step by step by a small MicroPython driver, and measures with
gc.mem_alloc():

- heap in use after boot (after a gc.collect: what stays allocated);
- heap allocated per second of a running clock, with no display (a Pico
  without an SSD1306), over a minute at the device's loop cadence (20 ms);
- heap allocated per press, everything included (the game log record, durable before
  the press is answered);
- the hot paths under micropython.heap_lock(), where any allocation raises:
  the loop's passes with a clock running (progress marks included), paused (a game started
  before its chunks were all made: a pause makes none), and idle once the next game's
  chunks are made; and the charge of a press (interrupt record, debounce, the core's
  press) with a listener that records nothing. "0" means no allocation at all;
- the quiet-time preparation of the next game's chunks under the lock (making a chunk
  allocates): how often it fails in 5 s, which the upkeep's back-off keeps to a few.

    python -m tools.bench.heap [--json]
"""

import json
import os
import subprocess
import sys
import tempfile

from goclock.unixport import micropython_binary, micropython_env

BOOT_BUDGET = 40 * 1024

DRIVER = r"""
import gc
import json
import sys

import micropython

gc.collect()
base = gc.mem_alloc()

# Each module's share: the heap its import keeps (bytecode, constants, tables).
modules = {}
for name in ("core.ticks core.timecontrol core.callplan core.gameclock events "
             "storage.logline storage.fs storage.netconfig storage.configcheck storage.configstore "
             "storage.chunks storage.journal "
             "protocol.lineread protocol.reqargs protocol.commands app.buttons app.commands "
             "app.gestures app.battery app.announcer app.outbuf app.hostline app.records "
             "app.replay app.upkeep app.wake board.base desktop.flash desktop.parts desktop.board "
             "app.session app.display app.loop").split():
    gc.collect()
    a = gc.mem_alloc()
    __import__("goclockfw." + name)
    gc.collect()
    modules[name] = gc.mem_alloc() - a

from goclockfw.desktop import board as desktop_board
from goclockfw.app.loop import Loop
from goclockfw.app.buttons import LEFT, RIGHT
from goclockfw.core.ticks import ticks_add, ticks_diff

board = desktop_board.make_board()
board.has_console = False  # a board without a display or a launcher to talk to
loop = Loop(board)
app = loop.session
gc.collect()
boot = gc.mem_alloc()

end = [0]


def vwait(ms):
    # Virtual time at the device's cadence: the loop's own wait, without printing.
    left = ticks_diff(end[0], board._now)
    step = ms if ms < left else left
    if step > 0:
        board._now = ticks_add(board._now, step)


board.wait = vwait


app_step = loop.step  # bound once: `loop.step` in the loop would allocate a method object


def run_for(ms, step=app_step):
    end[0] = ticks_add(board._now, ms)
    while ticks_diff(end[0], board._now) > 0:
        step()


def press(ch):
    board.keys.tap(ch, board._now)  # what the pin interrupt records
    run_for(200)


def locked(run):
    # 0 when run() allocates nothing under heap_lock, else "allocates" (and where).
    gc.collect()
    micropython.heap_lock()
    try:
        run()
        error = None
    except MemoryError as e:
        error = e
    finally:
        micropython.heap_unlock()
    if error is None:
        return 0
    sys.print_exception(error)
    return "allocates"


out = {"base": base, "boot": boot - base, "boot_total": boot, "modules": modules}
out["code"] = sum(modules.values())
press(RIGHT)  # White starts Black's clock
run_for(2000)
press(LEFT)
press(RIGHT)

# A minute of Black's clock running: loop passes, status checks, progress marks.
gc.collect()
gc.disable()
a0 = gc.mem_alloc()
run_for(60000)
out["per_second"] = (gc.mem_alloc() - a0) // 60
gc.enable()

# Presses, everything included.
gc.collect()
gc.disable()
a0 = gc.mem_alloc()
for i in range(20):
    press(LEFT if i % 2 == 0 else RIGHT)
out["per_press"] = (gc.mem_alloc() - a0) // 20
gc.enable()
out["moves"] = app.clock.moves_made

# The loop's passes under heap_lock, with a clock running and progress marks written
# (the spare chunks are ready first: no quiet-time flash work falls in the 5 s).
press(LEFT if app.clock.turn == 0 else RIGHT)
run_for(3000)
loop_step = loop._step  # the bound method is made here, not under the lock
out["tick_locked"] = locked(lambda: run_for(5000, loop_step))

# A paused clock's passes under heap_lock. This game started right after boot, before the
# chunks a game is given (SPARES_SETUP) were all ready: a pause does not make the rest
# (each is a file created through littlefs, which allocates; storage/journal.py _target).
j = app.journal
app.commands.pause()
spares = len(j.spares)
run_for(3000)  # the pause's clip, and quiet time
out["paused_locked"] = locked(lambda: run_for(5000, loop_step))
out["paused_spares"] = [spares, len(j.spares), j.setup_spares]  # at the pause, 8 s on, wanted


def locked_passes(ms):
    # Every pass under the lock, as the emulated Pico's probe runs them: (MemoryErrors, passes).
    end[0] = ticks_add(board._now, ms)
    errors = passes = 0
    while ticks_diff(end[0], board._now) > 0:
        passes += 1
        micropython.heap_lock()
        try:
            loop_step()
        except MemoryError:
            errors += 1
            board._now = ticks_add(board._now, 1)  # (the pass ended before its wait)
        finally:
            micropython.heap_unlock()
    return [errors, passes]


# A reset (of the paused game): the next game's chunks are prepared at quiet moments, and
# making one allocates. Under the lock each step fails; the upkeep backs off (1 s, 2 s, 4 s
# ...): [MemoryErrors, passes, the upkeep's failures in a row].
app.commands.reset()
run_for(1)  # the reset's own pass (its display and keyboard changes; the first step)
gc.collect()
out["setup_locked"] = locked_passes(5000) + [app.upkeep.failures]
run_for(60000)  # unlocked: the preparation done
out["idle_spares"] = [len(j.spares), j.setup_spares, j.wants_work(False)]
out["idle_locked"] = locked(lambda: run_for(5000, loop_step))

# The charge of a press under heap_lock: IRQ record, debounce, the core's press.
from goclockfw.core import gameclock
from goclockfw.app.buttons import Debouncer, EdgeRing
from goclockfw.core.timecontrol import parse


class Quiet:
    def on_clock(self, kind, side, tick, value):
        pass


clock = gameclock.GameClock(parse({"type": "byoyomi", "main": 0, "periods": 5, "period": 60}), Quiet())
ring = EdgeRing()
deb = Debouncer()
t = 1000
clock.start(t)
for i in range(4):  # warm up: each side's call table is built once
    t += 700
    clock.press(t, i % 2)


def charge(t, side):
    ring.put(side, t, 1)
    ring.drain(deb)
    deb.settle(side, 1, t + 15)
    if deb.pop():
        clock.advance(deb.tick)
        clock.press(deb.tick, side)
    ring.put(side, t + 80, 0)
    ring.drain(deb)
    deb.settle(side, 0, t + 100)
    deb.pop()


def forty_presses():
    global t
    for i in range(40):
        t += 1500
        charge(t, clock.turn)


out["press_locked"] = locked(forty_presses)
out["charged_moves"] = clock.moves_made
print(json.dumps(out))
"""


def measure():
    """Run the driver; its measurements as a dict."""
    with tempfile.TemporaryDirectory() as tmp:
        driver = os.path.join(tmp, "driver.py")
        with open(driver, "w") as f:
            f.write(DRIVER)
        r_keys, w_keys = os.pipe()  # keys that never come (and no end of them)
        env = dict(
            micropython_env(),
            GOCLOCK_FLASH=os.path.join(tmp, "flash"),
            GOCLOCK_VIRTUAL="1",
            GOCLOCK_VIEW="0",
            GOCLOCK_KEYS_FD=str(r_keys),
        )
        try:
            proc = subprocess.run(
                [micropython_binary() or "micropython", driver],
                env=env,
                pass_fds=(r_keys,),
                capture_output=True,
                timeout=300,
                check=False,
            )
        finally:
            os.close(r_keys)
            os.close(w_keys)
        if proc.returncode:
            raise SystemExit("driver failed:\n" + proc.stderr.decode() + proc.stdout.decode())
        return json.loads(proc.stdout.decode().strip().splitlines()[-1])


def main(argv):
    m = measure()
    if "--json" in argv:
        print(json.dumps(m))
        return 0
    top = sorted(m["modules"].items(), key=lambda kv: -kv[1])[:5]
    print(
        "heap (MicroPython unix port, 64-bit words: objects up to twice their size on a 32-bit board)"
    )
    print("  after boot:           %6d bytes in use (aim <= %d)" % (m["boot"], BOOT_BUDGET))
    print(
        "    module code         %6d bytes (%s)"
        % (m["code"], ", ".join("%s %d" % kv for kv in top))
    )
    print(
        "    everything else     %6d bytes (config, presets, buffers, voice table...)"
        % (m["boot"] - m["code"])
    )
    print(
        "  running clock:        %6d bytes allocated per second (progress marks included)"
        % m["per_second"]
    )
    print(
        "  per press:            %6d bytes allocated (the press's durable log record)"
        % m["per_press"]
    )
    print("  tick path, heap_lock: %6s bytes" % m["tick_locked"])
    print(
        "  press charge, locked: %6s bytes (interrupt record, debounce, core press)"
        % m["press_locked"]
    )
    print(
        "  paused, heap_lock:    %6s bytes (%d of %d chunks ready: none made in the pause)"
        % (m["paused_locked"], m["paused_spares"][1], m["paused_spares"][2])
    )
    errors, passes, _ = m["setup_locked"]
    print(
        "  chunk setup, locked:  %d MemoryErrors in %d passes of 5 s (the upkeep backs off)"
        % (errors, passes)
    )
    print("  idle, heap_lock:      %6s bytes (its chunks made)" % m["idle_locked"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
