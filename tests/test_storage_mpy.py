"""The storage modules under the MicroPython unix port: on littlefs (os.VfsLfs2), power cut, killed.

- The workload of tests/storage_workload.py on a VfsLfs2 RAM block device;
  the image is then read by littlefs-python on CPython and checked there.
- The same with the power cut at write/erase operation N: the block device
  saves the image as it stood and from then on ignores every write; the
  image is checked on CPython and, for some cuts, booted again under MicroPython.
- A MicroPython process writing to a directory (VfsPosix) killed with SIGKILL
  at random moments, then checked.
- Heap allocated per game-log record, measured with gc.mem_alloc().
"""

import json
import os
import random
import signal
import subprocess
import time

import pytest

import storage_workload
from goclockfw.storage.fs import FS
from goclockfw.storage.gamelog import verify_bytes
from lfs_helpers import mount
from mpy_helpers import ENV, RAMBD, driver_path, run_mpy, run_mpy_json

BLOCKS = 32

LFS_DRIVER = (
    RAMBD
    + """
import json
import storage_workload
from goclockfw.storage.fs import FS
cut = int(sys.argv[1])
dump = sys.argv[2]
bd = RAMBD(4096, %d, None, 0, dump, cut * 7 + 1)
os.VfsLfs2.mkfs(bd)
os.mount(os.VfsLfs2(bd), "/flash")
bd.ops = 0
bd.cut = cut
def ack(kind, value):
    if bd.dead:
        sys.exit(0)  # the power is gone: this step may not have been stored
    print(json.dumps([kind, value]))
storage_workload.run(FS("/flash"), ack)
os.umount("/flash")
f = open(dump, "wb")
f.write(bd.data)
f.close()
print(json.dumps({"ops": bd.ops}))
"""
    % BLOCKS
)

BOOT_DRIVER = (
    RAMBD
    + """
import json
import storage_workload
from goclockfw.storage.fs import FS
bd = RAMBD(4096, %d, open(sys.argv[1], "rb").read())
os.mount(os.VfsLfs2(bd), "/flash")
acks = [tuple(a) for a in json.loads(open(sys.argv[2]).read())]
print(json.dumps({"problems": storage_workload.check(FS("/flash"), acks)}))
"""
    % BLOCKS
)


def lfs_run(micropython, tmp_path, cut):
    dump = tmp_path / ("image-%d.bin" % cut)
    out = run_mpy_json(micropython, tmp_path, LFS_DRIVER, cut, dump)
    acks = []
    for x in out:
        if isinstance(x, dict):
            return dump.read_bytes(), acks, x
        acks.append(tuple(x))
    raise AssertionError("no end line")


@pytest.fixture(scope="module")
def full_run(micropython, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lfs")
    return lfs_run(micropython, tmp, 0)


def test_micropython_writes_littlefs_that_cpython_reads(full_run):
    image, acks, tail = full_run
    assert tail["ops"] > 200
    assert len([a for a in acks if a[0] == "record"]) == 3 * (24 + 6 + 1)
    fs, _ = mount(image, BLOCKS)
    assert storage_workload.check(fs, acks) == []
    assert fs.listdir("logs") and len(storage_workload.GameLogStore(fs).games()) == 3


def test_power_cut_under_micropython(micropython, tmp_path, full_run):
    ops = full_run[2]["ops"]
    rng = random.Random(3)
    cuts = sorted(rng.sample(range(1, ops), 24) + [1, 2, 3])
    failures = []
    for i, cut in enumerate(cuts):
        image, acks, tail = lfs_run(micropython, tmp_path, cut)
        assert tail == {"cut": cut}
        fs, _ = mount(image, BLOCKS)
        problems = storage_workload.check(fs, acks)
        if not problems and i % 4 == 0:
            # boot that image under MicroPython too
            img = tmp_path / "boot.bin"
            img.write_bytes(image)
            ackfile = tmp_path / "acks.json"
            ackfile.write_text(json.dumps(acks))
            out = run_mpy_json(micropython, tmp_path, BOOT_DRIVER, img, ackfile)
            problems = out[-1]["problems"]
        if problems:
            failures.append((cut, problems))
    assert not failures, failures[:3]


KILL_DRIVER = """
import sys, json
import storage_workload
from goclockfw.storage.fs import FS
def ack(kind, value):
    print(json.dumps([kind, value]))
print(json.dumps(["ready", 0]))
storage_workload.run(FS(sys.argv[1]), ack, games=40, moves=40)
print(json.dumps(["done", 0]))
"""


def test_killed_at_random_moments(micropython, tmp_path):
    path = driver_path(tmp_path, KILL_DRIVER, "kill_driver.py")
    rng = random.Random(7)
    flash = tmp_path / "flash"
    flash.mkdir()
    acks = []
    failures = []
    for round_ in range(10):
        proc = subprocess.Popen(
            [micropython, path, str(flash)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV
        )
        first = proc.stdout.readline()
        assert b"ready" in first, proc.stderr.read()
        time.sleep(rng.uniform(0.01, 0.25))
        proc.send_signal(signal.SIGKILL)
        out, _ = proc.communicate()
        lines = out.decode("utf-8", "replace").split("\n")
        # a line cut by the kill was never a finished print: drop it
        these = [tuple(json.loads(ln)) for ln in lines[:-1] if ln]
        assert ("done", 0) not in these, "the run ended before the kill: make it longer"
        acks += these
        problems = storage_workload.check(FS(str(flash)), acks)
        if problems:
            failures.append((round_, problems))
    assert not failures, failures[:3]
    records = [a for a in acks if a[0] == "record"]
    assert len(records) > 100  # the kills did land in the middle of games


ALLOC_DRIVER = """
import gc, sys, json
from goclockfw.storage.fs import FS
from goclockfw.storage.gamelog import GameLogStore
store = GameLogStore(FS(sys.argv[1]))
store.begin(0, {"time_control": {"type": "byoyomi"}})
status = {"main_ms": 0, "periods": 5, "period_ms": 60000}
def press(t):
    store.record("press", t, t & 1, 1234, status)
def call(t):
    store.record("call", t, 1, "30秒")
for t in range(20):
    press(t)
    call(t)
out = {}
for name, fn in (("press", press), ("call", call)):
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    for t in range(100, 300):
        fn(t)
    out[name] = (gc.mem_alloc() - before) / 200
    gc.enable()
print(json.dumps(out))
"""


def test_log_records_allocate_nothing(micropython, tmp_path):
    flash = tmp_path / "flash"
    flash.mkdir()
    out = run_mpy_json(micropython, tmp_path, ALLOC_DRIVER, flash)[-1]
    # bytes of heap per record, after the buffer and the string cache warmed up
    assert out == {"press": 0, "call": 0}, out
    data = FS(str(flash)).read("logs/00001.log")
    result = verify_bytes(data)
    assert result["ok"] and len(result["records"]) == 1 + 40 + 400


def test_mpy_and_cpython_logs_agree(micropython, tmp_path):
    """The same records give the same bytes on both interpreters (simple values)."""
    code = """
import sys
from goclockfw.storage.fs import FS
from goclockfw.storage.gamelog import GameLogStore
s = GameLogStore(FS(sys.argv[1]))
s.begin()
s.record("press", 65000, 0, 65000, {"main_ms": 0})
s.record("call", 95000, 1, "还剩4分")
s.record("ruling", 99000, 1, "timeout_pass")
s.end(100000, "reset")
"""
    for name in ("mpy", "cpy"):
        (tmp_path / name).mkdir()
    rc, _, err = run_mpy(micropython, tmp_path, code, tmp_path / "mpy")
    assert rc == 0, err
    s = storage_workload.GameLogStore(FS(str(tmp_path / "cpy")))
    s.begin()
    s.record("press", 65000, 0, 65000, {"main_ms": 0})
    s.record("call", 95000, 1, "还剩4分")
    s.record("ruling", 99000, 1, "timeout_pass")
    s.end(100000, "reset")
    a = FS(str(tmp_path / "mpy")).read("logs/00001.log")
    b = FS(str(tmp_path / "cpy")).read("logs/00001.log")
    assert a == b and verify_bytes(a)["ok"]
    assert os.path.exists(tmp_path / "mpy" / "logs" / "seq")
