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
        self.problems = {}  # each kind of problem found (numbers left out): how many cuts


def cut_everywhere(seed, geometry="pico", actions=200, mix="all", tears=None, every=1, start=0):
    """Cut the workload of `seed` (support/workload.py's `play`) at every `every`-th
    operation from `start`, each with the tears `tears` (None: one tear per cut, taken in
    turn). Returns a Result."""
    run = workload.play(seed, 0, actions, geometry, trace=True, mix=mix)
    res = Result(seed, geometry)
    res.ops = run.ops
    for a in run.acks:
        res.kinds[a[0]] = res.kinds.get(a[0], 0) + 1
    for n, ram in _before_each(run):
        if n < start or (n - start) % every:
            continue
        truth = run.op_truth[n]
        if truth is None:
            res.skipped += 1
            continue
        for tear in tears or (TEARS[(n + seed) % len(TEARS)],):
            image = _torn(run, n, ram, tear)
            problems, regained = workload.check_image(image, truth, run.acks, geometry)
            res.cuts += 1
            if problems:
                res.failures.append((n, tear, problems))
                kind = _kind(problems[0])
                res.problems[kind] = res.problems.get(kind, 0) + 1
            if regained is not None and regained > res.worst_regain:
                res.worst_regain = regained
    workload.release(run.session.fs)
    return res


def image_at(run, n, tear):
    """(the flash a cut at operation `n` of traced `run` leaves, the Truth to check it by)."""
    for k, ram in _before_each(run):
        if k == n:
            return _torn(run, n, ram, tear), run.op_truth[n]
    raise ValueError("no operation %d" % n)


def _before_each(run):
    """(n, the flash just before operation n), for each operation of traced `run` in turn
    (the same bytearray each time, moved on: copy it to keep it)."""
    flash = run.flash
    ram = bytearray(b"\xff" * (flash.block_size * flash.block_count))
    n = 0
    for kind, addr, data in flash.trace:
        n += 1
        yield n, ram
        if kind == ERASE:
            ram[addr : addr + data] = b"\xff" * data
        else:
            for i in range(len(data)):
                ram[addr + i] &= data[i]


def _torn(run, n, ram, tear):
    kind, addr, data = run.flash.trace[n - 1]
    image = bytearray(ram)
    rnd = tear_random(run.flash.seed, n)
    if kind == ERASE:
        torn_erase(image, addr, data, rnd, tear)
    else:
        torn_program(image, addr, data, rnd, tear)
    return image


def _kind(problem):
    """A problem's text with its numbers left out: "game # log: [(#, 'checksum mismatch')]"."""
    out = ""
    digits = False
    for ch in problem[:80]:
        if "0" <= ch <= "9":
            if not digits:
                out += "#"
            digits = True
        else:
            out += ch
            digits = False
    return out
