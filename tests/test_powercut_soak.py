"""`make soak`: a power cut at every flash operation of many seeds' workloads, every tear.

The campaign of tests/test_powercut.py (tests/support/powercuts.py: each workload played
once, then a boot on the flash a cut at each of its operations leaves), bigger: every
geometry, many seeds, each cut with each tear (a prefix of a program's bytes, bit by bit
to a byte half programmed, random bits of every byte it changes; an erase in stretches or
half way). Skipped unless GOCLOCK_SOAK is set (`make soak` sets it): the defaults, four
geometries of four seeds each with three tears, are about 70,000 cuts, half an hour and
more on one core. A test per workload prints its figures; the last line, the totals.

    make soak                                       # the defaults below
    make soak SOAK_SEEDS=1-40 SOAK_TEARS=rotate     # one tear per cut, taken in turn
    make soak SOAK_ENGINE=micropython SOAK_SEEDS=1-2 SOAK_EVERY=3

A failure names geometry, seed, operation and tear: `powercuts.cut_everywhere(seed,
geometry, actions, mix, (tear,), 1, operation)` cuts there again.
"""

import json
import os

import pytest

from support import powercuts
from support.cutflash import TEARS
from support.mpy import run_mpy_json

# geometry -> (mix, actions): the marathon outgrows its small flash and gives up parts.
WORKLOADS = {
    "pico": ("all", 250),
    "small": ("all", 250),
    "tiny": ("all", 250),
    "pico-full": ("marathon", 700),
}


def _setting(name, default):
    return os.environ.get("GOCLOCK_SOAK_" + name) or default


def _seeds(text):
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


SEEDS = _seeds(_setting("SEEDS", "1-4"))
GEOMETRIES = _setting("GEOMETRIES", ",".join(WORKLOADS)).split(",")
TEAR_SETTING = _setting("TEARS", ",".join(TEARS))
SOAK_TEARS = None if TEAR_SETTING == "rotate" else tuple(TEAR_SETTING.split(","))
EVERY = int(_setting("EVERY", "1"))
ENGINE = _setting("ENGINE", "cpython")

pytestmark = [
    pytest.mark.skipif(not os.environ.get("GOCLOCK_SOAK"), reason="make soak runs these"),
    pytest.mark.timeout(7200),
]

DRIVER = """
import json, sys
from support import powercuts
geometry, mix, seed, actions, tears, every = json.loads(open(sys.argv[1]).read())
res = powercuts.cut_everywhere(seed, geometry, actions, mix, tears, every)
print(json.dumps({"ops": res.ops, "cuts": res.cuts, "failures": res.failures[:5],
                  "failed": len(res.failures), "problems": res.problems,
                  "worst": res.worst_regain}))
"""


@pytest.fixture(scope="module")
def totals():
    sums = {"workloads": 0, "ops": 0, "cuts": 0, "failed": 0, "worst": 0, "problems": {}}
    yield sums
    print(
        "\n%s: %d workloads, %d operations, %d power cuts, %d failed; worst time given back "
        "to the running side %d ms"
        % (ENGINE, sums["workloads"], sums["ops"], sums["cuts"], sums["failed"], sums["worst"])
    )
    for kind, n in sorted(sums["problems"].items(), key=lambda kv: -kv[1]):
        print("%6d cuts: %s" % (n, kind))


def _cut(geometry, seed, tmp_path, micropython):
    mix, actions = WORKLOADS[geometry]
    if ENGINE != "micropython":
        res = powercuts.cut_everywhere(seed, geometry, actions, mix, SOAK_TEARS, EVERY)
        return {
            "ops": res.ops,
            "cuts": res.cuts,
            "failures": res.failures[:5],
            "failed": len(res.failures),
            "problems": res.problems,
            "worst": res.worst_regain,
        }
    spec = tmp_path / "workload.json"
    spec.write_text(json.dumps([geometry, mix, seed, actions, SOAK_TEARS, EVERY]))
    return run_mpy_json(micropython, tmp_path, DRIVER, spec, timeout=7000)[-1]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_a_power_cut_at_every_flash_operation(geometry, seed, tmp_path, micropython, totals):
    r = _cut(geometry, seed, tmp_path, micropython)
    print(
        "\n%-9s seed %3d: %5d operations, %6d cuts, %d failed, worst regained %d ms"
        % (geometry, seed, r["ops"], r["cuts"], r["failed"], r["worst"])
    )
    totals["workloads"] += 1
    for key in ("ops", "cuts", "failed"):
        totals[key] += r[key]
    totals["worst"] = max(totals["worst"], r["worst"])
    for kind, n in r["problems"].items():
        totals["problems"][kind] = totals["problems"].get(kind, 0) + n
    assert r["failures"] == [], r["failures"]
    assert r["cuts"] > 0
