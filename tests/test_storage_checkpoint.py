"""Checkpoints: a running game comes back paused, as it was at the last checkpoint."""

from goclockfw.core import gameclock, timecontrol
from goclockfw.core.ticks import TICKS_PERIOD, ticks_add
from goclockfw.storage.checkpoint import CheckpointStore, decode, encode
from goclockfw.storage.fs import FS


class Quiet:
    def on_clock(self, kind, side, tick, value):
        pass


TC = {"type": "byoyomi", "main": 60, "periods": 3, "period": 30}


def test_a_running_game_comes_back_paused(tmp_path):
    fs = FS(str(tmp_path))
    tc = timecontrol.parse(TC)
    clock = gameclock.GameClock(tc, Quiet())
    base = TICKS_PERIOD - 20000  # the tick counter wraps during the game
    store = CheckpointStore(fs)
    clock.start(base)
    now = base
    for i, used in enumerate((12000, 30000, 45000, 70000)):
        now = ticks_add(now, used)
        assert clock.press(now, i % 2)
        assert store.save({"game": 4, "clock": clock.checkpoint(now)}, now)
    later = ticks_add(now, 8000)  # black thinks 8 s, then the power goes
    assert store.save({"game": 4, "clock": clock.checkpoint(later)}, later)
    want = [clock.side_status(s, later) for s in (0, 1)]
    # boot
    data, warning = CheckpointStore(fs).load()
    assert warning is None and data["game"] == 4
    restored = gameclock.GameClock.restore(tc, data["clock"], Quiet())
    assert restored.state == gameclock.PAUSED and restored.turn == clock.turn
    assert [restored.side_status(s, 5) for s in (0, 1)] == want
    assert restored.moves_made == 4


def test_due_every_interval_across_the_wrap(tmp_path):
    store = CheckpointStore(FS(str(tmp_path)))
    start = TICKS_PERIOD - 3000
    assert store.due(start)
    store.save({}, start)
    assert not store.due(ticks_add(start, 9999))
    assert store.due(ticks_add(start, 10000))
    store.clear()
    assert store.due(start)


def test_damaged_checkpoint_is_refused(tmp_path):
    fs = FS(str(tmp_path))
    store = CheckpointStore(fs)
    store.save({"game": 1, "x": "读秒"}, 0)
    good = fs.read("checkpoint.json")
    assert decode(good)["data"] == {"game": 1, "x": "读秒"}
    for i in range(len(good)):
        flipped = bytearray(good)
        flipped[i] ^= 0x04
        with fs.open("checkpoint.json", "wb") as f:
            f.write(flipped)
        data, warning = CheckpointStore(fs).load()
        assert data is None and warning.startswith("checkpoint damaged"), i


def test_cut_write_leaves_old_or_new(tmp_path):
    fs = FS(str(tmp_path))
    store = CheckpointStore(fs)
    store.save({"move": 1}, 0)
    old = fs.read("checkpoint.json")
    new = b"".join(encode(2, {"move": 2}))
    for cut in range(len(new) + 1):
        with fs.open("checkpoint.json.new", "wb") as f:
            f.write(new[:cut])
        data, warning = CheckpointStore(fs).load()
        assert warning is None and data == {"move": 1}
    # the rename happened: the new one
    fs.rename("checkpoint.json.new", "checkpoint.json")
    assert CheckpointStore(fs).load() == ({"move": 2}, None)
    # FAT path: the old one removed, the new one complete
    with fs.open("checkpoint.json.new", "wb") as f:
        f.write(old)
    fs.remove("checkpoint.json")
    assert CheckpointStore(fs).load() == ({"move": 1}, None)


def test_clear_and_failures(tmp_path):
    fs = FS(str(tmp_path))
    store = CheckpointStore(fs)
    store.save({"a": 1}, 0)
    with fs.open("checkpoint.json.new", "wb") as f:
        f.write(b"stale")
    store.clear()
    assert fs.listdir("") == []
    assert store.load() == (None, None)

    class Full(FS):
        def write_atomic(self, name, data):
            raise OSError(28, "no space")

    full = CheckpointStore(Full(str(tmp_path)))
    assert full.save({"a": 2}, 100) is False
    assert full.failures == 1 and "checkpoint not written" in full.error
    assert not full.due(5000)  # the next try waits its turn
    assert full.save({"a": object()}, 20000) is False  # not JSON: reported, no exception
