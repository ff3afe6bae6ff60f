"""Game logs: record format, the checksum chain, torn tails, rotation and a full flash."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goclockfw.storage import gamelog
from goclockfw.storage.fs import FS
from goclockfw.storage.gamelog import GameLogStore, verify, verify_bytes
from lfs_helpers import mount, new_image


def game_bytes(store, gid=None):
    gid = store.current if gid is None else gid
    return store.read(gid, 0, 1 << 22)[0]


def small_game(fs, moves=10):
    store = GameLogStore(fs)
    store.begin(0, {"time_control": {"type": "byoyomi", "main": 60}})
    store.record("start", 0, 0)
    for i in range(moves):
        store.record("press", (i + 1) * 1000, i % 2, 1000, {"main_ms": 60000 - i * 500})
    store.record("call", 12345, 1, "30秒")
    return store


def test_record_format(tmp_path):
    store = small_game(FS(str(tmp_path)), moves=1)
    lines = game_bytes(store).split(b"\n")
    assert lines[-1] == b""
    assert lines[1].startswith(b'{"event":"start","t":0,"side":"black","c":"')
    assert lines[2].startswith(
        b'{"event":"press","t":1000,"side":"black","used_ms":1000,"main_ms":60000,"c":"'
    )
    assert "30秒".encode() in lines[3]
    # the checksum: crc32 of the line without its "c" part, seeded with the one before
    prev = 0
    for line in lines[:-1]:
        body = line[:-16] + b"}"
        import binascii

        c = binascii.crc32(body, prev)
        assert line[-16:] == b',"c":"%08x"}' % c
        prev = c
    r = verify_bytes(game_bytes(store))
    assert r["ok"] and r["errors"] == [] and not r["torn"]
    assert r["records"][0] == {
        "event": "game",
        "t": 0,
        "game": store.current,
        "time_control": {"type": "byoyomi", "main": 60},
    }


records = st.lists(
    st.tuples(
        st.sampled_from(["press", "call", "pause", "config", "battery", 'x"y', "\\"]),
        st.integers(-(2**40), 2**40),
        st.sampled_from([None, 0, 1]),
        st.one_of(
            st.none(),
            st.booleans(),
            st.integers(-(2**62), 2**62),
            st.text(max_size=12),
            st.lists(st.integers(), max_size=3),
        ),
        st.dictionaries(st.text(min_size=1, max_size=6), st.text(max_size=6), max_size=3),
    ),
    max_size=12,
)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(recs=records)
def test_any_records_come_back_verified(tmp_path_factory, recs):
    store = GameLogStore(FS(str(tmp_path_factory.mktemp("f"))))
    store.begin()
    for kind, t, side, value, extra in recs:
        assert store.record(kind, t, side, value, extra)
    result = verify_bytes(game_bytes(store))
    assert result["ok"], result["errors"]
    assert len(result["records"]) == len(recs) + 1
    for (kind, t, side, value, extra), rec in zip(recs, result["records"][1:]):
        want = {"event": kind, "t": t}
        if side is not None:
            want["side"] = ("black", "white")[side]
        if value is not None:
            want[gamelog.VALUE_FIELDS.get(kind, "value")] = value
        want.update(extra)
        assert rec == want


def test_tampering_is_found(tmp_path):
    data = game_bytes(small_game(FS(str(tmp_path))))
    lines = data.split(b"\n")[:-1]
    assert verify(lines)["ok"]
    # a changed digit: that line only; the chain goes on from its claim
    changed = list(lines)
    changed[4] = changed[4].replace(b'"t":3000', b'"t":3001')
    r = verify(changed)
    assert r["errors"] == [(5, "checksum mismatch")] and len(r["records"]) == len(lines) - 1
    assert not r["torn"]
    # a record removed: the next one no longer chains
    r = verify(lines[:3] + lines[4:])
    assert r["errors"] == [(4, "checksum mismatch")]
    # two records swapped: both, and the one after them, break the chain
    r = verify(lines[:3] + [lines[4], lines[3]] + lines[5:])
    assert [e[0] for e in r["errors"]] == [4, 5, 6]
    # a record made up and inserted
    fake = b'{"event":"press","t":1,"c":"00000000"}'
    assert verify(lines[:2] + [fake] + lines[2:])["errors"][0][0] == 3
    # str lines, CRLF endings and a final empty element are all fine
    text = [ln.decode() + "\r\n" for ln in lines] + [""]
    assert verify(text)["ok"]


def test_torn_tail_at_every_offset_is_dropped(tmp_path):
    fs = FS(str(tmp_path))
    store = small_game(fs, moves=3)
    gid = store.current
    store.close()
    data = fs.read("logs/%05d.log" % gid)
    last_start = data.rstrip(b"\n").rfind(b"\n") + 1
    for cut in range(last_start, len(data)):
        torn = data[:cut]
        with fs.open("logs/%05d.log" % gid, "wb") as f:
            f.write(torn)
        r = verify_bytes(torn)
        whole = cut in (last_start, len(data) - 1)  # at most the newline is missing
        assert r["ok"] if whole else r["torn"], cut
        store = GameLogStore(fs)
        if cut == len(data) - 1:
            assert store.recover() == 0
            assert fs.read("logs/%05d.log" % gid) == data
            continue
        assert store.recover() == cut - last_start
        assert fs.read("logs/%05d.log" % gid) == data[:last_start]
        # the game goes on after the boot, and the whole log verifies
        assert store.resume(gid)
        assert store.record("resume", 99999, None, None, {"power": "lost"})
        r = verify_bytes(fs.read("logs/%05d.log" % gid))
        assert r["ok"] and len(r["records"]) == 6 and r["records"][-1]["power"] == "lost"
        store.close()


def test_zero_filled_tail_is_dropped_and_middle_damage_kept(tmp_path):
    fs = FS(str(tmp_path))
    store = small_game(fs, moves=4)
    gid = store.current
    store.close()
    name = "logs/%05d.log" % gid
    data = fs.read(name)
    # a FAT-like cut: the size grew but the data never came
    with fs.open(name, "ab") as f:
        f.write(b"\x00" * 300)
    assert GameLogStore(fs).recover() == 300
    assert fs.read(name) == data
    # damage inside the log is evidence: boot keeps it, verify shows it
    bad = data.replace(b'"t":2000', b'"t":2999')
    with fs.open(name, "wb") as f:
        f.write(bad)
    store = GameLogStore(fs)
    assert store.recover() == 0
    assert store.resume(gid) and store.record("press", 1, 0, 1)
    r = verify_bytes(fs.read(name))
    assert [e[0] for e in r["errors"]] == [4] and len(r["records"]) == 7


def test_list_read_clear(tmp_path):
    fs = FS(str(tmp_path))
    store = small_game(fs, moves=2)
    first = store.current
    store.end(50000, "reset")
    store.begin()
    listed = store.list()
    assert [g["game"] for g in listed] == [first, first + 1]
    assert listed[0]["records"] == 6 and listed[0]["size"] == fs.size("logs/%05d.log" % first)
    assert listed[1]["records"] == 1
    data, size = store.read(first, 5, 10)
    assert len(data) == 10 and size == listed[0]["size"]
    assert store.read(first, size, 10) == (b"", size)
    with pytest.raises(ValueError, match="no game 77"):
        store.read(77, 0, 10)
    with pytest.raises(ValueError, match="kept"):
        store.clear(first + 1)
    assert store.clear() == 1 and store.games() == [first + 1]
    # a game cut off (no "end" record) is counted line by line
    store.record("press", 1, 0, 1)
    store.close()
    assert store.list()[0]["records"] == 2
    assert GameLogStore(fs).list()[0]["records"] == 2
    # stray files in logs/ are not games
    with fs.open("logs/notes.txt", "w") as f:
        f.write("x")
    assert store.games() == [first + 1]


def fill_game(store, n, size=100):
    ok = 0
    for i in range(n):
        ok += store.record("press", i * 1000, i % 2, 1000, {"pad": "x" * size})
    return ok


def test_rotation_drops_oldest_finished_games(tmp_path):
    image = new_image(16)  # 64 KiB
    fs, _ = mount(image, 16)
    store = GameLogStore(fs, reserve=12 * 1024)
    ids = []
    for _ in range(12):
        ids.append(store.begin())
        assert fill_game(store, 60) == 60  # about 9 KiB a game
        store.end(99, "reset")
    kept = store.games()
    assert 2 <= len(kept) < 12
    assert kept == ids[-len(kept) :]  # the newest ones, in order
    assert store.failures == 0
    for gid in kept:
        assert verify_bytes(game_bytes(store, gid))["ok"]


def test_full_flash_never_stops_the_game(tmp_path):
    fs, ctx = mount(new_image(16), 16)
    store = GameLogStore(fs, reserve=0)
    gid = store.begin()
    written = fill_game(store, 2000)
    assert 0 < written < 2000
    assert store.failures == 2000 - written
    assert "game log write failed" in store.error
    # no exception, and what was written verifies, every record of it
    r = verify_bytes(game_bytes(store, gid))
    assert r["ok"] and len(r["records"]) == written + 1
    # after a reboot the log is still whole
    store.close()
    fs2, _ = mount(bytes(ctx.buffer), 16)
    store2 = GameLogStore(fs2)
    assert store2.recover() == 0
    assert store2.resume(gid)
    assert verify_bytes(game_bytes(store2))["ok"]


def test_a_full_flash_frees_the_oldest_game_and_goes_on(tmp_path):
    fs, _ = mount(new_image(16), 16)
    store = GameLogStore(fs, reserve=0)
    old = store.begin()
    fill_game(store, 150)
    store.end(1, "reset")
    gid = store.begin()
    written = fill_game(store, 600)
    assert old not in store.games()  # freed when the flash filled up
    assert written > 150
    assert verify_bytes(game_bytes(store, gid))["ok"]


def test_unwritable_flash(tmp_path):
    class Broken(FS):
        def open(self, name, mode="r"):
            raise OSError(5, "I/O error")

    store = GameLogStore(Broken(str(tmp_path)))
    assert store.begin() is None
    assert store.record("press", 1, 0, 1) is False
    assert "cannot start a game log" in store.error
    store.end(5)


def test_values_json_cannot_write_are_reported(tmp_path):
    store = GameLogStore(FS(str(tmp_path)))
    store.begin()
    assert store.record("x", 1, None, object()) is False
    assert "not written" in store.error
    assert store.record("press", 2, 0, float("nan")) is True
    assert verify_bytes(game_bytes(store))["records"][-1] == {
        "event": "press",
        "t": 2,
        "side": "black",
        "used_ms": None,
    }
    assert json.loads(json.dumps(store.list()))
