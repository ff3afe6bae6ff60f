"""Power pulled at hundreds of random flash operations while a game is played (both engines).

The workload and the checks are in tests/support/workload.py: presses, pauses, config
writes and resets on the real session, on a flash that dies at operation N (that
operation only partly done); then a boot on what the flash holds must lose no
acknowledged press, bring back no reset game, give the running side back at most 2 s,
and keep every log verifying, moves numbered without gaps or repeats. Run under
CPython (littlefs-python) and the MicroPython unix port (its own littlefs), seeded: the
same cuts every run.
"""

import json

from support import workload
from support.mpy import run_mpy_json

SEEDS = (1, 2, 3, 4, 5)
CPYTHON_CUTS = 300
MPY_CUTS = 150


def cut_points(count, total_ops):
    """`count` (seed, cut) pairs spread over every operation of each seed's run."""
    state = 12345
    out = []
    for i in range(count):
        seed = SEEDS[i % len(SEEDS)]
        state = (state * 1103515245 + 12345) & 0x7FFFFFFF
        out.append((seed, 1 + state % total_ops[seed]))
    return out


def totals():
    return {seed: workload.play(seed, 0).ops for seed in SEEDS}


def test_the_workload_without_a_cut_is_clean():
    kinds = set()
    for seed in SEEDS:
        run = workload.play(seed, 0)
        problems, _ = workload.check(run)
        assert problems == [], (seed, problems)
        assert len([a for a in run.acks if a[0] == "press"]) > 20
        kinds.update(a[0] for a in run.acks)
        assert run.ops > 100
    assert kinds == {"press", "reset"}  # the runs do exercise resets too


def test_hundreds_of_power_cuts_under_cpython():
    worst = 0
    lost = resurrected = 0
    cuts = cut_points(CPYTHON_CUTS, totals())
    for seed, cut in cuts:
        run = workload.play(seed, cut)
        problems, regained = workload.check(run)
        lost += sum("press lost" in p for p in problems)
        resurrected += sum("came back" in p for p in problems)
        assert problems == [], (seed, cut, problems)
        if regained is not None:
            worst = max(worst, regained)
    assert lost == resurrected == 0
    assert 0 < worst <= workload.REGAIN_MS  # some cuts did fall while a clock ran
    print(
        "power cuts (CPython): %d, lost presses 0, resurrected games 0, worst regained %d ms"
        % (len(cuts), worst)
    )


DRIVER = """
import json, sys
from support import workload
for line in open(sys.argv[1]):
    seed, cut = json.loads(line)
    run = workload.play(seed, cut)
    problems, regained = workload.check(run)
    print(json.dumps({"seed": seed, "cut": cut, "problems": problems, "regained": regained,
                      "acked": len(run.acks)}))
"""


def test_hundreds_of_power_cuts_under_micropython(micropython, tmp_path):
    cuts = cut_points(MPY_CUTS, totals())
    plan = tmp_path / "cuts.jsonl"
    plan.write_text("".join(json.dumps(c) + "\n" for c in cuts))
    out = run_mpy_json(micropython, tmp_path, DRIVER, plan, timeout=600)
    assert len(out) == len(cuts)
    worst = 0
    for r in out:
        assert r["problems"] == [], r
        if r["regained"] is not None:
            worst = max(worst, r["regained"])
    assert 0 < worst <= workload.REGAIN_MS
    assert sum(r["acked"] for r in out) > 10 * len(out)
