"""The storage under the MicroPython unix port, on its own littlefs (os.VfsLfs2), read on CPython.

- A game played by the real session under MicroPython: its flash image mounted by
  littlefs-python on CPython, where the logs verify and hold every acknowledged press.
- The same records give the same log bytes on both interpreters.
- Heap allocated per log record under MicroPython, after the buffers warmed up.
"""

from goclockfw.storage.logline import verify_bytes
from support import workload
from support.cutflash import CutFlash
from support.mpy import run_mpy_json
from test_storage_journal import journal

PLAY = """
import json, sys
from support import workload
run = workload.play(3, 0)
f = open(sys.argv[1], "wb")
f.write(run.flash._ram)
f.close()
print(json.dumps({"acks": run.acks, "game": run.session.journal.current}))
"""


def test_micropython_writes_littlefs_that_cpython_reads(micropython, tmp_path):
    image = tmp_path / "flash.img"
    out = run_mpy_json(micropython, tmp_path, PLAY, image)[-1]
    flash = CutFlash(4096, workload.BLOCKS)
    flash.load(image.read_bytes())
    j = journal(flash=flash, fresh=False)
    presses = {}
    for gid in j.ids():
        check = verify_bytes(j.read(gid, 0, 1 << 24)[0])
        assert check["ok"], (gid, check["errors"])
        presses[gid] = [(r["move"], r["t"]) for r in check["records"] if r["event"] == "press"]
    acked = [a for a in out["acks"] if a[0] == "press"]
    assert len(acked) > 20
    for _, gid, move, _side, t in acked:
        assert (move, t) in presses[gid]


SAME = """
import sys
from support.flashfs import flash_fs
from goclockfw.storage.chunks import ChunkPool
from goclockfw.storage.journal import Journal
flash, fs = flash_fs(32)
j = Journal(ChunkPool(fs, flash))
j.load()
j.work(False, fs.free)
j.begin()
j.record("game", 0, None, None, (("game", 1), ("time_control", {"type": "byoyomi", "main": 60,
         "periods": 5, "period": 30, "calls": "cn", "white": {"main": 30}})))
j.record("press", 65000, 0, 65000, (("main_ms", 0),))
j.record("call", 95000, 1, "还剩4分")
j.mark()
j.record("ruling", 99000, 1, "timeout_pass")
j.end(100000, "reset")
sys.stdout.buffer.write(j.read(1, 0, 100000)[0])
"""


def test_mpy_and_cpython_logs_agree(micropython, tmp_path):
    """The same records give the same bytes on both interpreters (dict keys in order)."""
    from support.mpy import run_mpy

    rc, lines, err = run_mpy(micropython, tmp_path, SAME)
    assert rc == 0, err
    mpy = ("\n".join(lines) + "\n").encode()
    j = journal(blocks=32)
    j.work(False, j.pool.fs.free)
    j.begin()
    tc = {"type": "byoyomi", "main": 60, "periods": 5, "period": 30, "calls": "cn"}
    tc["white"] = {"main": 30}
    j.record("game", 0, None, None, (("game", 1), ("time_control", tc)))
    j.record("press", 65000, 0, 65000, (("main_ms", 0),))
    j.record("call", 95000, 1, "还剩4分")
    j.mark()
    j.record("ruling", 99000, 1, "timeout_pass")
    j.end(100000, "reset")
    cpy = j.read(1, 0, 100000)[0]
    assert mpy == cpy and verify_bytes(cpy)["ok"]
    assert b'"time_control":{"calls":"cn","main":60,' in cpy  # sorted keys, no spaces


ALLOC = """
import gc, json
from support.flashfs import flash_fs
from goclockfw.storage.chunks import ChunkPool
from goclockfw.storage.journal import Journal
flash, fs = flash_fs(64)
j = Journal(ChunkPool(fs, flash))
j.load()
for _ in range(6):
    j.work(False, fs.free)
j.begin()
status = (("main_ms", 6895000), ("flagged", False), ("periods", 5), ("period_ms", 60000))
def per_record(kind, value, extra, n):
    for i in range(20):  # warm up: buffers grown, strings cached
        j.record(kind, 1000 + i, i % 2, value, extra)
    gc.collect()
    gc.disable()
    a = gc.mem_alloc()
    for i in range(n):
        j.record(kind, 100000 + i * 1000, i % 2, value, extra)
    b = gc.mem_alloc()
    gc.enable()
    return (b - a) // n
out = {"press": per_record("press", 5000, status, 40), "call": per_record("call", "30秒", None, 200)}
print(json.dumps(out))
"""


def test_log_records_allocate_little(micropython, tmp_path):
    out = run_mpy_json(micropython, tmp_path, ALLOC)[-1]
    # bytes of heap per record, once warm: a record is built in place and programmed from
    # a page buffer; a record across two pages makes a memoryview or two.
    assert out["press"] <= 64 and out["call"] <= 64, out


ERASED_SPANS = """
import json
from goclockfw import bytesops, bytesops_py
buf = bytearray(b"\\xff" * 600)
out = []
for bad in (-1, 0, 1, 255, 256, 511, 599):
    if bad >= 0:
        buf[bad] = 0x7F
    for i, j in ((0, 600), (0, 256), (1, 255), (256, 512), (300, 599), (5, 5)):
        out.append([bytesops.filled(buf, i, j, 0xFF), bytesops_py.filled(buf, i, j, 0xFF)])
    bytesops.fill(buf, 0, 600, 0xFF)  # blank again (the viper fill)
    out.append([bytesops.filled(buf, 0, 600, 0xFF), 1])
print(json.dumps({"native": bytesops.filled is not bytesops_py.filled, "pairs": out}))
"""


def test_the_erased_span_check_agrees_with_the_plain_one(micropython, tmp_path):
    # The journal asks whether a block is erased past a point (storage/journal.py
    # `_erased_from`) with a viper loop on the chip; it must say what the plain one says.
    out = run_mpy_json(micropython, tmp_path, ERASED_SPANS)[-1]
    assert out["native"]  # the viper version ran, not the plain one twice
    for viper, plain in out["pairs"]:
        assert viper == plain, out["pairs"]
    assert [p[0] for p in out["pairs"][:7]] == [1] * 7  # nothing programmed: all erased
    assert out["pairs"][7 + 1][0] == 0  # a byte at 0 programmed: (0, 256) is not erased
