"""`make bench`: timing and memory figures (never asserted in tests).

1. The clock core: a 12-hour, 1,000-move byo-yomi game, started just before
   the tick counter wraps, simulated on CPython and on the MicroPython unix
   port: run time of each, and the timekeeping error against plain
   arithmetic (must be 0 ms).
2. Whatever other benchmarks the project has (the modules of tools/bench), each run in
   turn: heap use of the firmware, log pulls over the pty, call onset lateness.
"""

import json
import os
import pkgutil
import random
import subprocess
import sys
import tempfile
import time

from goclock import resources
from goclock.unixport import micropython_binary, micropython_env

SIMULATE = os.path.join(resources.firmware_dir(), "scenario", "runner.py")

MAIN_S = 5 * 3600  # each side: 5 h main time, then 5 x 60 s byo-yomi
PERIODS = 5
PERIOD_MS = 60000


def long_game(seed=2026):
    """1,000 moves over about 12 hours; the last ones in byo-yomi, a few using up periods."""
    rng = random.Random(seed)
    events = [{"t": 0, "do": "start"}]
    t = 0
    uses = []
    main = [MAIN_S * 1000, MAIN_S * 1000]
    long_moves = [0, 0]
    for move in range(1000):
        side = move % 2
        if main[side] > 0:
            used = rng.randint(1000, 95000)
            main[side] = max(0, main[side] - used)
        elif long_moves[side] < PERIODS - 2 and rng.random() < 0.05:
            used = rng.randint(PERIOD_MS, 2 * PERIOD_MS - 1)  # one period used up
            long_moves[side] += 1
        else:
            used = rng.randint(1000, PERIOD_MS - 1)
        t += used
        uses.append(used)
        events.append({"t": t, "do": "press", "side": "black" if side == 0 else "white"})
    scenario = {
        "time_control": {
            "type": "byoyomi",
            "main": MAIN_S,
            "periods": PERIODS,
            "period": PERIOD_MS // 1000,
        },
        "events": events,
        "until": t,
        "tick_offset": (1 << 30) - 3 * 3600 * 1000,
    }
    return scenario, uses


def expected_final(uses):
    """Each side's main time and periods by plain arithmetic, move by move."""
    main = [MAIN_S * 1000, MAIN_S * 1000]
    periods = [PERIODS, PERIODS]
    for move, used in enumerate(uses):
        side = move % 2
        over = used - main[side]
        if over < 0:
            main[side] -= used
            continue
        main[side] = 0
        periods[side] -= over // PERIOD_MS
    return main, periods


def run_engine(cmd, path, env=None):
    start = time.perf_counter()
    proc = subprocess.run(cmd + [path], capture_output=True, check=True, env=env)
    return time.perf_counter() - start, proc.stdout


def bench_core():
    scenario, uses = long_game()
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(scenario, f)
        path = f.name
    try:
        cpy_s, cpy_out = run_engine([sys.executable, SIMULATE], path)
        mpy_s, mpy_out = run_engine([micropython_binary(), SIMULATE], path, micropython_env())
    finally:
        os.unlink(path)
    lines = [json.loads(x) for x in cpy_out.decode("utf-8").splitlines()]
    presses = [x for x in lines if x["event"] == "press"]
    final = lines[-1]
    main, periods = expected_final(uses)
    error = sum(abs(p["used_ms"] - u) for p, u in zip(presses, uses))
    for i, side in enumerate(("black", "white")):
        error += abs(final[side]["main_ms"] - main[i])
        error += abs(final[side]["periods"] - periods[i]) * PERIOD_MS
    hours = sum(uses) / 3600000
    print("core: %d moves, %.2f h of play, tick counter wrapping mid-game" % (len(presses), hours))
    print("  CPython      %.3f s  (%d output lines)" % (cpy_s, len(lines)))
    print(
        "  MicroPython  %.3f s  (output %s)"
        % (mpy_s, "byte-identical" if mpy_out == cpy_out else "DIFFERENT")
    )
    print("  timekeeping error: %d ms" % error)
    print("  final: black %s, white %s" % (final["black"], final["white"]))
    return error == 0 and mpy_out == cpy_out


def benchmarks():
    """The names of the other benchmarks: the modules here named without an underscore."""
    here = os.path.dirname(os.path.abspath(__file__))
    return sorted(m.name for m in pkgutil.iter_modules([here]) if "_" not in m.name)


def main():
    ok = bench_core()
    for name in benchmarks():
        print()
        print("== tools.bench.%s" % name)
        result = subprocess.run([sys.executable, "-m", "tools.bench." + name], check=False)
        ok = ok and result.returncode == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
