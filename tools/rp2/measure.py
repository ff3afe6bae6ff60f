"""Measure the firmware on the emulated Pico: per press, at idle, in flash. Prints a table.

Every figure is in emulated time (rp2040py counts cycles at 125 MHz), so a run gives the
same numbers on any machine; what they are worth against a real Pico: tools/rp2/README.md.

(a) CPU of one press through the application: `time.ticks_us()` on the chip from
    HostLine.feed taking the request to the reply handed to the USB serial (the test
    probe, goclock_probe.py), and, from outside, the request's latency (bytes handed to
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

`--time MODULE:FUNC` (repeatable) profiles a press instead: the probe times those
functions, and their calls and microseconds per press are printed.

    python -m tools.rp2.measure [--image UF2] [--frozen] [--seconds 10] [--presses 6]
        [--time MODULE:FUNC ...]
"""

import argparse
import os
import sys
import tempfile
import time

from .. import ROOT as REPO
from . import build, client, emu, layout

# Long enough that nothing runs out while measuring: every press is an ordinary move.
TC = {"type": "byoyomi", "main": 3600, "periods": 5, "period": 30}


def boot(image, files):
    with tempfile.TemporaryDirectory() as tmp:
        layout.lay_out(files + layout.probe_files(), tmp)
        pico = emu.Pico(image, emu.make_fs(tmp))
    return pico, client.Session(pico)


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


def pin_press(pico, s, hold=0.1, settle=0.4):
    """The button of the side to move, pressed on its GPIO (its PIO edge timer, the
    debouncer, the session): the longest Session.step meanwhile, which is the one that
    takes the press, and what it allocated."""
    turn = s.request("status")["turn"]
    pin = pico.mcu.gpio[BUTTON_PINS[0 if turn == "black" else 1]]
    s.request("probe", step_alloc=True)  # collects the heap, drops the longest step so far
    f0 = pico.flash.snapshot()
    pin.set_input_value(False)  # the pins pull up: pressed reads 0
    s.run_for(hold)
    pin.set_input_value(True)
    s.run_for(settle)
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
        "us": p["last_us"],
        "alloc": p["last_alloc"],
        "latency_us": latency_us,
        "busy_us": busy_us,
        "erases": f1["erases"] - f0["erases"],
        "programs": f1["programs"] - f0["programs"],
    }


def measure(image, files, seconds=10.0, presses=6, log=print):
    pico, s = boot(image, files)
    wall = time.monotonic()
    s.wait_ready(timeout=60)
    out = {"boot_s": pico.now_s}
    out["heap_after_boot"] = s.request("probe")["mem_free"]
    s.request("config.set", config={"time_control": TC})
    s.request("reset")
    # A fresh flash: the firmware prepares its log chunks (SPARES_SETUP erases, once per
    # flash, at quiet moments) before the first game. Counted apart from the idle figure.
    # The first window is 2 s: the reset is said first (重新开局, 0.8 s), the erases wait.
    log("booted in %.2f emulated s; preparing the log's chunks ..." % out["boot_s"])
    out["setup"] = setup = idle_window(pico, s, 2.0)
    setup["s"] = 2.0
    while setup["erases"] and setup["s"] < 60:
        w = idle_window(pico, s, 1.0)
        if not w["erases"]:
            break
        setup["s"] += 1.0
        setup["erases"] += w["erases"]
        setup["programs"] += w["programs"]
    log("idle, no game, %g s ..." % seconds)
    out["idle"] = idle_window(pico, s, seconds)
    s.request("press", side="white")  # Black's clock starts
    s.run_for(1.0)
    log("%d presses ..." % presses)
    out["presses"] = []
    side = "black"
    for _ in range(presses):
        out["presses"].append(one_press(pico, s, side))
        side = "white" if side == "black" else "black"
        s.run_for(0.5)
    out["heap_in_game"] = s.request("probe")["mem_free"]
    log("%d presses of the buttons' pins ..." % presses)
    out["pin_presses"] = [pin_press(pico, s) for _ in range(presses)]
    log("clock running, %g s ..." % seconds)
    out["running"] = idle_window(pico, s, seconds)
    s.request("pause")
    s.run_for(1.0)  # the pause is said (暂停, 0.5 s): the paused figure is the quiet loop's
    log("paused, %g s ..." % seconds)
    out["paused"] = idle_window(pico, s, seconds)
    out["period"] = period_start(pico, s)
    out["emulated_s"] = pico.now_s
    out["wall_s"] = time.monotonic() - wall
    out["noise"] = s.noise
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
    s.request("press", side="white")  # Black's clock starts: the period ends 12 s later
    start = pico.now_s
    s.run_for(11.5 - (pico.now_s - start))
    f0 = pico.flash.snapshot()
    s.request("probe")
    s.run_for(1.0)
    p = s.request("probe")
    f1 = pico.flash.snapshot()
    st = s.request("status")
    if st["black"]["periods"] != 2:
        raise SystemExit("the period did not end in the window: %s" % st)
    return {
        "us": p["max_step_us"],
        "erases": f1["erases"] - f0["erases"],
        "programs": f1["programs"] - f0["programs"],
    }


def _median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def table(label, r):
    ps = r["presses"]
    rows = [
        ("boot to first reply", "%.3f emulated s" % r["boot_s"]),
        ("heap free after boot (gc.collect; gc.mem_free)", "%d B" % r["heap_after_boot"]),
        ("heap free during a game", "%d B" % r["heap_in_game"]),
        (
            "(a) press CPU, feed -> reply (ticks_us)",
            "median %d us, min %d, max %d" % (_median([p["us"] for p in ps]), min(p["us"] for p in ps), max(p["us"] for p in ps)),
        ),
        (
            "    press latency, bytes in -> reply out",
            "median %d us (chip busy %d us of it)"
            % (_median([p["latency_us"] for p in ps]), _median([p["busy_us"] for p in ps])),
        ),
        (
            "(b) press allocation (gc.mem_alloc delta)",
            "median %d B, min %d, max %d" % (_median([p["alloc"] for p in ps]), min(p["alloc"] for p in ps), max(p["alloc"] for p in ps)),
        ),
        (
            "    first boot: the log's chunks prepared",
            "%d erases, %d programs in <= %g s" % (r["setup"]["erases"], r["setup"]["programs"], r["setup"]["s"]),
        ),
        (
            "(f) press on the button pin: longest step",
            "median %d us, max %d; allocation median %d B, max %d; flash %s"
            % (
                _median([p["us"] for p in r["pin_presses"]]),
                max(p["us"] for p in r["pin_presses"]),
                _median([p["alloc"] for p in r["pin_presses"]]),
                max(p["alloc"] for p in r["pin_presses"]),
                " ".join("%d/%d" % (p["erases"], p["programs"]) for p in r["pin_presses"]),
            ),
        ),
        ("(c) idle CPU share, no game", "%.1f %%" % (100 * r["idle"]["cpu"])),
        ("    idle CPU share, clock running", "%.1f %%" % (100 * r["running"]["cpu"])),
        ("    idle CPU share, paused", "%.1f %%" % (100 * r["paused"]["cpu"])),
        (
            "(d) flash per press: erases, page programs",
            "mean %.1f, %.1f (each press: %s)"
            % (
                sum(p["erases"] for p in ps) / len(ps),
                sum(p["programs"] for p in ps) / len(ps),
                " ".join("%d/%d" % (p["erases"], p["programs"]) for p in ps),
            ),
        ),
        (
            "(e) a period's start: longest Session.step",
            "%d us (flash around it: %d erases, %d programs)"
            % (r["period"]["us"], r["period"]["erases"], r["period"]["programs"]),
        ),
        (
            "    flash per idle window: no game, running, paused",
            ", ".join("%d/%d" % (r[k]["erases"], r[k]["programs"]) for k in ("idle", "running", "paused")),
        ),
    ]  # fmt: skip
    print("\n%s" % label)
    for what, value in rows:
        print("  %-48s %s" % (what, value))
    print("  (%.1f emulated s in %.0f wall s)" % (r["emulated_s"], r["wall_s"]))
    if r["noise"]:
        print("  chip printed: %s" % r["noise"][:5])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--image", help="UF2 (default: $GOCLOCK_RP2_IMAGE, else build.py's)")
    ap.add_argument("--frozen", action="store_true", help="the frozen image, main.py only")
    ap.add_argument("--seconds", type=float, default=10.0, help="emulated s per idle window")
    ap.add_argument("--presses", type=int, default=6)
    ap.add_argument(
        "--time",
        action="append",
        metavar="MODULE:FUNC",
        help="profile a press instead: time this function (module:Class.method), repeatable",
    )
    args = ap.parse_args(argv)
    if args.frozen:
        image = args.image or os.environ.get("GOCLOCK_RP2_FROZEN_IMAGE")
        image = image or build.build(os.path.join(REPO, "boards", "manifest.py"))
        files, label = layout.frozen_firmware_files(), "frozen image (main.py on the storage)"
    else:
        image = args.image or os.environ.get("GOCLOCK_RP2_IMAGE") or build.build()
        files, label = layout.firmware_files(), ".mpy layout (as goclock deploy)"
    if args.time:
        r = profile(image, files, args.time, args.presses)
        for name in args.time:
            calls, us = r.get(name, (0, 0))
            print("  %-64s %5.1f calls %8.0f us" % (name, calls, us))
        return 0
    r = measure(image, files, args.seconds, args.presses, log=lambda m: print(m, file=sys.stderr))
    table("%s, %s" % (label, os.path.basename(image)), r)
    return 0


if __name__ == "__main__":
    sys.exit(main())
