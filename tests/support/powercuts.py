"""A power cut at every flash operation of a workload, fast: one run, its operations replayed.

Cutting a run for real at operation N (support/workload.py: `play(seed, N)`) costs the
whole run up to N, so cutting at every one of a run's T operations costs T runs. Instead
`cut_everywhere` plays the workload once, uncut, recording every erase and program it
makes (support/cutflash.py: `trace`) and, for each, the `Truth` of the action it belongs
to (what had been acknowledged, what the session held after the action). Then it replays
the operations onto a blank flash: before doing operation N whole, it makes the image a
cut at N leaves (operation N torn, as CutFlash tears it: the same bytes as the real cut,
tests/test_powercut.py checks it) and boots on it with workload's checks. A cut then
costs one boot.

Plain MicroPython-compatible Python: the same file runs under the unix port.
"""

from support import workload
from support.cutflash import ERASE, TEARS, tear_random, torn_erase, torn_program


class Result:
    def __init__(self, seed, geometry):
        self.seed = seed
        self.geometry = geometry
        self.ops = 0  # operations of the run
        self.cuts = 0  # cuts booted and checked
        self.skipped = 0  # cuts while formatting or at the first boot (nothing to check)
        self.failures = []  # (operation, tear, problems)
        self.worst_regain = 0
        self.kinds = {}  # what the run did: action kinds acknowledged


def cut_everywhere(seed, geometry="pico", actions=200, tears=None, every=1, start=0):
    """Cut the mixed workload of `seed` at every `every`-th operation from `start`, each with
    the tears `tears` (None: one tear per cut, taken in turn). Returns a Result."""
    run = workload.play(seed, 0, actions, geometry, trace=True, mix=True)
    res = Result(seed, geometry)
    res.ops = run.ops
    for a in run.acks:
        res.kinds[a[0]] = res.kinds.get(a[0], 0) + 1
    flash = run.flash
    ram = bytearray(b"\xff" * (flash.block_size * flash.block_count))
    seed_flash = flash.seed
    for n in range(1, len(flash.trace) + 1):
        kind, addr, data = flash.trace[n - 1]
        truth = run.op_truth[n]
        if n >= start and (n - start) % every == 0:
            if truth is None:
                res.skipped += 1
            else:
                for tear in tears or (TEARS[(n + seed) % len(TEARS)],):
                    image = bytearray(ram)
                    rnd = tear_random(seed_flash, n)
                    if kind == ERASE:
                        torn_erase(image, addr, data, rnd, tear)
                    else:
                        torn_program(image, addr, data, rnd, tear)
                    problems, regained = workload.check_image(image, truth, run.acks, geometry)
                    res.cuts += 1
                    if problems:
                        res.failures.append((n, tear, problems))
                    if regained is not None and regained > res.worst_regain:
                        res.worst_regain = regained
        if kind == ERASE:
            ram[addr : addr + data] = b"\xff" * data
        else:
            _program(ram, addr, data)
    workload.release(run.session.fs)
    return res


def _program(ram, addr, data):
    for i in range(len(data)):
        ram[addr + i] &= data[i]
