"""Power cut exactly inside each write of the game logs that takes more than one operation.

Each test places the cut by counting the flash's operations (the cut falls at operation
`ops + k`: the k-th erase or program of the step under test, torn as support/cutflash.py
tears it), never by time, then boots on what the flash holds:

- clearing a game (`logs clear`, one game or all) or dropping it for room is one step
  for a reader: after a cut anywhere in it the game is whole or gone, never its last
  parts alone (whose first record is chained to a part that is gone: "the checksum
  chain is broken at line 1"), and a boot finishes a clear that was cut short;
- a claim torn anywhere claims nothing; progress marks before a torn byte still count;
  a set-up game whose first record was torn is not written over; the checksum a given-up
  part hands on is the one its readers computed; a record too big for a part is refused.

The broad campaign (every operation of long mixed workloads) is tests/test_powercut.py.
"""

import pytest

from goclockfw.storage.chunks import ChunkPool
from goclockfw.storage.journal import CLAIM_AT, DATA_AT, SPARES_RUNNING, Journal
from goclockfw.storage.logline import verify_bytes
from support.cutflash import TEARS, CutFlash
from support.flashfs import BLOCK, flash_fs
from support.mpy import run_mpy_json
from support.sessions import make_session, reboot
from test_storage_journal import SETUP, TC, ready, whole

BLOCKS = 48


def journal(flash, fresh=True):
    flash, fs = flash_fs(flash.block_count, flash, fresh=fresh)
    j = Journal(ChunkPool(fs, flash), setup_spares=SETUP)
    j.load()
    return j


def boot(flash):
    """The journal a boot finds on `flash` as the cut left it."""
    after = CutFlash(flash.block_size, flash.block_count)
    after.load(flash.image())
    return journal(after, fresh=False)


def game(j, moves, pad=300):
    gid = j.begin()
    assert j.record("game", 0, None, None, (("game", gid), ("time_control", TC)))
    assert j.record("start", 0, 0)
    for i in range(moves):
        assert j.record("press", (i + 1) * 1000, i % 2, 1000, (("pad", "p" * pad),))
    return gid


def three_games(flash):
    """A finished game of several parts, a finished game of one, and the game being played."""
    j = journal(flash)
    ready(j)
    long = game(j, 40)
    j.end(99000, "reset")
    ready(j)
    short = game(j, 2)
    j.end(5000, "reset")
    ready(j)
    current = game(j, 3)
    assert len(j.games[long]) >= 3 and len(j.games[short]) == 1
    return j, long, short, current


def removal(j, how, long):
    if how == "clear one":
        return lambda: j.clear(long)
    if how == "clear all":
        return lambda: j.clear()
    j.headroom = 1 << 30  # no room for a new chunk: the oldest finished game goes

    def drop():
        # The game being played (paused: not running) used its spares up to the last but
        # one, below SPARES_RUNNING: it needs a chunk, and there is no room for a new one.
        while len(j.spares) >= SPARES_RUNNING:
            j.spares.pop()
        return j.work(False, j.pool.fs.free)

    return drop


CASES = [(how, k) for how in ("clear one", "clear all", "drop") for k in range(1, 9)]


@pytest.mark.parametrize("tear", TEARS)
@pytest.mark.parametrize("how, k", CASES)
def test_a_game_cleared_or_dropped_is_whole_or_gone_after_a_cut_anywhere_in_it(how, k, tear):
    flash = CutFlash(BLOCK, BLOCKS)
    j, long, short, current = three_games(flash)
    before = {g: whole(j, g) for g in j.ids()}
    act = removal(j, how, long)
    flash.cut_at, flash.tear, flash.seed = flash.ops + k, tear, k
    act()
    j2 = boot(flash)
    for g in j2.ids():
        assert g in before
        served = whole(j2, g)
        assert verify_bytes(served)["ok"], (g, verify_bytes(served)["errors"])
        assert served == before[g], g  # whole: every part, not the last ones alone
    assert current in j2.ids()  # the game being played is never touched
    if how != "clear all":
        assert short in j2.ids()
    if not flash.dead:
        assert long not in j2.ids()  # done before the power went: gone
    # A boot finishes a clear cut short: booted again, nothing comes back.
    j3 = boot(j2.pool.bdev)
    assert j3.ids() == j2.ids()


@pytest.mark.parametrize("k", range(1, 6))
def test_a_cut_while_a_boot_finishes_a_clear_still_leaves_the_game_gone(k):
    flash = CutFlash(BLOCK, BLOCKS)
    j, long, short, current = three_games(flash)
    flash.cut_at = flash.ops + 2  # the clear is cut after its first program: half done
    j.clear(long)
    first = CutFlash(BLOCK, BLOCKS)  # the boot that finds it, itself cut at its k-th write
    first.load(flash.image())
    first.cut_at, first.tear = k, "noise"
    fs = flash_fs(BLOCKS, first, fresh=False)[1]
    Journal(ChunkPool(fs, first), setup_spares=SETUP).load()
    j2 = boot(first)
    assert long not in j2.ids() and {short, current} <= set(j2.ids())
    assert whole(j2, short) == whole(j, short) and whole(j2, current) == whole(j, current)


def _partial(target):
    """Every value but `target` a byte being programmed to `target` from erased can read
    after a cut: some of the bits it takes to 0 are 0 (bits only ever go from 1 to 0)."""
    return [v for v in range(256) if v & target == target and v != target]


def test_a_claim_torn_anywhere_claims_nothing_but_its_own_part():
    """Every state a cut can leave the claim line in, byte by byte and bit by bit: the bytes
    before one programmed, that one half, the rest erased. None is read as a claim: not
    of a part of another game, nor of another part of its own (before, a last digit half
    programmed, "G00002 0003" for "G00002 0001", claimed part 3)."""
    flash = CutFlash(BLOCK, 32)
    j = journal(flash)
    ready(j)
    g1 = game(j, 1, pad=10)
    j.end(2000, "reset")
    ready(j)
    g2 = game(j, 3, pad=10)
    spare = j.spares[0]
    at = j.pool.blocks[spare] * BLOCK + CLAIM_AT
    claim = b"G%05d %04d\n" % (g2, 1)  # the part it would claim next
    fs, ram = j.pool.fs, flash._ram

    def named(jj):  # game -> part -> the chunk's name (indexes differ between pools)
        return {g: {p: jj.pool.names[i] for p, i in jj.games[g].items()} for g in jj.games}

    before = named(j)
    states = 0
    for k in range(len(claim)):
        for v in _partial(claim[k]):
            ram[at : at + len(claim)] = claim[:k] + bytes((v,)) + b"\xff" * (len(claim) - k - 1)
            j2 = Journal(ChunkPool(fs, flash), setup_spares=SETUP)
            j2.load()
            states += 1
            assert j2.ids() == [g1, g2], (k, hex(v))
            assert named(j2) == before, (k, hex(v))
    assert states > 300


def three_marks():
    """(flash, journal, game, flash address of the byte after its three marks): a game of
    two moves whose clock has run on for three marks."""
    flash = CutFlash(BLOCK, 32)
    j = journal(flash)
    ready(j)
    gid = game(j, 2, pad=10)
    for _ in range(3):
        assert j.mark()
    return flash, j, gid, j.pool.blocks[j._chunk] * BLOCK + j._off


def test_no_state_a_cut_leaves_the_record_after_marks_in_reads_as_one_mark_more():
    """A record follows the marks on their line, in one program. Every value its first
    byte can hold while that program runs (bits go from 1 to 0, any of them at any time):
    the marks read back are the ones written, never one more. (A newline closing the marks
    in one go could stop at ".", which has every 1 bit a newline has: 1.5 s taken from the
    running side. A "{" cannot.)"""
    flash, j, gid, at = three_marks()
    flash.trace = []
    assert j.record("call", 9000, 0, "10")
    assert len(flash.trace) == 1  # one program: a press after marks costs no more
    states, value = {0xFF}, 0xFF
    for _, addr, data in flash.trace:
        if addr <= at < addr + len(data):
            target = value & data[at - addr]
            states |= {v for v in range(256) if v & target == target and v & value == v}
            value = target
    assert value == ord("{") and states == {0xFF, 0xFB, 0x7F, 0x7B}
    assert 0x2E not in states  # never "."
    fs = j.pool.fs
    for v in sorted(states):
        flash._ram[at : at + 200] = bytes((v,)) + b"\xff" * 199  # the rest not begun
        j2 = Journal(ChunkPool(fs, flash), setup_spares=SETUP)
        j2.load()
        assert j2.scan(gid).marks == 3, hex(v)


def test_marks_closed_by_a_newline_as_an_earlier_firmware_wrote_them_still_read():
    """An earlier firmware closed the marks with a newline before the next record: such a
    log still counts its marks, serves its records and verifies."""
    flash, j, gid, at = three_marks()
    flash._ram[at] = 0x0A  # the newline the earlier firmware wrote, then its record
    j._off += 1
    assert j.record("call", 9000, 0, "10")
    for _ in range(2):
        assert j.mark()
    j2 = boot(flash)
    scan = j2.scan(gid)
    assert scan.marks == 2 and scan.records == 5
    data = whole(j2, gid)
    assert b"\n...\n{" in data
    r = verify_bytes(data)
    assert r["ok"] and [x["event"] for x in r["records"]][-1] == "call"


def test_a_part_an_earlier_firmware_wrote_after_a_claim_without_its_newline_is_read():
    """The earlier firmware programmed a claim in one go; a cut that left its newline out
    left a set-up game it reopened and wrote into that part. Its log is still read."""
    flash = CutFlash(BLOCK, 32)
    j = journal(flash)
    ready(j)
    gid = game(j, 3, pad=10)
    before = whole(j)
    i = j.games[gid][0]
    at = j.pool.blocks[i] * BLOCK + CLAIM_AT + 11
    assert flash._ram[at] == 0x0A
    flash._ram[at] = 0xFF  # as if the newline had never been programmed
    j2 = boot(flash)
    assert j2.ids() == [gid] and whole(j2, gid) == before


@pytest.mark.parametrize("seed", range(1, 21))
@pytest.mark.parametrize("tear", TEARS)
def test_progress_marks_before_a_torn_byte_still_count(seed, tear):
    flash = CutFlash(BLOCK, 32)
    j = journal(flash)
    ready(j)
    gid = game(j, 2, pad=10)
    marks = 3 + seed % 5
    for _ in range(marks):
        assert j.mark()
    records = j.count()
    flash.cut_at, flash.tear, flash.seed = flash.ops + 1, tear, seed
    if seed % 2:
        j.mark()  # the next mark torn
    else:
        j.record("call", 9000, 0, "10")  # the record that follows the marks torn
    scan = boot(flash).scan(gid)
    if seed % 2:
        # A mark that landed whole counts too; one torn gives back its MARK_MS at most.
        assert scan.marks in (marks, marks + 1), scan.marks
    elif scan.records == records + 1:
        assert scan.marks == 0  # the record landed whole: its time is the clock's
    else:
        assert scan.records == records and scan.marks == marks, (scan.records, scan.marks)


def test_a_set_up_game_whose_first_record_was_torn_is_not_written_over():
    """The "game" record torn so that its first byte is still erased but later ones are
    not (as a program cut short can leave them): the part is not taken for an empty one."""
    s = make_session(CutFlash(BLOCK, 64))
    gid = s.journal.current
    i = s.journal.games[gid][0]
    s.journal.pool.program(i, DATA_AT + 1, b'"event":"ga\x00\x00')  # bits gone to 0
    s2 = make_session(s.board.flash, fresh=False)
    s2.commands.press(1, 0)  # white presses: black's clock starts, the game's log begins
    s2.commands.press(0, 3000)
    for g in s2.journal.ids():
        v = verify_bytes(whole(s2.journal, g))
        assert v["ok"], (g, v["errors"])
    assert [r["event"] for r in verify_bytes(whole(s2.journal))["records"]][:2] == [
        "game",
        "start",
    ]


def test_the_checksum_a_given_up_part_hands_on_is_the_one_its_readers_computed():
    """A part whose last line is damaged with its newline (a record torn by a cut) is given
    up for room later: the cut record names the chain its last good record left."""
    flash = CutFlash(BLOCK, 24)
    j = journal(flash)
    j.headroom = 8192
    ready(j)
    gid = game(j, 3, pad=10)
    line = bytearray(b'{"event":"press","t":9,"c":"0badc0de"}\n')
    line[5] = 0x7F  # bits a torn program left at 1; the checksum is still readable
    j.pool.program(j._chunk, j._off, line)
    j = boot(flash)
    j.headroom = 8192
    assert j.begin(gid) == gid  # resumed in a fresh part, as after a power cut

    def snapshot():
        return j.record("snapshot", 0, None, None, (("clock", {"moves": 1}),))

    for i in range(2000):
        assert j.record("press", 10000 + i * 1000, i % 2, 1000, (("pad", "r" * 60),))
        if j.wants_work(True):
            j.work(True, j.pool.fs.free, snapshot)
        if min(j.games[gid]) > 0:
            break
    assert j.scan(gid).missing  # the first part went
    v = verify_bytes(whole(j))
    assert v["ok"], v["errors"][:3]
    assert v["cut"] >= 1


def test_a_game_resumed_before_any_spare_was_made_loses_no_record():
    """A fresh flash: the first boot made one chunk, the game took it. The power goes a
    few moves in, before quiet time made more: the boot that resumes it has no spare for
    its fresh part. It makes one (a boot is quiet), so what is played at once after it is
    written: before, the resumed game was never written again (every later press lost);
    with the part claimed only once quiet time had made one, the records before that were
    dropped, a "resume" among them, and the next boot replayed the game to a wrong move."""
    s = make_session(CutFlash(BLOCK, 64))
    assert not s.journal.spares
    gid = s.journal.current
    s.commands.press(1, 0)
    s.commands.press(0, 2000)
    s2 = reboot(s, now=10000)
    assert s2.journal.current == gid and s2.clock.state == "paused"
    s2.commands.resume()  # at once: no loop pass, no quiet moment in between
    s2.commands.press(1, 10500)
    s2.commands.press(0, 11000)
    v = verify_bytes(whole(s2.journal, gid))
    assert v["ok"], v["errors"]
    assert [r["move"] for r in v["records"] if r["event"] == "press"] == [1, 2, 3]
    assert "resume" in [r["event"] for r in v["records"]]
    s3 = reboot(s2, now=20000)
    assert s3.clock.moves_made == 3 and not s3.records.storage_error


def test_a_game_not_resumed_before_any_spare_was_made_is_closed_all_the_same():
    """The same fresh flash and cut, and the next power-up with both player buttons held:
    the game is closed "not resumed" though no spare was ready for the part that record
    needs (the boot makes one first). Before, its end record was dropped, and the next
    ordinary boot resumed the game the arbiter had chosen to skip (seen in make test
    whenever the first boot was cut before its quiet time made a second chunk)."""
    s = make_session(CutFlash(BLOCK, 64))
    assert not s.journal.spares
    gid = s.journal.current
    s.commands.press(1, 0)
    s.commands.press(0, 2000)
    s2 = reboot(s, now=10000, resume=False)
    assert s2.clock.state == "idle" and s2.journal.current != gid
    v = verify_bytes(whole(s2.journal, gid))
    assert v["ok"], v["errors"]
    last = v["records"][-1]
    assert last["event"] == "end" and "not resumed" in last["reason"], last
    s3 = reboot(s2, now=20000)  # an ordinary boot: the game stays closed
    assert s3.clock.state == "idle" and s3.journal.current != gid


def test_a_record_too_big_for_a_part_is_refused_not_programmed_past_it():
    flash = CutFlash(1024, 96)
    j = journal(flash)
    ready(j)
    game(j, 1, pad=10)
    image = flash.image()
    assert j.record("log", 5, None, None, (("message", "m" * 1100),)) is False
    assert "too long" in j.error
    assert flash.image() == image  # nothing programmed, in this chunk or the next block
    assert j.record("press", 6000, 0, 1000)
    assert verify_bytes(whole(j))["ok"]


DRIVER = """
import json
from support.cutflash import CutFlash
from support.flashfs import flash_fs, release
from goclockfw.storage.chunks import ChunkPool
from goclockfw.storage.journal import Journal
from goclockfw.storage.logline import verify_bytes

def journal(flash, fresh):
    fs = flash_fs(flash.block_count, flash, fresh=fresh)[1]
    j = Journal(ChunkPool(fs, flash), setup_spares=8)
    j.load()
    return j

def ready(j):
    while len(j.spares) < 8 and j.wants_work(False):
        j.work(False, j.pool.fs.free)

def whole(j, g):
    return j.read(g, 0, 1 << 22)[0]

for k in range(1, 7):
    for tear in ("prefix", "bits", "noise"):
        flash = CutFlash(4096, 48)
        j = journal(flash, True)
        ready(j)
        ids = []
        for moves in (40, 3):
            gid = j.begin()
            ids.append(gid)
            j.record("game", 0, None, None, (("game", gid),))
            for i in range(moves):
                j.record("press", i * 1000, i % 2, 1000, (("pad", "p" * 300),))
            if moves == 40:
                j.end(99000, "reset")
                ready(j)
        before = {g: whole(j, g) for g in ids}
        flash.cut_at, flash.tear, flash.seed = flash.ops + k, tear, k
        j.clear(ids[0])
        after = CutFlash(4096, 48)
        after.load(flash.image())
        release(j.pool.fs)
        j2 = journal(after, False)
        out = {"k": k, "tear": tear, "ids": j2.ids(), "parts": len(j.games.get(ids[0], {})),
               "whole": [whole(j2, g) == before[g] for g in j2.ids()],
               "ok": [verify_bytes(whole(j2, g))["ok"] for g in j2.ids()]}
        release(j2.pool.fs)
        print(json.dumps(out))
"""


def test_under_micropython_a_cleared_game_is_whole_or_gone(micropython, tmp_path):
    """The same cut on the unix port's own littlefs (os.VfsLfs2)."""
    out = run_mpy_json(micropython, tmp_path, DRIVER, timeout=300)
    assert len(out) == 18
    for r in out:
        assert all(r["whole"]) and all(r["ok"]), r
        assert len(r["ids"]) in (1, 2), r
