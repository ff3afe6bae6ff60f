"""Measure the firmware on the emulated Pico: per press, at idle, in flash. Prints a table.

Every figure is in emulated time (rp2040py counts cycles at 125 MHz), so a run gives the
same numbers on any machine; what they are worth against a real Pico: tools/rp2/README.md.

(a) CPU of one press through the application: `time.ticks_us()` on the chip from
    HostLine.feed taking the request to the reply (and any event it made) handed to the
    USB serial, the loop's sleeps in between left out (the test probe, goclock_probe.py),
    and, from outside, the request's latency (bytes handed to
    the chip -> reply back) with the cycles the chip executed meanwhile (reading the
    bytes, and the probe's own gc.mem_alloc() calls, ~8 ms each, fall in it).
(b) bytes allocated by it: gc.mem_alloc() growth over the same span (the probe collects
    right before each measured press).
(c) the idle loop's CPU share: executed cycles / elapsed cycles (the rest asleep in
    WFI/WFE) over `--seconds` of emulated time with no game, with a clock running, and
    paused; nothing sent to the chip meanwhile. A fresh flash's one-time preparation of
    the log's chunks is waited out first and reported apart.
(d) flash: sector erases and page programs in the storage region (rp2040py's SPI flash
    model, FlashCounter in emu.py), per press and per idle window.
(e) a period's start: the longest Session.step around the end of a byo-yomi period.
(f) a press on the button's GPIO: the longest Session.step meanwhile, its allocation.
(g) a loop pass: every pass of 3 s of a running clock under micropython.heap_lock()
    (MemoryErrors counted), then gc.mem_alloc() growth over 3 s more; each pass's own CPU
    (its sleep left out): the mean is a quiet pass.
(h) a host that stops reading for 2 s (watch on, a clock running): the longest write of
    the loop to the USB serial.
Also: (a) with `watch` on (the status and event lines a press sends), and the time of a
full gc.collect() with the firmware's heap as it is.

Each figure is printed with its target (issue 20) and whether it is met, for the .mpy
layout (as `goclock deploy` lays it out: the files in /lib, which the Pico moves into its
ROMFS partition at its first boot, goclockfw/inplace.py) and the frozen image, in turn
(`--layout` picks one; `all` adds the .mpy files in the plain image's ROMFS partition, as
`goclock deploy --romfs` lays them out: romfs.py).

`--time MODULE:FUNC` (repeatable) profiles a press instead: the probe times those
functions, and their calls and microseconds per press are printed.

    python -m tools.rp2.measure [--layout mpy|romfs|frozen|both|all] [--seconds 10] [--presses 6]
        [--image UF2] [--frozen-image UF2] [--time MODULE:FUNC ...]
"""

import argparse
import os
import sys
import tempfile
import time

from .. import ROOT as REPO
from . import build, client, emu, layout, romfs

# Long enough that nothing runs out while measuring: every press is an ordinary move.
TC = {"type": "byoyomi", "main": 3600, "periods": 5, "period": 30}


class Layout(list):
    """[(local, board path)] for the file system, and the ROMFS partition's image or None."""

    def __init__(self, files, rom=None):
        super().__init__(files)
        self.rom = rom

    def __add__(self, more):  # (files added to the file system: the ROMFS kept)
        return Layout(list(self) + list(more), self.rom)


def boot(image, files, extra=None):
    """The emulated Pico booted from `files` (a list, or a Layout with its ROMFS image) and
    the probe's (or `extra`'s) files."""
    rom = files.rom if isinstance(files, Layout) else None
    with tempfile.TemporaryDirectory() as tmp:
        layout.lay_out(list(files) + (layout.probe_files() if extra is None else extra), tmp)
        pico = emu.Pico(image, emu.make_fs(tmp), romfs=rom)
    return pico, client.Session(pico)


def stack(image, files, presses=6, log=print):
    """The C stack's deepest use, with nothing of the probe's wrapped around the firmware
    (stack_boot.py): a first boot and its chunks made, a game started and pressed over
    serial (with `watch` on too) and on the pins, a pause and a resume, a byo-yomi game's
    period ended, status and logs.list; `stack` then reads the deepest since boot."""
    pico, s = boot(image, files, layout.stack_files())
    s.wait_ready(timeout=60)
    wait_prepared(pico, s)
    s.request("config.set", config={"time_control": TC})
    s.request("reset")
    wait_prepared(pico, s)
    s.request("press", side="white")  # the game's first press: its "game" record
    s.run_for(1.0)
    side = "black"
    for i in range(presses):
        if i == presses // 2:
            s.request("watch", on=True)
        s.request("press", side=side)
        side = "white" if side == "black" else "black"
        s.run_for(0.5)
    s.request("watch", on=False)
    for _ in range(2):  # on the pins (pin_press's tap, without the probe's step timing)
        tap_pin(pico, s, s.request("status")["turn"])
    for cmd in ("pause", "resume"):
        s.request(cmd)
        s.run_for(1.0)  # said
    s.request("status")
    s.request("logs.list")
    s.request("pause")
    s.run_for(1.0)
    s.request("config.set", config={"time_control": PERIOD_TC})
    s.request("reset")
    s.request("press", side="white")
    s.run_for(13.0)
    st = s.request("status")
    if st["black"]["periods"] != 2:
        raise SystemExit("the period did not end: %s" % st)
    return {"stack_max": s.request("stack")["stack_max"], "noise": s.noise}


def idle_window(pico, s, seconds):
    """CPU share and flash operations over `seconds` with nothing sent to the chip."""
    f0 = pico.flash.snapshot()
    n0, c0 = pico.now_ns, pico.busy_cycles
    s.run_for(seconds)
    f1 = pico.flash.snapshot()
    share = (pico.busy_cycles - c0) * emu.NS_PER_CYCLE / (pico.now_ns - n0)
    return {
        "cpu": share,
        "erases": f1["erases"] - f0["erases"],
        "programs": f1["programs"] - f0["programs"],
    }


BUTTON_PINS = (14, 15)  # boards/pico.json: left (Black, as configured), right (White)


def tap_pin(pico, s, turn, hold=0.1, settle=0.4):
    """The button of `turn` ("black" or "white") pressed on its GPIO for `hold` s, then
    `settle` s more (emulated)."""
    pin = pico.mcu.gpio[BUTTON_PINS[0 if turn == "black" else 1]]
    pin.set_input_value(False)  # the pins pull up: pressed reads 0
    s.run_for(hold)
    pin.set_input_value(True)
    s.run_for(settle)


def pin_press(pico, s, hold=0.1, settle=0.4):
    """The button of the side to move, pressed on its GPIO (its PIO edge timer, the
    debouncer, the session): the longest Session.step meanwhile, which is the one that
    takes the press, and what it allocated."""
    turn = s.request("status")["turn"]
    s.request("probe", step_alloc=True)  # collects the heap, drops the longest step so far
    f0 = pico.flash.snapshot()
    tap_pin(pico, s, turn, hold, settle)
    f1 = pico.flash.snapshot()
    p = s.request("probe", step_alloc=False)
    if s.request("status")["turn"] == turn:
        raise SystemExit("the press on the pin was not taken")
    s.run_for(0.5)
    return {
        "us": p["max_step_us"],
        "alloc": p["max_step_alloc"],
        "erases": f1["erases"] - f0["erases"],
        "programs": f1["programs"] - f0["programs"],
    }


def one_press(pico, s, side, settle=0.3):
    """The press of `side`, measured; `settle` s after the reply count for its flash writes."""
    s.request("probe")  # collects the heap: the press's allocations stand alone
    f0 = pico.flash.snapshot()
    rid = s.send("press", side=side)
    reply = s.reply(rid)
    if not reply.get("accepted"):
        raise SystemExit("press %s refused: %s" % (side, reply))
    t_in, c_in = pico.delivered
    latency_us = (pico.now_ns - t_in) / 1000
    busy_us = (pico.busy_cycles - c_in) * emu.NS_PER_CYCLE / 1000
    s.run_for(settle)
    f1 = pico.flash.snapshot()
    p = s.request("probe")
    return {
        "us": p["last_cpu_us"],
        "elapsed_us": p["last_us"],
        "alloc": p["last_alloc"],
        "latency_us": latency_us,
        "busy_us": busy_us,
        "erases": f1["erases"] - f0["erases"],
        "programs": f1["programs"] - f0["programs"],
        "passes": p["last_passes"],
    }


# The gaps between presses, in turn (after each press's 0.3 s settle): a quick one, and
# one long enough for a progress mark before the next press (MARK_MS in storage/journal.py:
# 1.5 s of running clock after the last record), as most moves of a real game come.
PRESS_GAPS = (0.5, 1.7)


def press_series(pico, s, side, presses, out):
    """`presses` presses over serial, the sides in turn from `side`, each measured into
    `out` with the gap before it (`gap_s`, None for the first: the caller's); every other
    one after a progress mark. Returns the side to press next."""
    for i in range(presses):
        gap = PRESS_GAPS[i % 2] if i else None
        if gap:
            s.run_for(gap)
        press = one_press(pico, s, side)
        press["gap_s"] = gap
        out.append(press)
        side = "white" if side == "black" else "black"
    s.run_for(PRESS_GAPS[0])
    return side


def presses_only(image, files, presses=6, log=print):
    """(a) and (b) alone, with and without `watch`, after the first boot's preparation:
    the quick loop for work on a press's cost (`--press`)."""
    pico, s = boot(image, files)
    s.wait_ready(timeout=60)
    wait_prepared(pico, s)
    s.request("config.set", config={"time_control": TC})
    s.request("reset")
    wait_prepared(pico, s)
    s.request("press", side="white")
    s.run_for(1.0)
    out = {}
    side = "black"
    for watch in (False, True):
        if watch:
            s.request("watch", on=True)
            s.run_for(1.5)
        got = out["watch_presses" if watch else "presses"] = []
        side = press_series(pico, s, side, presses, got)
        log(
            "%s: %s"
            % (
                "watch on" if watch else "presses",
                ", ".join("%d us %d B %d passes" % (p["us"], p["alloc"], p["passes"]) for p in got),
            )
        )
    return out


LOOP_WINDOW_MS = 3000


def pass_windows(s):
    """(g): a heap-locked window of passes, then an allocation window (a clock runs)."""
    out = {}
    for mode in ("lock", "alloc"):
        s.request("probe", **{mode + "_ms": LOOP_WINDOW_MS})
        s.run_for(LOOP_WINDOW_MS / 1000 + 2.2)  # it starts and ends with a pass
        p = s.request("probe")
        out[mode] = p["window"]
        if mode == "lock":
            out["lock_trace"] = p["lock_trace"]
    return out


def host_stops(pico, s, seconds=2.0):
    """(h): watch on, a clock running, the host reads nothing for `seconds`: the longest
    write of the loop to the USB serial meanwhile."""
    s.request("watch", on=True)
    s.run_for(0.5)
    s.request("probe")  # the longest write counted from here
    pico.host_reads(False)
    rid = s.send("status")
    s.run_for(seconds)
    pico.host_reads(True)
    s.reply(rid, timeout=5.0)
    p = s.request("probe")
    s.request("watch", on=False)
    s.run_for(0.5)
    return {"us": p["max_send_us"]}


def wait_prepared(pico, s, limit=90):
    """Run until two seconds in a row erase nothing (the chunks' preparation is over)."""
    quiet = 0
    for _ in range(limit):
        e0 = pico.flash.snapshot()["erases"]
        s.run_for(1.0)
        quiet = quiet + 1 if pico.flash.snapshot()["erases"] == e0 else 0
        if quiet >= 2:
            return


def measure(image, files, seconds=10.0, presses=6, log=print):
    pico, s = boot(image, files)
    wall = time.monotonic()
    s.wait_ready(timeout=60)
    out = {"boot_s": pico.now_s}
    p0 = s.request("probe")
    out["heap_after_boot"] = p0["mem_free"]
    out["probe_bytes"] = p0["probe_bytes"]  # the probe's own heap: a deployed clock has none
    # A fresh flash: the firmware prepares its log's chunks (SPARES_SETUP of them, once per
    # flash, at quiet moments) before the first game. Counted from power-on (the boot's own
    # writes included) to the last erase, apart from the idle figures.
    log("booted in %.2f emulated s; preparing the log's chunks ..." % out["boot_s"])
    wait_prepared(pico, s)
    f = pico.flash.snapshot()
    out["setup"] = {"erases": f["erases"], "programs": f["programs"], "s": pico.now_s}
    s.request("config.set", config={"time_control": TC})
    s.request("reset")
    wait_prepared(pico, s)  # the reset is said first (0.8 s), its erases wait for quiet
    log("idle, no game, %g s ..." % seconds)
    out["idle"] = idle_window(pico, s, seconds)
    s.request("press", side="white")  # Black's clock starts
    s.run_for(1.0)
    log("%d presses ..." % presses)
    out["presses"] = []
    side = press_series(pico, s, "black", presses, out["presses"])
    p = in_game(s)
    out["heap_in_game"] = p["mem_free"]
    out["gc_us"] = p["gc_us"]
    log("%d presses with watch on ..." % presses)
    s.request("watch", on=True)
    s.run_for(1.5)
    out["watch_presses"] = []
    press_series(pico, s, side, presses, out["watch_presses"])
    s.request("watch", on=False)
    s.run_for(0.5)
    log("loop passes under heap_lock, then their allocation ...")
    out["passes"] = pass_windows(s)
    log("a host that stops reading for 2 s ...")
    out["host_stops"] = host_stops(pico, s)
    log("%d presses of the buttons' pins ..." % presses)
    out["pin_presses"] = [pin_press(pico, s) for _ in range(presses)]
    log("clock running, %g s ..." % seconds)
    out["running"] = idle_window(pico, s, seconds)
    s.request("pause")
    s.run_for(1.0)  # the pause is said (暂停, 0.5 s): the paused figure is the quiet loop's
    log("paused, %g s ..." % seconds)
    out["paused"] = idle_window(pico, s, seconds)
    out["period"] = period_start(pico, s)
    out["stack_probe"] = s.request("probe")["stack_max"]  # since boot, the probe's levels in
    log("the C stack, without the probe ...")
    out["stack_max"] = stack(image, files)["stack_max"]
    log("the heap of a deployed clock, without the probe ...")
    out.update(deployed_heap(image, files))
    out["emulated_s"] = pico.now_s
    out["wall_s"] = time.monotonic() - wall
    out["noise"] = s.noise
    return out


def in_game(s):
    """The heap of a game under way, as the commands of every game leave it: after the
    caller's presses, a pause and a resume (each said at the board), a status and a
    logs.list; the probe's reply (its `mem_free` after a gc.collect()). What a boot leaves
    to be imported on first use is counted here."""
    game_requests(s)
    return s.request("probe")


def game_requests(s):
    """The commands of every game: a pause and a resume (each said at the board), a status
    and a logs.list."""
    s.request("pause")
    s.run_for(1.0)  # 暂停 said
    s.request("resume")
    s.run_for(1.0)  # 继续 said
    s.request("status")
    s.request("logs.list")
    s.run_for(0.5)


def deployed_heap(image, files, presses=4, chunks_folder=None, chunks=0):
    """The heap of a deployed clock, nothing of the probe's on the chip (no /boot.py of
    ours): `info`'s `ram_free` (the firmware's own gc.collect() and gc.mem_free()), at the
    first `info` after boot, then after the heap run's game (TC set, `presses` presses,
    then what `in_game` asks, `info` last). Each figure includes what that `info` holds
    while it answers (its reply being built, the clock id's module): a little under what is
    free. These are the heap targets' figures; the probe's own are shown beside them."""
    extra = log_chunks(chunks, chunks_folder) if chunks else []
    pico, s = boot(image, files + extra, [])
    after_boot = s.wait_ready(timeout=60)["ram_free"]
    game_started(s, presses)
    game_requests(s)
    return {"deployed_after_boot": after_boot, "deployed_in_game": s.request("info")["ram_free"]}


def game_started(s, presses):
    """The heap runs' game: TC set, a reset, White's press starting Black's clock, then
    `presses` presses half a second apart."""
    s.request("config.set", config={"time_control": TC})
    s.request("reset")
    s.request("press", side="white")  # Black's clock starts
    s.run_for(1.0)
    side = "black"
    for _ in range(presses):
        s.request("press", side=side)
        side = "white" if side == "black" else "black"
        s.run_for(0.5)


def log_chunks(n, folder):
    """[(file, board path)] of `n` blank log chunks (/logs/<16 hex digits>: a header and an
    erased block, storage/chunks.py), as a clock that has played many games holds: spares
    to the journal. The heap with them is the heap of a clock whose flash is full of logs."""
    out = []
    for i in range(n):
        name = "%016x" % (0x6C0C0000 + i)
        path = os.path.join(folder, name)
        with open(path, "wb") as f:
            head = b"GCJ1 " + name.encode() + b"\n"
            f.write(head + b"\xff" * (4096 - len(head)))
        out.append((path, "/logs/" + name))
    return out


def heap(image, files, presses=4, chunks=0, log=print):
    """The heap figures alone: free after boot (with the probe's own), then in a game
    (TC set, `presses` presses, then `in_game`); with `chunks` log chunks on the flash."""
    with tempfile.TemporaryDirectory(prefix="goclock-chunks-") as folder:
        pico, s = boot(image, files + log_chunks(chunks, folder))
    s.wait_ready(timeout=60)
    p0 = s.request("probe")
    log("booted in %.2f emulated s; a game ..." % pico.now_s)
    game_started(s, presses)
    p = in_game(s)
    out = {
        "heap_after_boot": p0["mem_free"],
        "probe_bytes": p0["probe_bytes"],
        "heap_in_game": p["mem_free"],
        "gc_us": p["gc_us"],
        "noise": s.noise,
    }
    log("the heap of a deployed clock, without the probe ...")
    with tempfile.TemporaryDirectory(prefix="goclock-chunks-") as folder:
        out.update(deployed_heap(image, files, presses, folder, chunks))
    return out


def profile(image, files, specs, presses=6, log=print):
    """Where a press's time goes: the probe times the functions `specs` name (see
    goclock_probe.py) over `presses` presses; {name: (calls, us)} per press, averaged."""
    pico, s = boot(image, files)
    s.wait_ready(timeout=60)
    s.request("config.set", config={"time_control": TC})
    s.request("reset")
    s.request("press", side="white")
    s.run_for(1.0)
    specs = list(specs)
    for k in range(0, len(specs), 8):  # a request line holds 1024 bytes at most
        s.request("probe", time=specs[k : k + 8])
    total = {}
    side = "black"
    us = []
    for _ in range(presses):
        s.request("probe")  # sections since the last probe dropped; the heap collected
        s.request("press", side=side)
        p = s.request("probe")
        us.append(p["last_us"])
        for name, (calls, t) in p["sections"].items():
            c0, t0 = total.get(name, (0, 0))
            total[name] = (c0 + calls, t0 + t)
        side = "white" if side == "black" else "black"
        s.run_for(0.5)
    log("press (with the timers in): median %d us" % _median(us))
    return {k: (c / presses, t / presses) for k, (c, t) in total.items()}


# Byo-yomi with a short main time: Black's first period ends 12 s after the start.
PERIOD_TC = {"type": "byoyomi", "main": 2, "periods": 3, "period": 10}


def period_start(pico, s):
    """The longest Session.step around the end of Black's first period (the period event,
    its record and call): the probe's max_step_us over the second around it."""
    s.request("config.set", config={"time_control": PERIOD_TC})
    s.request("reset")
    s.request("probe", step_what=True)  # what the longest step did (max_step_what)
    s.request("press", side="white")  # Black's clock starts: the period ends 12 s later
    start = pico.now_s
    s.run_for(11.5 - (pico.now_s - start))
    f0 = pico.flash.snapshot()
    s.request("probe")
    s.run_for(1.0)
    p = s.request("probe", step_what=False)
    f1 = pico.flash.snapshot()
    st = s.request("status")
    if st["black"]["periods"] != 2:
        raise SystemExit("the period did not end in the window: %s" % st)
    return {
        "us": p["max_step_us"],
        "what": p.get("max_step_what"),
        "erases": f1["erases"] - f0["erases"],
        "programs": f1["programs"] - f0["programs"],
    }


def _median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


KB = 1024
STACK_BYTES = 8 * 1024
# The targets (issue 20), by layout where they differ: (limit, "max" or "min").
TARGETS = {
    # (.mpy files in the ROMFS partition are .mpy files: the .mpy target)
    "heap_after_boot": {
        "mpy": (160 * KB, "min"),
        "romfs": (160 * KB, "min"),
        "frozen": (200 * KB, "min"),
    },
    "heap_in_game": {
        "mpy": (160 * KB, "min"),
        "romfs": (160 * KB, "min"),
        "frozen": (200 * KB, "min"),
    },
    "press_us": (3000, "max"),
    "press_alloc": (256, "max"),
    "watch_press_us": (5000, "max"),
    "pin_step_us": (2000, "max"),
    "period_us": (2000, "max"),
    # The RP2040's main stack is 8 KB, right above the GC heap's end (goclock_probe.py): a
    # kilobyte left for what an interrupt handler pushes on top of the deepest Python call.
    "stack_max": (STACK_BYTES - 1024, "max"),
    "pass_lock_errors": (0, "max"),
    "pass_alloc": (0, "max"),
    "usb_write_us": (5000, "max"),
}


def figures_heap(r):
    """{key: (value, shown)} of the heap figures: a deployed clock's (`deployed_heap`, no
    probe on the chip), the probe run's beside them (the probe's own import counted in,
    and what it is)."""
    return {
        "heap_after_boot": (
            r["deployed_after_boot"],
            "%d B deployed (with the probe %d B, its own %d B)"
            % (r["deployed_after_boot"], r["heap_after_boot"], r["probe_bytes"]),
        ),
        "heap_in_game": (
            r["deployed_in_game"],
            "%d B deployed (with the probe %d B)" % (r["deployed_in_game"], r["heap_in_game"]),
        ),
    }


def _spread(xs, unit):
    return "median %d %s, max %d" % (_median(xs), unit, max(xs))


def _after_mark(presses):
    """The "after a mark max N us" part: the presses a progress mark came before."""
    after = [p["us"] for p in presses if p.get("gap_s") == PRESS_GAPS[1]]
    return "; after a mark max %d us" % max(after) if after else ""


def figures_press(r):
    """{key: (value, shown)} of the presses over serial, with and without `watch`."""
    ps, ws = r["presses"], r["watch_presses"]
    return {
        "press_us": (
            max(p["us"] for p in ps),
            _spread([p["us"] for p in ps], "us")
            + _after_mark(ps)
            + "; %d-%d passes" % (min(p["passes"] for p in ps), max(p["passes"] for p in ps)),
        ),
        "press_alloc": (max(p["alloc"] for p in ps), _spread([p["alloc"] for p in ps], "B")),
        "watch_press_us": (
            max(p["us"] for p in ws),
            _spread([p["us"] for p in ws], "us")
            + _after_mark(ws)
            + "; elapsed median %d us" % _median([p["elapsed_us"] for p in ws])
            + "; %d-%d passes" % (min(p["passes"] for p in ws), max(p["passes"] for p in ws)),
        ),
        "watch_press_alloc": (max(p["alloc"] for p in ws), _spread([p["alloc"] for p in ws], "B")),
    }


def figures(r):
    """{key: (value, shown)}: what the table prints, from one layout's measurement."""
    ps, pins = r["presses"], r["pin_presses"]
    g = r["passes"]
    spread = _spread
    work = g["alloc"]["work_us"] + g["lock"]["work_us"]
    passes = g["alloc"]["passes"] + g["lock"]["passes"]
    out = {
        "boot_s": (r["boot_s"], "%.3f emulated s" % r["boot_s"]),
        "latency": (
            _median([p["latency_us"] for p in ps]),
            "median %d us (chip busy %d us of it)"
            % (_median([p["latency_us"] for p in ps]), _median([p["busy_us"] for p in ps])),
        ),
        "pin_step_us": (
            max(p["us"] for p in pins),
            spread([p["us"] for p in pins], "us")
            + "; allocation median %d B" % _median([p["alloc"] for p in pins]),
        ),
        "period_us": (
            r["period"]["us"],
            "%d us (flash around it: %d erases, %d programs; what the step did, the"
            " probe's `_what`: %s)"
            % (
                r["period"]["us"],
                r["period"]["erases"],
                r["period"]["programs"],
                r["period"]["what"],
            ),
        ),
        "pass_lock_errors": (
            g["lock"]["errors"],
            "%d MemoryErrors in %d passes" % (g["lock"]["errors"], g["lock"]["passes"]),
        ),
        "pass_alloc": (
            g["alloc"]["alloc"],
            "%d B over %d passes" % (g["alloc"]["alloc"], g["alloc"]["passes"]),
        ),
        "quiet_pass_us": (
            work // max(1, passes),
            "mean %d us, longest %d us (%d passes)"
            % (
                work // max(1, passes),
                max(g["alloc"]["max_work_us"], g["lock"]["max_work_us"]),
                passes,
            ),
        ),
        "usb_write_us": (r["host_stops"]["us"], "%d us" % r["host_stops"]["us"]),
        "gc_us": (r["gc_us"], "%d us" % r["gc_us"]),
        "stack_max": (
            r["stack_max"],
            "%d B of the %d B stack (%d B with the probe's wrappers)"
            % (r["stack_max"], STACK_BYTES, r["stack_probe"]),
        ),
        "setup": (
            r["setup"]["erases"],
            "%d erases, %d page programs, from power-on, done by %.0f s"
            % (r["setup"]["erases"], r["setup"]["programs"], r["setup"]["s"]),
        ),
        "idle": (
            r["idle"]["cpu"],
            "%.1f / %.1f / %.1f %%"
            % tuple(100 * r[k]["cpu"] for k in ("idle", "running", "paused")),
        ),
        "flash_press": (
            0,
            "mean %.1f erases, %.1f programs"
            % (
                sum(p["erases"] for p in ps) / len(ps),
                sum(p["programs"] for p in ps) / len(ps),
            ),
        ),
        "flash_idle": (
            0,
            ", ".join(
                "%d/%d" % (r[k]["erases"], r[k]["programs"]) for k in ("idle", "running", "paused")
            ),
        ),
    }
    out.update(figures_press(r))
    out.update(figures_heap(r))
    return out


ROWS = (
    ("boot_s", "boot to the first reply"),
    ("heap_after_boot", "heap free after boot (info's ram_free)"),
    ("heap_in_game", "heap free in a game (presses, pause/resume, status, logs.list)"),
    ("press_us", "(a) a press over serial: CPU, feed -> reply out"),
    ("latency", "    its latency, bytes in -> reply out"),
    ("press_alloc", "(b) a press over serial: allocation"),
    ("watch_press_us", "(a) with watch on: CPU, to the last event out"),
    ("watch_press_alloc", "(b) the same with watch on: allocation"),
    ("pin_step_us", "(f) a press on the pin: its longest step"),
    ("period_us", "(e) a period's start: the longest step"),
    ("pass_lock_errors", "(g) loop passes under heap_lock (clock running)"),
    ("pass_alloc", "(g) loop passes: gc.mem_alloc growth, 3 s"),
    ("quiet_pass_us", "(g) a quiet pass: its own CPU"),
    ("usb_write_us", "(h) longest USB write, host stopped 2 s"),
    ("gc_us", "a full gc.collect() in a game"),
    ("stack_max", "C stack: its deepest use, without the probe"),
    ("setup", "first boot: the log's chunks prepared"),
    ("idle", "(c) idle CPU: no game / running / paused"),
    ("flash_press", "(d) flash per press"),
    ("flash_idle", "(d) flash per 10 s: no game, running, paused"),
)


def target_of(key, kind):
    t = TARGETS.get(key)
    if isinstance(t, dict):
        t = t[kind]
    return t


def verdict(value, target):
    limit, kind = target
    ok = value <= limit if kind == "max" else value >= limit
    return ("<= " if kind == "max" else ">= ") + "%d" % limit, "met" if ok else "MISSED"


def report(results):
    """Print each figure for each layout measured, with its target and verdict; the count
    of targets missed."""
    missed = 0
    for label, kind, r in results:
        f = figures(r)
        print("\n%s" % label)
        for key, what in ROWS:
            value, shown = f[key]
            t = target_of(key, kind)
            if t is None:
                print("  %-50s %s" % (what, shown))
                continue
            limit, ok = verdict(value, t)
            missed += ok != "met"
            print("  %-50s %s  [target %s: %s]" % (what, shown, limit, ok))
        print("  (%.1f emulated s in %.0f wall s)" % (r["emulated_s"], r["wall_s"]))
        if r["passes"].get("lock_trace"):
            print("  a locked pass allocated at: %s" % r["passes"]["lock_trace"].strip())
        if r["noise"]:
            print("  chip printed: %s" % r["noise"][:5])
    print("\n%d target(s) missed" % missed)
    return missed


def main(argv=None):
    args = _parser().parse_args(argv)
    runs = _runs(args)
    for wanted, only in (
        (args.heap, _only_heap),
        (args.stack, _only_stack),
        (args.period, _only_period),
        (args.press, _only_press),
        (args.time, _only_time),
    ):
        if wanted:
            return only(runs, args)
    results = []
    for kind, image, files, label in runs:
        print("measuring the %s ..." % label, file=sys.stderr)
        r = measure(
            image, files, args.seconds, args.presses, log=lambda m: print(m, file=sys.stderr)
        )
        results.append(("%s, %s" % (label, os.path.basename(image)), kind, r))
    report(results)
    return 0


def _parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--layout",
        choices=("mpy", "romfs", "frozen", "both", "all"),
        default="both",
        help="both: mpy and frozen; all: the three (romfs: the .mpy files in the plain "
        "image's ROMFS partition)",
    )
    ap.add_argument("--frozen", action="store_true", help="the same as --layout frozen")
    ap.add_argument("--image", help="plain UF2 (default: $GOCLOCK_RP2_IMAGE, else build.py's)")
    ap.add_argument(
        "--frozen-image", help="frozen UF2 (default: $GOCLOCK_RP2_FROZEN_IMAGE, else build.py's)"
    )
    ap.add_argument("--seconds", type=float, default=10.0, help="emulated s per idle window")
    ap.add_argument("--presses", type=int, default=6)
    ap.add_argument(
        "--heap", action="store_true", help="only the heap figures: after boot and in a game"
    )
    ap.add_argument(
        "--chunks", type=int, default=0, help="with --heap: this many log chunks on the flash"
    )
    ap.add_argument(
        "--stack", action="store_true", help="only the C stack's deepest use (its own run)"
    )
    ap.add_argument(
        "--period", action="store_true", help="only (e), a period's start, after the first boot"
    )
    ap.add_argument(
        "--press", action="store_true", help="only (a) and (b), presses with and without watch"
    )
    ap.add_argument(
        "--time",
        action="append",
        metavar="MODULE:FUNC",
        help="profile a press instead: time this function (module:Class.method), repeatable",
    )
    return ap


def _runs(args):
    """[(layout, image, files, label)] of the layouts asked for."""
    layouts = ("frozen",) if args.frozen else ("mpy", "frozen")
    if args.layout == "all" and not args.frozen:
        layouts = ("mpy", "romfs", "frozen")
    elif args.layout != "both" and not args.frozen:
        layouts = (args.layout,)
    runs = []
    for kind in layouts:
        if kind == "frozen":
            image = args.frozen_image or os.environ.get("GOCLOCK_RP2_FROZEN_IMAGE")
            image = image or build.build(os.path.join(REPO, "boards", "manifest.py"))
            files, label = layout_files("frozen"), "frozen image (main.py on the storage)"
        elif kind == "romfs":
            image = args.image or os.environ.get("GOCLOCK_RP2_IMAGE") or build.build()
            files = layout_files("romfs")
            label = ".mpy files in the ROMFS partition (as goclock deploy --romfs)"
        else:
            image = args.image or os.environ.get("GOCLOCK_RP2_IMAGE") or build.build()
            files = layout_files("mpy")
            label = ".mpy files in /lib (as goclock deploy; the Pico moves them into ROMFS)"
        runs.append((kind, image, files, label))
    return runs


def _only_heap(runs, args):
    missed = 0
    for kind, image, files, label in runs:
        print("measuring the heap, %s ..." % label, file=sys.stderr)
        r = heap(image, files, chunks=args.chunks, log=lambda m: print(m, file=sys.stderr))
        print("\n%s, %s" % (label, os.path.basename(image)))
        if args.chunks:
            print("  (%d log chunks on the flash)" % args.chunks)
        f = figures_heap(r)
        for key, what in ROWS:
            if key in f:
                value, shown = f[key]
                limit, ok = verdict(value, target_of(key, kind))
                missed += ok != "met"
                print("  %-50s %s  [target %s: %s]" % (what, shown, limit, ok))
        print("  %-50s %d us" % ("a full gc.collect() in a game", r["gc_us"]))
        if r["noise"]:
            print("  chip printed: %s" % r["noise"][:5])
    print("\n%d target(s) missed" % missed)
    return 0


def _only_stack(runs, args):
    for kind, image, files, label in runs:
        r = stack(image, files)
        limit, ok = verdict(r["stack_max"], target_of("stack_max", kind))
        print(
            "%s: the C stack's deepest use: %d B  [target %s: %s]"
            % (label, r["stack_max"], limit, ok)
        )
    return 0


def _only_period(runs, args):
    for kind, image, files, label in runs:
        pico, s = boot(image, files)
        s.wait_ready(timeout=60)
        wait_prepared(pico, s)
        r = period_start(pico, s)
        limit, ok = verdict(r["us"], target_of("period_us", kind))
        print(
            "%s: (e) a period's start, the longest step: %d us (%d erases, %d programs)"
            "  [target %s: %s]" % (label, r["us"], r["erases"], r["programs"], limit, ok)
        )
        print("  that step (goclock_probe.py `_what`): %s" % (r["what"],))
    return 0


def _only_press(runs, args):
    for kind, image, files, label in runs:
        print(label)
        r = presses_only(image, files, args.presses)
        for key in ("press_us", "press_alloc", "watch_press_us", "watch_press_alloc"):
            value, shown = figures_press(r)[key]
            target = target_of(key, kind)
            if target is None:
                print("  %-20s %s" % (key, shown))
                continue
            limit, ok = verdict(value, target)
            print("  %-20s %s  [target %s: %s]" % (key, shown, limit, ok))
    return 0


def _only_time(runs, args):
    _kind, image, files, _label = runs[0]
    r = profile(image, files, args.time, args.presses)
    for name in args.time:
        calls, us = r.get(name, (0, 0))
        print("  %-64s %5.1f calls %8.0f us" % (name, calls, us))
    return 0


def layout_files(kind):
    if kind == "frozen":
        return layout.frozen_firmware_files()
    if kind == "romfs":
        return Layout(*romfs.layout(layout.firmware_files()))
    return layout.firmware_files()


if __name__ == "__main__":
    sys.exit(main())
