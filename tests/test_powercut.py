"""Power pulled at every flash operation of long mixed workloads, on both engines.

The workloads and the checks are in tests/support/workload.py: a clock played as at a
tournament (presses, pauses, resumes, the volume and the time control configured, presets
pushed, resets to the config or a preset, finished games' logs cleared one or all, games
over many parts, finished games dropped for room, one long game that outgrows the flash
and gives up its oldest parts) on a flash that dies at operation N, that operation torn
(support/cutflash.py: a prefix of its bytes, bit by bit to a byte half programmed, or
random bits of every byte it changes; an erase in stretches or half way). A boot on what
the flash holds must lose no acknowledged press, bring back no reset or cleared game,
show a game being cleared at the cut whole or not at all, give the running side back at
most 2 s, keep every config acknowledged, and keep every log verifying with moves
numbered without gaps or repeats.

A cut at *every* operation, fast: each workload is played once and its operations
replayed with a boot at each (support/powercuts.py), which
`test_a_replayed_cut_is_the_cut_itself` checks against runs really cut. Seeded: the same
cuts every run. `make soak` runs the same at every operation of many more seeds, each
with every tear (tests/test_powercut_soak.py, skipped otherwise).
"""

import json

import pytest

from support import powercuts, workload
from support.cutflash import TEARS
from support.mpy import run_mpy_json

# (geometry, mix, seed, actions, every): a cut at every `every`-th operation of each.
EVERY_OP = (
    ("pico", "all", 1, 200, 1),
    ("small", "all", 2, 200, 1),
    ("tiny", "all", 6, 200, 1),
    ("pico-full", "marathon", 3, 800, 4),  # (a record across pages is one program now)
)
MANY_SEEDS = range(30, 50)  # a sample of cuts in each of these seeds' workloads
SAMPLED = 30
MPY_EVERY_OP = (("pico", "all", 21, 160, 2), ("tiny", "all", 22, 160, 2))  # (see EVERY_OP)


def _report(res):
    return "%s seed %d: %d operations, %d cuts, %d failed; worst regained %d ms" % (
        res.geometry,
        res.seed,
        res.ops,
        res.cuts,
        len(res.failures),
        res.worst_regain,
    )


def test_the_workloads_without_a_cut_are_clean():
    """The workloads do what the campaign needs them to: every kind of action, games of
    many parts, games cleared and dropped, a game that gives up its oldest parts."""
    kinds = set()
    gone = parts = give_ups = configs = presets = 0
    for geometry, mix, seed, actions, _ in EVERY_OP + MPY_EVERY_OP:
        run = workload.play(seed, 0, actions, geometry, trace=True, mix=mix)
        problems, _ = workload.check(run)
        assert problems == [], (geometry, seed, problems)
        kinds.update(a[0] for a in run.acks)
        j = run.session.journal
        gone += len(run.gone)
        parts = max([parts] + [len(j.games[g]) for g in j.ids()])
        give_ups += sum(min(j.games[g]) for g in j.ids())  # parts given up for room
        configs += len(run.configs) - 1
        presets += len(run.presets) - 1
    assert kinds == {"press", "reset", "clear"}
    print(
        "games gone %d, most parts %d, parts given up %d, configs %d, presets %d"
        % (gone, parts, give_ups, configs, presets)
    )
    assert gone > 5 and parts >= 10 and give_ups >= 2 and configs > 10 and presets > 2


@pytest.mark.parametrize("tear", TEARS)
def test_a_replayed_cut_is_the_cut_itself(tear):
    """The replay's image of a cut at operation N is byte for byte the flash of a run cut
    at N for real, and the boot finds the same problems (here: none)."""
    seed, actions = 5, 120
    trace = workload.play(seed, 0, actions, "small", trace=True, mix="all")
    total = trace.ops
    for k in range(12):
        n = trace.booted_at + 1 + (k * 7919 + 13) % (total - trace.booted_at)
        real = workload.play(seed, n, actions, "small", tear=tear, mix="all")
        assert real.flash.dead and real.flash.ops == n
        image, truth = powercuts.image_at(trace, n, tear)
        assert bytes(image) == bytes(real.flash._ram), n
        assert workload.check(real) == workload.check_image(image, truth, trace.acks, "small")


@pytest.mark.parametrize("geometry, mix, seed, actions, every", EVERY_OP)
def test_a_power_cut_at_every_flash_operation(geometry, mix, seed, actions, every):
    res = powercuts.cut_everywhere(seed, geometry, actions, mix, every=every)
    print(_report(res))
    assert res.failures == [], res.failures[:5]
    assert res.cuts > 500
    assert 0 < res.worst_regain <= workload.REGAIN_MS  # cuts did fall while a clock ran


def test_power_cuts_in_the_workloads_of_many_seeds():
    cuts = 0
    for seed in MANY_SEEDS:
        geometry = ("pico", "small", "tiny")[seed % 3]
        ops = workload.play(seed, 0, 150, geometry, mix="all").ops
        res = powercuts.cut_everywhere(seed, geometry, 150, "all", every=ops // SAMPLED, start=seed)
        assert res.failures == [], (seed, res.failures[:3])
        cuts += res.cuts
    assert cuts >= SAMPLED * len(MANY_SEEDS) * 9 // 10
    print("power cuts in %d seeds' workloads: %d, none failed" % (len(MANY_SEEDS), cuts))


DRIVER = """
import json, sys
from support import powercuts
for line in open(sys.argv[1]):
    geometry, mix, seed, actions, every = json.loads(line)
    res = powercuts.cut_everywhere(seed, geometry, actions, mix, None, every)
    print(json.dumps({"seed": seed, "ops": res.ops, "cuts": res.cuts,
                      "failures": res.failures[:5], "worst": res.worst_regain}))
"""


def test_a_power_cut_at_every_flash_operation_under_micropython(micropython, tmp_path):
    """The same on the unix port's own littlefs (os.VfsLfs2), the one the boards run."""
    plan = tmp_path / "plan.jsonl"
    plan.write_text("".join(json.dumps(c) + "\n" for c in MPY_EVERY_OP))
    out = run_mpy_json(micropython, tmp_path, DRIVER, plan, timeout=900)
    assert len(out) == len(MPY_EVERY_OP)
    for r in out:
        assert r["failures"] == [], r
        assert r["cuts"] > 250 and 0 < r["worst"] <= workload.REGAIN_MS, r
