"""The clock on the network (docs/hall.md): its figures, part of `make bench`.

1. Under the MicroPython unix port, the real firmware on the desktop board in virtual
   time: what a clock with no network pays (is anything of goclockfw.net imported; a
   running clock's loop pass, µs), what the hall's publisher takes once configured (heap),
   and the CPU (µs) and heap (bytes) of building one publish: an event, a state message,
   a log slice (the journal read included). The link is a fake that takes every byte:
   no socket, so only the building is measured.
2. On the chip models (desktop/chiplink.py, modelled socket costs): a game with the link
   stalled 10 s and dropped 30 s: the longest hall step, the longest loop pass, the
   cursor's flash work, the link's calls.

    python -m tools.bench.hall [--json]
"""

import json
import os
import subprocess
import sys
import tempfile

from goclock.unixport import micropython_binary, micropython_env

DRIVER = r"""
import gc
import json
import sys
import time

import micropython

from goclockfw.desktop import board as desktop_board
from goclockfw.app.loop import Loop
from goclockfw.app.buttons import LEFT, RIGHT
from goclockfw.core.ticks import ticks_add, ticks_diff

board = desktop_board.make_board()
board.has_console = False
end = [0]


def vwait(ms):
    left = ticks_diff(end[0], board._now)
    step = ms if ms < left else left
    if step > 0:
        board._now = ticks_add(board._now, step)


board.wait = vwait
loop = Loop(board)
app = loop.session
out = {"net_imported_without_network": "goclockfw.net.hall" in sys.modules}
loop_step = loop._step


def run_for(ms):
    end[0] = ticks_add(board._now, ms)
    while ticks_diff(end[0], board._now) > 0:
        loop_step()


def press(ch):
    board.keys.tap(ch, board._now)
    run_for(200)


def pass_us(n=3000):
    # A running clock's pass: the loop's own step, the clock at a fixed tick.
    end[0] = board._now
    t0 = time.ticks_us()
    for _ in range(n):
        loop_step()
    return time.ticks_diff(time.ticks_us(), t0) / n


press(RIGHT)
run_for(1500)
press(LEFT)
out["pass_us_no_network"] = pass_us()


class FakeLink:
    # Takes every byte at once, brings back one CONNACK: no socket.
    def __init__(self):
        self.sent = 0
        self.rx = b""

    def up(self, now):
        return True

    def resolve(self, host, port):
        return (host, port)

    def open(self, addr):
        pass

    def connected(self):
        return 1

    def send(self, data):
        if not self.sent:
            self.rx = b"\x20\x02\x00\x00"
        self.sent += len(data)
        return len(data)

    def recv_into(self, buf):
        if not self.rx:
            return None
        n = len(self.rx)
        buf[:n] = self.rx
        self.rx = b""
        return n

    def close(self):
        pass


link = FakeLink()
board.network = lambda wifi=None: link
gc.collect()
a0 = gc.mem_alloc()
import goclockfw.net.hall  # its code (compiled from .py here; frozen in flash on a chip)
gc.collect()
out["hall_code_heap"] = gc.mem_alloc() - a0
a0 = gc.mem_alloc()
press(LEFT if app.clock.turn == 0 else RIGHT)
app.commands.pause()  # a config change needs the clocks stopped
net = {"mqtt": {"host": "10.0.0.2", "port": 1883}, "hall": "club", "clock": "table-12"}
cfg = dict(app.store.config)
cfg["network"] = net
import goclockfw.storage.netconfig as nc
cfg["network"] = nc.network_field("network", net)
app.commands.set_config(cfg)
app.commands.resume()
run_for(200)
gc.collect()
out["hall_heap"] = gc.mem_alloc() - a0
h = app.hall
c = h.c
out["state"] = c.state
for i in range(6):
    press(LEFT if app.clock.turn == 0 else RIGHT)
run_for(2000)
out["pass_us_network_up"] = pass_us()


def measure(fn, n=200):
    gc.collect()
    gc.disable()
    a = gc.mem_alloc()
    t0 = time.ticks_us()
    for _ in range(n):
        c.out.head = c.out.used = 0
        fn()
    us = time.ticks_diff(time.ticks_us(), t0) / n
    alloc = (gc.mem_alloc() - a) // n
    gc.enable()
    return {"us": round(us, 1), "bytes": alloc}


clock = app.clock
tick = board._now
out["event"] = measure(lambda: h.clock_event(clock, "press", 0, 65000, tick, 1500, None, 7))
out["state_msg"] = measure(lambda: h._state(board._now))
g = app.journal.current


def one_slice():
    log = h.log
    log.flight = []
    log.g = g
    log.sent_off = 0
    log.sent_rec = 0
    log.caught_game = None
    log.step()


out["log_slice"] = measure(one_slice)


def locked(fn):
    c.out.head = c.out.used = 0
    gc.collect()
    micropython.heap_lock()
    try:
        fn()
        r = 0
    except MemoryError as e:
        r = "allocates"
        sys.print_exception(e)
    finally:
        micropython.heap_unlock()
    return r


fn = lambda: h.clock_event(clock, "press", 0, 65000, tick, 1500, None, 7)
fn()
out["event_locked"] = locked(fn)
print(json.dumps(out))
"""


def unix_port():
    with tempfile.TemporaryDirectory() as tmp:
        driver = os.path.join(tmp, "driver.py")
        with open(driver, "w") as f:
            f.write(DRIVER)
        r_keys, w_keys = os.pipe()
        env = dict(
            micropython_env(),
            GOCLOCK_FLASH=os.path.join(tmp, "flash"),
            GOCLOCK_VIRTUAL="1",
            GOCLOCK_KEYS_FD=str(r_keys),
            GOCLOCK_VIEW="0",
        )
        try:
            r = subprocess.run(
                [micropython_binary(), driver],
                capture_output=True,
                env=env,
                pass_fds=(r_keys,),
                timeout=300,
            )
        finally:
            os.close(r_keys)
            os.close(w_keys)
        if r.returncode != 0 or "--debug" in sys.argv:
            sys.stderr.write(r.stderr.decode()[-3000:] + r.stdout.decode()[-3000:])
        return json.loads(r.stdout.decode().strip().splitlines()[-1])


def chips():
    from tests.support.chipnet import networked_game

    out = {}
    for chip in ("rp2040", "esp32"):
        _, _, fig = networked_game(chip, 12)
        out[chip] = {
            k: fig[k]
            for k in (
                "hall_step_max_us",
                "hall_cursor_flash_max_us",
                "longest_pass_ms",
                "link_calls",
                "link_refused_sends",
                "link_longest_call_us",
                "connects",
                "drops",
                "broker_messages",
                "press_error_max_ms",
                "call_late_max_ms",
            )
        }
    return out


def main():
    res = {"unix_port": unix_port(), "chips": chips()}
    if "--json" in sys.argv:
        print(json.dumps(res, indent=1))
        return
    u = res["unix_port"]
    print("hall (docs/hall.md), the MicroPython unix port, virtual time:")
    print("  no network: goclockfw.net imported: %s" % u["net_imported_without_network"])
    print(
        "  a running clock's loop pass: %.1f us without a network, %.1f us with the hall up"
        % (u["pass_us_no_network"], u["pass_us_network_up"])
    )
    print(
        "  the hall's code imported: %d bytes of heap (from .py; frozen on a chip: less)"
        % u["hall_code_heap"]
    )
    print(
        "  the hall's publisher, configured (its buffers, topics, cursor): %d bytes of heap"
        % u["hall_heap"]
    )
    for k, name in (
        ("event", "an event"),
        ("state_msg", "a state message"),
        ("log_slice", "a log slice (journal read included)"),
    ):
        print("  building %s: %.1f us, %d bytes allocated" % (name, u[k]["us"], u[k]["bytes"]))
    print("  an event's publish under heap_lock: %s" % (u["event_locked"] or "no allocation"))
    print("chip models (modelled link costs), 12 moves, the link stalled 10 s, dropped 30 s:")
    for chip, f in res["chips"].items():
        print(
            "  %s: longest hall step %d us (its cursor write, flash: %d us), longest pass %.1f ms,"
            " %d link calls (%d sends refused while stalled, longest %d us), %d connects,"
            " %d drops, %d messages at the broker, presses %d ms off their edge, calls"
            " %d ms late"
            % (
                chip,
                f["hall_step_max_us"],
                f["hall_cursor_flash_max_us"],
                f["longest_pass_ms"],
                f["link_calls"],
                f["link_refused_sends"],
                f["link_longest_call_us"],
                f["connects"],
                f["drops"],
                f["broker_messages"],
                f["press_error_max_ms"],
                f["call_late_max_ms"],
            )
        )


if __name__ == "__main__":
    main()
