"""Power cuts at any flash operation, and what a boot afterwards must find (both engines).

`play(seed, cut_at)` runs the real session on a fresh flash (support/cutflash.py) whose
power goes at erase-or-program number `cut_at` (0: never): presses, the arbiter's pauses
and resumes, config writes while paused, resets, and time passing in virtual time. Every
action the session answered before the cut is *acknowledged* (the reply would have gone
out: the press's record came first). Then `check(run)` boots a new session on what the
flash holds and lists every problem:

- a press acknowledged but missing from its game (by move number, side and time), or
  moves numbered with a gap or a repeat, or times that go backwards in a log;
- a game that was reset (acknowledged) coming back;
- the running side given back more than 2 s (or any time taken from a side);
- a config that is neither the last one acknowledged nor the one being written;
- a finished game announced as resumed; a log that does not verify.

Plain MicroPython-compatible Python: the same file runs under the unix port.
"""

import json

from goclockfw.app.wake import session_ms
from goclockfw.core import gameclock
from goclockfw.storage.logline import verify_bytes
from support.cutflash import CutFlash
from support.flashfs import release
from support.sessions import make_session

BLOCKS = 48
TC = {"type": "byoyomi", "main": 20, "periods": 3, "period": 10}
REGAIN_MS = 2000


class Run:
    def __init__(self, seed, cut_at):
        self.seed = seed
        self.cut_at = cut_at
        self.flash = CutFlash(4096, BLOCKS, cut_at, seed * 7 + 1)
        self.acks = []  # ("press", game, move, side, t) ("reset", game) ("volume", v) ...
        self.volumes = [7]  # acknowledged config volumes, in order
        self.writing_volume = None  # a config write under way at the cut
        self.session = None
        self.now = 0
        self.cut_now = None  # the tick at which the power went
        self.ops = 0


def _rand(state):
    state[0] = (state[0] * 1103515245 + 12345) & 0x7FFFFFFF
    return state[0]


def _alive(run):
    if run.flash.dead and run.cut_now is None:
        run.cut_now = run.now
    return not run.flash.dead


def play(seed, cut_at, actions=60):
    run = Run(seed, cut_at)
    _play(run, actions)
    run.ops = run.flash.ops
    if run.cut_now is None:
        run.cut_now = run.now
    return run


def _play(run, actions):
    seed = run.seed
    rnd = [seed * 2654435761 & 0x7FFFFFFF or 1]
    try:
        s = make_session(run.flash, now=0)
    except OSError:
        return  # the cut came while formatting or booting: nothing was acknowledged
    run.session = s
    if not _alive(run):
        return
    try:
        s.commands.set_config(_config(s, TC, 7))
        s.commands.reset(None)
    except (OSError, ValueError):
        return
    if not _alive(run):
        return
    for _ in range(actions):
        r = _rand(rnd) % 100
        c = s.clock
        if c.state == gameclock.IDLE:
            _act(run, lambda: s.commands.press(1 - s.tc.first, run.now), "start")
        elif c.state == gameclock.RUNNING:
            if r < 70:
                side = c.turn
                game = s.journal.current
                ok = s.commands.press(side, run.now)
                if ok and _alive(run):
                    move = s.clock.moves_made
                    run.acks.append(("press", game, move, side, s.records.t(run.now)))
            elif r < 85:
                _act(run, s.commands.pause, "pause")
        elif c.state == gameclock.PAUSED:
            if r < 30:
                v = _rand(rnd) % 11
                run.writing_volume = v
                if _act(run, lambda v=v: s.commands.set_config(_config(s, None, v)), "volume"):
                    run.volumes.append(v)
                    run.writing_volume = None
            elif r < 45:
                game = s.journal.current
                if _act(run, lambda: s.commands.reset(None), "reset"):
                    run.acks.append(("reset", game))
            else:
                _act(run, s.commands.resume, "resume")
        else:  # ended: a new game
            game = s.journal.current
            if _act(run, lambda: s.commands.reset(None), "reset"):
                run.acks.append(("reset", game))
        if not _alive(run):
            break
        # Time passes, stepped as the board's loop steps: it wakes when the session asks.
        until = run.now + 50 + _rand(rnd) % 5000
        while run.now < until and _alive(run):
            wait = session_ms(s, run.now)
            run.now += wait if 0 < wait < until - run.now else until - run.now
            s.step(run.now)
        if not _alive(run):
            break


def _act(run, fn, name):
    try:
        out = fn()
    except (OSError, ValueError):
        return False
    if out is False:  # a press ignored
        return False
    return _alive(run)


def _config(s, tc, volume):
    cfg = dict(s.store.config)
    if tc is not None:
        cfg["time_control"] = tc
    cfg["volume"] = volume
    from goclockfw.storage.configstore import validate_config

    return validate_config(cfg)


def _left(st, tc):
    """A side's time until its flag, in ms (byo-yomi: main + the periods)."""
    period = tc.get("period", 0) * 1000
    if st.get("periods", 0) and st["main_ms"] == 0:
        return (st["periods"] - 1) * period + st["period_ms"]
    return st["main_ms"] + st.get("periods", 0) * period


def check(run):
    """The problems a boot after the cut finds (empty: all is well), and the time regained."""
    problems = []
    regained = None
    if run.session is None:
        return problems, regained
    after = CutFlash(4096, BLOCKS)
    after.load(run.flash._ram)
    release(run.session.fs)
    try:
        b = make_session(after, now=run.cut_now + 5000, fresh=False)
    except OSError as e:
        return ["boot failed: %r" % (e,)], regained
    try:
        return _check(run, b)
    finally:
        release(b.fs)


def _check(run, b):
    problems = []
    regained = None
    # Config: the last acknowledged volume, or the one being written at the cut.
    vol = b.store.config["volume"]
    if vol != run.volumes[-1] and vol != run.writing_volume:
        problems.append("volume %r, acknowledged %r" % (vol, run.volumes[-1]))
    # Logs: every one verifies, moves numbered without gaps or repeats, time goes forward.
    presses = {}
    for g in b.journal.ids():
        data = b.journal.read(g, 0, 1 << 24)[0]
        v = verify_bytes(data)
        if not v["ok"]:
            problems.append("game %d log: %r" % (g, v["errors"][:3]))
        last_t = -1
        moves = []
        for rec in v["records"]:
            if rec["t"] < last_t and rec["event"] != "game":
                problems.append("game %d: time goes back at %r" % (g, rec))
            last_t = rec["t"]
            if rec["event"] == "press":
                moves.append((rec["move"], ("black", "white").index(rec["side"]), rec["t"]))
        for i, m in enumerate(moves):
            if m[0] != i + 1:
                problems.append("game %d: move %d numbered %d" % (g, i + 1, m[0]))
                break
        presses[g] = moves
    for a in run.acks:
        if a[0] == "press":
            _, g, move, side, t = a
            if (move, side, t) not in presses.get(g, ()):
                problems.append("acknowledged press lost: game %d move %d" % (g, move))
        elif a[0] == "reset":
            if b.journal.current == a[1] and b.clock.state != gameclock.IDLE:
                problems.append("game %d was reset but came back" % a[1])
    # The running side's time: the boot gives back at most 2 s, takes nothing.
    live = run.session.clock
    same_game = b.journal.current == run.session.journal.current
    if same_game and live.state == gameclock.RUNNING and b.clock.moves_made == live.moves_made:
        tc = json.loads(json.dumps(run.session.tc.to_json()))
        truth = live.status(run.cut_now)
        got = b.clock.status(b.now)
        side = ("black", "white")[live.turn]
        other = ("black", "white")[1 - live.turn]
        regained = _left(got[side], tc) - _left(truth[side], tc)
        if not 0 <= regained <= REGAIN_MS:
            problems.append("running side regained %d ms" % regained)
        if _left(got[other], tc) != _left(truth[other], tc):
            problems.append("the side not to move changed: %r %r" % (got[other], truth[other]))
    if live.state == gameclock.ENDED and same_game and b.clock.state != gameclock.ENDED:
        problems.append("a finished game came back as %s" % b.clock.state)
    return problems, regained
