"""`make soak`: a power cut at every flash operation of many seeds' workloads, every tear.

The campaign of tests/test_powercut.py (tests/support/powercuts.py: each workload played
once, then a boot on the flash a cut at each of its operations leaves), bigger: every
geometry, many seeds, each cut with each tear (a prefix of a program's bytes, bit by bit
to a byte half programmed, random bits of every byte it changes; an erase in stretches or
half way). Prints a line per workload and the totals; exits 1 when any boot finds a
problem, with the first ones. Not part of `make test`: the defaults (four geometries,
four seeds each, three tears) are about 70,000 cuts, half an hour and more on one core.

    make soak                                  # the defaults below
    make soak SOAK_ARGS="--seeds 1-40 --tears rotate"
    make soak SOAK_ARGS="--engine micropython --seeds 1-4 --every 3"

A failure names geometry, seed, operation and tear: `cut_everywhere(seed, geometry,
actions, mix, (tear,), 1, operation)` in support/powercuts.py cuts there again.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(os.path.dirname(HERE), "tests")
sys.path.insert(0, TESTS)

from support import powercuts  # noqa: E402
from support.cutflash import TEARS  # noqa: E402

# geometry -> (mix, actions): the marathon outgrows its small flash and gives up parts.
WORKLOADS = {
    "pico": ("all", 250),
    "small": ("all", 250),
    "tiny": ("all", 250),
    "pico-full": ("marathon", 700),
}

DRIVER = """
import json, sys
from support import powercuts
for line in open(sys.argv[1]):
    geometry, mix, seed, actions, tears, every = json.loads(line)
    res = powercuts.cut_everywhere(seed, geometry, actions, mix, tears, every)
    print(json.dumps({"geometry": geometry, "seed": seed, "ops": res.ops, "cuts": res.cuts,
                      "failures": res.failures[:5], "failed": len(res.failures),
                      "problems": res.problems, "worst": res.worst_regain}))
"""


def seeds(text):
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def plan(args):
    tears = None if args.tears == "rotate" else tuple(args.tears.split(","))
    for geometry in args.geometries.split(","):
        mix, actions = WORKLOADS[geometry]
        for seed in seeds(args.seeds):
            yield geometry, mix, seed, args.actions or actions, tears, args.every


def run_cpython(jobs):
    for geometry, mix, seed, actions, tears, every in jobs:
        res = powercuts.cut_everywhere(seed, geometry, actions, mix, tears, every)
        yield {
            "geometry": geometry,
            "seed": seed,
            "ops": res.ops,
            "cuts": res.cuts,
            "failures": res.failures[:5],
            "failed": len(res.failures),
            "problems": res.problems,
            "worst": res.worst_regain,
        }


def run_micropython(jobs):
    from goclock.simulate import micropython_binary, micropython_env

    env = micropython_env([TESTS])
    with tempfile.TemporaryDirectory() as tmp:
        driver = os.path.join(tmp, "driver.py")
        with open(driver, "w") as f:
            f.write(DRIVER)
        for job in jobs:
            spec = os.path.join(tmp, "plan.jsonl")
            with open(spec, "w") as f:
                f.write(json.dumps(list(job)) + "\n")
            proc = subprocess.run(
                [micropython_binary(), "-X", "heapsize=64M", driver, spec],
                capture_output=True,
                env=env,
                check=False,
            )
            if proc.returncode != 0:
                sys.exit("MicroPython failed on %r:\n%s" % (job, proc.stderr.decode()[-2000:]))
            yield json.loads(proc.stdout.decode().strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--geometries", default=",".join(WORKLOADS))
    ap.add_argument("--seeds", default="1-4", help="e.g. 1-8 or 3,5,9-12")
    ap.add_argument("--tears", default=",".join(TEARS), help="some of %s, or rotate" % (TEARS,))
    ap.add_argument("--every", type=int, default=1, help="cut at every N-th operation")
    ap.add_argument("--actions", type=int, default=0, help="actions per workload")
    ap.add_argument("--engine", choices=("cpython", "micropython"), default="cpython")
    args = ap.parse_args()
    jobs = list(plan(args))
    run = run_micropython if args.engine == "micropython" else run_cpython
    started = time.time()
    cuts = ops = failed = worst = 0
    bad = []
    kinds = {}
    for r in run(jobs):
        for k, v in r["problems"].items():
            kinds[k] = kinds.get(k, 0) + v
        cuts += r["cuts"]
        ops += r["ops"]
        failed += r["failed"]
        worst = max(worst, r["worst"])
        print(
            "%-9s seed %3d: %5d operations, %6d cuts, %d failed, worst regained %d ms"
            % (r["geometry"], r["seed"], r["ops"], r["cuts"], r["failed"], r["worst"]),
            flush=True,
        )
        bad.extend((r["geometry"], r["seed"], f) for f in r["failures"])
    took = time.time() - started
    print(
        "%s: %d workloads, %d operations, %d power cuts in %.0f s (%.1f ms a cut): "
        "%d failed; worst time given back to the running side %d ms"
        % (args.engine, len(jobs), ops, cuts, took, 1000 * took / max(cuts, 1), failed, worst)
    )
    for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]):
        print("%6d cuts: %s" % (v, k))
    for geometry, seed, (n, tear, problems) in bad[:20]:
        print("FAILED %s seed %d operation %d (%s): %s" % (geometry, seed, n, tear, problems[:3]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
