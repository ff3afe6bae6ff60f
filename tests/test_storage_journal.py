"""The game logs in flash chunks (storage/chunks.py, storage/journal.py), on a real littlefs.

Record format and the checksum chain across parts; a record torn by a power cut at any
point is never served and the game goes on in a fresh part; damage inside a log is kept
for verify to show; list, read, clear; finished games dropped for room; a full flash
never stops the game (essential records first); and the flash budget: records, marks and
claims never erase, only the quiet-time `work()` does.
"""

import binascii
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goclockfw.events import VALUE_FIELDS
from goclockfw.storage.chunks import ChunkPool
from goclockfw.storage.journal import DATA_AT, SPARES_RUNNING, SPARES_START, Journal
from goclockfw.storage.logline import verify, verify_bytes
from support.cutflash import CutFlash
from support.flashfs import BLOCK, flash_fs

TC = {"type": "byoyomi", "main": 60, "periods": 3, "period": 30}


SETUP = 8  # spares made before a game: fewer than a board's 32, on these small flashes


def journal(blocks=32, flash=None, fresh=True):
    flash, fs = flash_fs(blocks, flash, fresh=fresh)
    j = Journal(ChunkPool(fs, flash), setup_spares=SETUP)
    j.load()
    return j


def ready(j, n=SETUP, running=False):
    """Quiet-time work until `n` spares are ready (or nothing more can be done)."""
    for _ in range(4 * n + 8):
        if len(j.spares) >= n or not j.wants_work(running):
            break
        j.work(running, j.pool.fs.free)


def whole(j, gid=None):
    gid = j.current if gid is None else gid
    return j.read(gid, 0, 1 << 22)[0]


def small_game(j, moves=10):
    ready(j)
    gid = j.begin()
    assert j.record("game", 0, None, None, (("game", gid), ("time_control", TC)))
    assert j.record("start", 0, 0)
    for i in range(moves):
        assert j.record("press", (i + 1) * 1000, i % 2, 1000, (("main_ms", 60000 - i * 500),))
    assert j.record("call", 12345, 1, "30秒")
    return gid


def test_record_format_and_chain():
    j = journal()
    gid = small_game(j, moves=1)
    data = whole(j)
    lines = data.split(b"\n")
    assert lines[-1] == b""
    assert lines[0].startswith(b'{"event":"game","t":0,"game":%d,"time_control":' % gid)
    assert lines[1].startswith(b'{"event":"start","t":0,"side":"black","c":"')
    assert lines[2].startswith(
        b'{"event":"press","t":1000,"side":"black","used_ms":1000,"main_ms":60000,"c":"'
    )
    assert "30秒".encode() in lines[3]
    prev = 0  # crc32 of the line without its "c" part, seeded with the one before
    for line in lines[:-1]:
        c = binascii.crc32(line[:-16] + b"}", prev)
        assert line[-16:] == b',"c":"%08x"}' % c
        prev = c
    r = verify_bytes(data)
    assert r["ok"] and not r["torn"] and r["records"][0]["time_control"] == TC
    # On the flash: the chunk's header, the claim line, then the records.
    i = j.games[gid][0]
    raw = bytearray(DATA_AT + 20)
    j.pool.read(i, 0, raw)
    assert raw[:5] == b"GCJ1 " and raw[22:34] == b"G%05d 0000\n" % gid
    assert raw[DATA_AT:].startswith(b'{"event":"game"')


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
    max_size=40,
)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(recs=records)
def test_any_records_come_back_verified_across_parts(recs):
    j = journal(blocks=24)
    ready(j)
    j.begin()
    for kind, t, side, value, extra in recs:
        assert j.record(kind, t, side, value, extra)
        if recs.index((kind, t, side, value, extra)) % 7 == 3:
            j.mark()  # a mark line between records changes nothing served as records
    result = verify_bytes(whole(j))
    assert result["ok"], result["errors"]
    assert len(result["records"]) == len(recs)
    for (kind, t, side, value, extra), rec in zip(recs, result["records"]):
        want = {"event": kind, "t": t}
        if side is not None:
            want["side"] = ("black", "white")[side]
        if value is not None:
            want[VALUE_FIELDS.get(kind, "value")] = value
        want.update(extra)
        assert rec == want


def test_a_log_spans_parts_and_marks_are_served_before_the_next_record_on_its_line():
    j = journal(blocks=24)
    ready(j)
    gid = j.begin()
    pad = "x" * 300
    for i in range(40):  # about 13 KB: four parts
        assert j.record("press", i * 1000, i % 2, 1000, (("pad", pad),))
        if i % 10 == 0:
            j.mark()
            j.mark()
    assert len(j.games[gid]) >= 4
    data = whole(j)
    assert data.count(b'\n..{"event":"press"') == 4  # one program each, no newline first
    assert b"\n." not in data.replace(b'\n..{"event":"press"', b"")
    r = verify_bytes(data)
    assert r["ok"] and len(r["records"]) == 40
    listed = j.list()[-1]
    assert listed == {"game": gid, "size": len(data), "records": 40}
    # read in pieces, as goclock logs pull does, gives the same bytes
    got = b""
    while True:
        chunk, size = j.read(gid, len(got), 512)
        if not chunk:
            break
        got += chunk
    assert got == data and size == len(data)


def test_tampering_is_found():
    j = journal()
    small_game(j)
    lines = whole(j).split(b"\n")[:-1]
    assert verify(lines)["ok"]
    changed = list(lines)  # a changed digit: that line only; the chain goes on from its claim
    changed[4] = changed[4].replace(b'"t":3000', b'"t":3001')
    r = verify(changed)
    assert r["errors"] == [(5, "checksum mismatch")] and len(r["records"]) == len(lines) - 1
    assert not r["torn"]
    r = verify(lines[:3] + lines[4:])  # a record removed: the next one no longer chains
    assert r["errors"] == [(4, "checksum mismatch")]
    r = verify(lines[:3] + [lines[4], lines[3]] + lines[5:])  # two swapped
    assert [e[0] for e in r["errors"]] == [4, 5, 6]
    fake = b'{"event":"press","t":1,"c":"00000000"}'  # a record made up and inserted
    assert verify(lines[:2] + [fake] + lines[2:])["errors"][0][0] == 3
    text = [ln.decode() + "\r\n" for ln in lines] + [""]  # str, CRLF, a final empty element
    assert verify(text)["ok"]


def _count_ops(j, action):
    flash = j.pool.bdev
    before = flash.erases
    action()
    return flash.erases - before


def test_records_marks_and_claims_never_erase_only_work_does():
    j = journal(blocks=48)
    ready(j)
    gid = j.begin()
    erases = _count_ops(
        j,
        lambda: [
            (j.record("press", i, i % 2, 5, (("pad", "y" * 200),)), j.mark()) for i in range(100)
        ],
    )
    assert erases == 0  # 100 records and marks over several parts: page programs only
    assert len(j.games[gid]) >= 6
    assert len(j.spares) < SPARES_RUNNING
    assert _count_ops(j, lambda: ready(j, SPARES_RUNNING, running=True)) >= 1


def test_a_game_in_progress_wants_the_running_target_paused_too():
    """SPARES_SETUP chunks are wanted before a game starts, SPARES_RUNNING from its first
    record until it is closed. A game started before its chunks were all made (the players
    pressed right after the reset) makes no more of them while stopped: each is a file
    created through littlefs, which allocates, and a paused clock's passes allocate
    nothing. It gets one once it is down to SPARES_RUNNING, paused or not; a chunk to
    recycle is erased in a pause (an erase, no file made)."""
    j = journal(blocks=64)
    ready(j, SPARES_RUNNING + 2)
    gid = j.begin()  # set up: claims one of them
    assert len(j.spares) == SPARES_RUNNING + 1
    assert j.wants_work(False)  # set up, not started: the setup target stands
    assert j.record("game", 0, None, None, (("game", gid), ("time_control", TC)))
    assert not j.wants_work(False) and not j.wants_work(True)  # paused, running
    chunks = len(j.pool)
    used = j.spares.pop()  # the game used a spare: still SPARES_RUNNING left
    assert not j.wants_work(False)
    j.spares.pop()  # ... and one more: below SPARES_RUNNING
    assert j.wants_work(False)
    ready(j, SPARES_RUNNING)
    assert len(j.spares) == SPARES_RUNNING and len(j.pool) == chunks + 1  # one made
    assert not j.wants_work(False)
    j._strike(used)  # a chunk to recycle (as a cleared game's part is)
    assert j.wants_work(False)
    j.work(False, j.pool.fs.free)
    assert used in j.spares and not j.dirty and len(j.pool) == chunks + 1  # erased, not made
    assert not j.wants_work(False)
    j.end(1000, "reset")
    j.begin()  # the next game set up: its chunks are made before it starts
    assert j.wants_work(False)
    ready(j)
    assert len(j.spares) == SETUP


@pytest.mark.parametrize("seed", range(1, 41))
def test_a_record_torn_at_any_point_is_never_served_and_the_game_goes_on(seed):
    """Power cut during the program of a record (a random prefix of it reached the flash)."""
    base = journal(blocks=24, flash=CutFlash(BLOCK, 24))
    gid = small_game(base, moves=3)
    flash = base.pool.bdev
    good = whole(base)
    flash.cut_at = flash.ops + 1  # the next page program is cut short
    flash.seed = seed
    base.record("press", 99000, 1, 777, (("pad", "z" * (seed * 7)),))
    assert flash.dead  # the cut came during this record
    # boot on what the flash holds
    after = CutFlash(BLOCK, 24)
    after.load(flash.image())
    j = journal(flash=after, fresh=False)
    served = whole(j, gid)
    # Unacknowledged, the record may have reached the flash whole, or not at all: never
    # in part (a part would be the served log's last line, failing its checksum).
    landed = served != good
    assert served.startswith(good) and verify_bytes(served)["ok"]
    assert not landed or served.count(b"\n") == good.count(b"\n") + 1
    scan = j.scan(gid)
    assert scan.records == 6 + landed
    assert j.begin(gid) == gid  # the game goes on in a fresh part
    assert j.record("log", 99001, None, None, (("notice", "power_resume"),))
    r = verify_bytes(whole(j))
    assert r["ok"] and len(r["records"]) == 7 + landed
    assert r["records"][-1]["notice"] == "power_resume"


def test_damage_inside_a_part_is_kept_for_verify_and_skipped_by_replay():
    j = journal()
    gid = small_game(j, moves=4)
    j.close()
    data = whole(j, gid)
    at = data.find(b'"t":2000')
    i = j.games[gid][0]
    j.pool.program(i, DATA_AT + at + 5, b"\x00")  # a bit flip: "2000" -> "\x0000" in flash
    j2 = journal(flash=j.pool.bdev, fresh=False)
    seen = []
    scan = j2.scan(gid, seen.append)
    assert scan.damaged == 1 and not scan.torn and len(seen) == 6
    r = verify_bytes(whole(j2, gid))
    assert [e[0] for e in r["errors"]] == [4] and len(r["records"]) == 6


def test_list_read_clear():
    j = journal()
    first = small_game(j, moves=2)
    j.end(50000, "reset")
    ready(j)
    second = j.begin()
    assert second == first + 1
    listed = j.list()
    assert [g["game"] for g in listed] == [first]  # the second has no log until it starts
    assert listed[0]["records"] == 6 and listed[0]["size"] == len(whole(j, first))
    assert j.record("start", 0, 0)
    assert j.list()[1] == {"game": second, "size": len(whole(j)), "records": 1}
    data, size = j.read(first, 5, 10)
    assert len(data) == 10 and size == listed[0]["size"]
    assert j.read(first, size, 10) == (b"", size)
    with pytest.raises(ValueError, match="no game 77"):
        j.read(77, 0, 10)
    with pytest.raises(ValueError, match="kept"):
        j.clear(second)
    assert j.clear() == 1 and j.ids() == [second]
    # cleared survives a boot (the claim is struck out at once), and ids are never reused
    j2 = journal(flash=j.pool.bdev, fresh=False)
    assert j2.ids() == [second]
    ready(j2)
    assert j2.begin() == second + 1
    # stray files in logs/ are not chunks
    with j2.pool.fs.open("logs/notes.txt", "w") as f:
        f.write("x")
    assert journal(flash=j.pool.bdev, fresh=False).ids() == [second, second + 1]


def test_finished_games_are_dropped_oldest_first_to_make_room():
    j = journal(blocks=40)  # 160 KB, of which littlefs leaves about 140 KB
    ids = []
    notes = []
    short = 0  # resets after which fewer than SETUP chunks could be made ready

    def work(running):
        for _ in range(64):
            if not j.wants_work(running):
                return
            note = j.work(running, j.pool.fs.free)
            if note:
                notes.append(note)

    for _ in range(16):
        work(False)  # the quiet time between games
        if ids:
            # The game just played is kept through the next game's preparation: a
            # finished game gives up its room before a game only below SPARES_START.
            assert ids[-1] in j.ids()
            assert len(j.spares) >= SPARES_START
            short += len(j.spares) < SETUP
        ids.append(j.begin())
        for i in range(40):
            assert j.record("press", i * 1000, i % 2, 1000, (("pad", "p" * 200),))
            work(True)  # its quiet moments: what it outgrows comes from finished games
        j.end(99, "reset")
    kept = j.ids()
    assert 2 <= len(kept) < 16
    assert kept == ids[-len(kept) :]  # the newest ones, in order
    assert notes and all("dropped to make room" in n for n in notes)
    assert short > 0  # the flash was full enough for the rule to matter
    for gid in kept:
        assert verify_bytes(whole(j, gid))["ok"]


def test_a_reset_on_a_small_flash_keeps_the_game_just_played():
    # A flash with room for a few chunks: the next game's preparation stops short of
    # SETUP rather than drop the only finished game; the next game takes that room when
    # it outgrows its chunks.
    j = journal(blocks=24)
    j.headroom = 8192
    ready(j, 64)
    first = j.begin()
    for i in range(150):  # about 40 KB: most of the flash
        assert j.record("press", i * 1000, i % 2, 1000, (("pad", "p" * 200),))
        if j.wants_work(True):
            j.work(True, j.pool.fs.free)
    j.end(99, "reset")
    ready(j)
    assert j.ids() == [first] and SPARES_START <= len(j.spares) < SETUP
    second = j.begin()
    notes = []
    for i in range(150):
        assert j.record("press", i * 1000, i % 2, 1000, (("pad", "p" * 200),))
        if j.wants_work(True):
            notes.append(j.work(True, j.pool.fs.free))
    assert "game %d dropped to make room for the game log" % first in notes
    assert j.ids() == [second]


def test_a_full_flash_never_stops_the_game():
    j = journal(blocks=24)
    j.headroom = 8192  # a small flash: keep less free than a board does
    ready(j)
    gid = j.begin()
    snapshots = []

    def snapshot():
        snapshots.append(1)
        return j.record("snapshot", 0, None, None, (("clock", {"moves": len(snapshots)}),))

    written = dropped_calls = 0
    for i in range(3000):
        if j.record("call", i, 0, "30秒"):
            written += 1
        else:
            dropped_calls += 1
        assert j.record("press", i * 1000, i % 2, 1000, (("pad", "q" * 60),)), i
        if j.wants_work(True):
            j.work(True, j.pool.fs.free, snapshot)
    assert dropped_calls > 0  # calls went first ...
    assert snapshots  # ... and the game gave up its oldest parts behind a snapshot
    scan = j.scan(gid)
    assert scan.missing > 0
    # what is left verifies from its first line (the "cut" records vouch for the start)
    # and ends with the last move
    v = verify_bytes(whole(j))
    assert v["ok"], v["errors"][:3]
    assert v["cut"] == scan.missing
    last = whole(j).split(b"\n")[-2]
    assert b'"t":2999000' in last
    assert json.loads(last[:-16] + b"}")["event"] == "press"


def test_a_full_flash_stopped_then_running_again_still_gives_up_its_oldest_part():
    """Quiet-time work that found nothing to do while the clock was stopped (a stopped game
    may not give up its parts) tries again once it runs: before, it waited for the count
    of spares to change, which only a give-up could do, and every later record was lost."""
    j = journal(blocks=24)
    j.headroom = 8192
    ready(j)
    gid = j.begin()

    def snapshot():
        return j.record("snapshot", 0, None, None, (("clock", {"moves": 1}),))

    pad = (("pad", "q" * 60),)
    i = 0
    while not (j.lean and len(j.spares) <= 1 and len(j.games[gid]) > 2):
        i += 1
        assert j.record("press", i * 1000, i % 2, 1000, pad)
        if j.wants_work(True):
            j.work(True, j.pool.fs.free, snapshot)
    while j.wants_work(False):  # paused: nothing to be done
        j.work(False, j.pool.fs.free, snapshot)
    assert j.wants_work(True)  # running again: its oldest part may go
    first = min(j.games[gid])
    while j.wants_work(True) and min(j.games[gid]) == first:
        j.work(True, j.pool.fs.free, snapshot)
    assert min(j.games[gid]) > first
    for k in range(200):  # and the game goes on being written
        assert j.record("press", (i + k) * 1000, k % 2, 1000, pad), k
        if j.wants_work(True):
            j.work(True, j.pool.fs.free, snapshot)
    assert verify_bytes(whole(j))["ok"]


def test_unwritable_flash():
    class Broken(CutFlash):
        def writeblocks(self, block, buf, offset=None):
            raise OSError(5)

    flash = Broken(BLOCK, 16)
    fs = flash_fs(16, CutFlash(BLOCK, 16))[1]  # a file system elsewhere: chunks fail
    j = Journal(ChunkPool(fs, flash))
    j.load()
    j.begin()  # the game written, with no part claimed: none can be
    assert "no erased flash" in j.error
    assert j.record("press", 1, 0, 1) is False
    j.end(5)


def test_values_json_cannot_write_are_reported():
    j = journal()
    ready(j)
    j.begin()
    assert j.record("x", 1, None, object()) is False
    assert "not written" in j.error
    assert j.record("press", 2, 0, float("nan")) is True
    assert verify_bytes(whole(j))["records"][-1] == {
        "event": "press",
        "t": 2,
        "side": "black",
        "used_ms": None,
    }


def test_chunk_names_stay_unique_when_the_random_source_repeats_itself(monkeypatch):
    # An emulated RP2040 gives the same "random" bytes every time: the chunks must still
    # each be found in exactly one block, across a reboot.
    import goclockfw.storage.chunks as chunks

    monkeypatch.setattr(chunks.os, "urandom", lambda n: b"\x2a" * n)
    j = journal(blocks=32)
    ready(j)
    assert len(j.spares) == SETUP and len(set(j.pool.names)) == SETUP
    assert len(set(j.pool.blocks)) == SETUP and min(j.pool.blocks) >= 0
    gid = j.begin()
    assert j.record("game", 0, None, None, (("game", gid), ("time_control", TC)))
    assert j.record("press", 1000, 0, 1000)
    j2 = journal(flash=j.pool.bdev, fresh=False)
    assert j2.ids() == [gid] and verify_bytes(whole(j2, gid))["ok"]


def test_a_chunk_name_a_stale_block_still_carries_is_not_used(monkeypatch):
    import goclockfw.storage.chunks as chunks

    flash, fs = flash_fs(32)
    pool = ChunkPool(fs, flash)
    pool.scan()
    first = pool.create()
    stale_name, stale_block = pool.names[first], pool.blocks[first]
    pool.remove(first)  # the file goes; its block keeps the header until reused
    names = iter([stale_name, stale_name, "00000000000000aa"])
    monkeypatch.setattr(chunks, "_nonce", lambda salt: next(names))
    i = pool.create()
    assert pool.names == ["00000000000000aa"] and pool.blocks[i] != stale_block


def test_a_long_record_gives_the_writers_buffer_back():
    """A snapshot's or a config's record is longer than the log writer's buffer, which grows
    for it. The writer hands its buffer round the held records' slots (app/records.py), so
    a grown buffer kept would leave one more grown at each such record; it is given back
    once the record is written, and the record is whole."""
    j = journal(blocks=32)
    j.work(False, j.pool.fs.free)
    j.begin()
    size = j.lines.size
    long_text = "x" * (3 * size)
    assert j.record("snapshot", 5000, None, None, (("clock", long_text),))
    assert len(j.lines.buf) == size
    assert j.record("press", 6000, 0, 6000, (("main_ms", 0),))
    data = j.read(1, 0, 100000)[0]
    assert long_text.encode() in data and verify_bytes(data)["ok"]
