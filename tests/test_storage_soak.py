"""A 10,000-move game on a nearly full flash, then the power goes: the game comes back at
its last move (issue 11: "the soak with a nearly full flash resumes at the last move").

The flash is the Pico's littlefs (352 blocks of 4 KB), already holding what a board
holds besides the clock's logs (a voice pack's worth of files) and two finished games,
so the game's log (about 1.5 MB of records: a press, the byo-yomi calls) cannot fit: the
journal must drop the finished games, then the game's own oldest parts behind
snapshots, and drop call records before it ever refuses a press. Time is virtual and
stepped as the board's loop steps it (the session says how long it may sleep), so the
run is the same on any machine.
"""

from goclock.records.gamerecord import GameRecord
from goclock.records.verify import Check
from goclockfw.app.wake import session_ms
from goclockfw.core import gameclock
from goclockfw.desktop.flash import NorFlash
from goclockfw.storage.logline import verify_bytes
from support.flashfs import flash_fs
from support.sessions import make_session

BLOCKS = 352  # the Pico's littlefs region: 1408 KB
LEFT = 240 * 1024  # free after a voice pack and other files: what the clock's logs get
MOVES = 10000
TC = {"type": "byoyomi", "main": 300, "periods": 5, "period": 30}
REGAIN_MS = 2000


def _rand(state):
    state[0] = (state[0] * 1103515245 + 12345) & 0x7FFFFFFF
    return state[0]


def _fill(fs, left):
    """Files until the file system has about `left` bytes free."""
    big = b"\xa5" * 60000
    small = big[:4000]
    fs.mkdir("filler")
    i = 0
    while fs.free() > left:
        with fs.open("filler/%03d.bin" % i, "wb") as f:
            f.write(big if fs.free() > left + 80000 else small)
        i += 1


def _run_to(s, now, until):
    """Time passes to `until` as the loop passes it: woken when the session asks."""
    while now < until:
        wait = session_ms(s, now)
        if not s.records.held:  # (held records: the loop passes again at once)
            now += wait if 0 < wait < until - now else until - now
        s.step(now)
    return now


def _short_game(s, now):
    s.commands.reset(None)
    for _ in range(21):
        side = 1 if s.clock.state == gameclock.IDLE else s.clock.turn  # White's starts it
        assert s.commands.press(side, now), s.commands.reason
        now = _run_to(s, now, now + 2000)
    s.commands.pause()
    s.commands.reset(None)  # finished: a game the journal may drop to make room
    return now


def test_a_10000_move_game_on_a_nearly_full_flash_resumes_at_its_last_move():
    flash, fs = flash_fs(BLOCKS)
    _fill(fs, LEFT)
    s = make_session(flash, fresh=False)
    cfg = dict(s.store.config, time_control=TC)
    s.commands.set_config(cfg)
    now = _short_game(s, 0)
    now = _short_game(s, now)
    old_games = s.journal.ids()[:2]
    s.commands.reset(None)
    game = s.journal.current
    rnd = [12345]
    ok = s.commands.press(1, now)  # White's button starts Black's clock
    assert ok, s.commands.reason
    for move in range(1, MOVES + 1):
        # Mostly quick moves, some long ones that run into byo-yomi and its calls.
        r = _rand(rnd) % 100
        think = 400 + _rand(rnd) % (3000 if r < 80 else 27000)
        now = _run_to(s, now, now + think)
        side = s.clock.turn
        ok = s.commands.press(side, now)
        assert ok, "move %d refused: %s" % (move, s.commands.reason)
        assert s.clock.moves_made == move
    now = _run_to(s, now, now + 700)  # the last press's progress mark window
    before = s.commands.status()
    assert before["state"] == "running" and before["moves"] == MOVES

    # The power goes: a new session boots on what the flash holds, 5 s later.
    after = NorFlash(flash.block_size, flash.block_count)
    after._ram[:] = flash.image()
    b = make_session(after, now=now + 5000, fresh=False)
    st = b.commands.status()
    assert st["state"] == gameclock.PAUSED and st["game"] == game
    assert st["moves"] == MOVES and st["turn"] == before["turn"]
    mover = before["turn"]
    waiting = "white" if mover == "black" else "black"
    assert st[waiting] == before[waiting]  # the side not on move: to the millisecond
    gained = _left_ms(st[mover]) - _left_ms(before[mover])
    assert 0 <= gained <= REGAIN_MS, gained

    # The finished games made room first; what is left of the game verifies and ends with
    # its last move.
    kept = b.journal.ids()
    assert not [g for g in old_games if g in kept]
    data = b.journal.read(game, 0, 1 << 24)[0]
    check = verify_bytes(data)
    assert check["ok"], check["errors"][:3]  # from its first line, by the clock's "cut"
    assert check["cut"] > 0
    # A beginning taken away by anyone else does not verify: one more record gone.
    lines = data.split(b"\n")
    first = next(k for k, line in enumerate(lines) if line.strip(b"."))
    assert not verify_bytes(b"\n".join(lines[:first] + lines[first + 1 :]))["ok"]
    presses = [r for r in check["records"] if r["event"] == "press"]
    assert presses[-1]["move"] == MOVES
    moves = [r["move"] for r in presses]
    assert moves == list(range(moves[0], MOVES + 1))  # no gap, no repeat in what is kept
    assert moves[0] > 1  # the oldest parts went, behind a snapshot
    assert any(r["event"] == "snapshot" for r in check["records"])

    # What an arbiter's `goclock logs verify` and `logs report` make of it.
    record = GameRecord(data)
    assert record.game == game and record.time_control["type"] == "byoyomi"
    assert record.moves[0]["n"] == moves[0] and record.moves[-1]["n"] == MOVES
    assert Check(record).ok and not Check(record).problems
    assert Check(record).verdict.startswith("intact from move %d on" % moves[0])


def _left_ms(side):
    """A byo-yomi side's time to its flag: main time, then the periods left."""
    period = TC["period"] * 1000
    if side["main_ms"] == 0 and side["periods"]:
        return (side["periods"] - 1) * period + side["period_ms"]
    return side["main_ms"] + side["periods"] * period
