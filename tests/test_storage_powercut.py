"""Power pulled at every kind of moment while the storage writes to a littlefs image.

The workload (tests/storage_workload.py) runs on a littlefs-python image whose
block device dies at program/erase operation N (that operation only partly
done); the image as it was at the cut is mounted again and checked: config
intact, log verifying with every acknowledged record, checkpoint old or new.
"""

import random

import pytest

import storage_workload
from lfs_helpers import mount, new_image

BLOCKS = 32


class PowerCut(Exception):
    pass


def run_until_cut(image, cut_at, seed):
    fs, ctx = mount(image, BLOCKS, cut_at, seed)
    acks = []

    def ack(kind, value):
        if ctx.dead:
            raise PowerCut()  # this step may not have reached the flash
        acks.append((kind, value))

    try:
        storage_workload.run(fs, ack)
    except PowerCut:
        pass
    except Exception:
        # After the cut, reads no longer match what littlefs believes it
        # wrote; whatever the code does then never reaches the flash.
        if not ctx.dead:
            raise
    return ctx, acks


@pytest.fixture(scope="module")
def fresh():
    image = new_image(BLOCKS)
    ctx, acks = run_until_cut(image, None, 0)
    return image, ctx.ops, acks, bytes(ctx.buffer)


def test_workload_without_cut(fresh):
    image, ops, acks, final = fresh
    assert ops > 200
    # per game: 24 presses, 6 calls, "end" ("game" comes with begin)
    assert len([a for a in acks if a[0] == "record"]) == 3 * (24 + 6 + 1)
    fs, _ = mount(final, BLOCKS)
    assert storage_workload.check(fs, acks) == []
    # and the check does see damage: a lost record is reported
    assert storage_workload.check(fs, acks + [("record", [1, 99])])


def cut_points(ops, count, seed):
    rng = random.Random(seed)
    points = set(rng.sample(range(1, ops + 1), min(count, ops)))
    points.update(range(1, 12))  # the first operations: formatting-fresh state
    return sorted(points)


def test_power_cut_anywhere(fresh):
    image, ops, _, _ = fresh
    failures = []
    points = cut_points(ops, 120, 1)
    for n in points:
        ctx, acks = run_until_cut(image, n, n)
        assert ctx.dead and ctx.snapshot is not None
        fs, _ = mount(ctx.snapshot, BLOCKS)
        problems = storage_workload.check(fs, acks)
        if problems:
            failures.append((n, problems))
    assert not failures, failures[:5]
    assert len(points) >= 120
