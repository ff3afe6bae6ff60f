"""Power cuts at any flash operation, and what a boot afterwards must find (both engines).

`play(seed, cut_at)` runs the real session on a fresh flash (support/cutflash.py) whose
power goes at erase-or-program number `cut_at` (0: never), doing what a clock at a
tournament does: presses, the arbiter's pauses and resumes, config writes while paused
(the volume, the time control), presets pushed, resets (to the config or to a preset),
finished games' logs cleared (one or all), and time passing in virtual time, so games
run over several parts, chunks are recycled, and on a small flash finished games are
dropped for room. Every action the session answered before the cut is *acknowledged*
(the reply would have gone out: a press's record came first). Then `check(run)` boots a
new session on what the flash holds and lists every problem:

- a press acknowledged but missing from its game (by move number, side and time), or
  moves numbered with a gap or a repeat, or times that go backwards in a log;
- a log that does not verify; a finished game with moves whose log has no "end" record
  (the tail of a log lost);
- a game that was reset, cleared or dropped (acknowledged) coming back; a game being
  cleared or dropped at the cut that comes back other than whole;
- the running side given back more than 2 s (or any time taken from a side);
- a config or presets that are neither the last ones acknowledged nor the ones being
  written;
- a finished game announced as resumed.

The same checks run on a replay of an uncut run's flash operations cut at each one in
turn (support/powercuts.py): for that, each operation is tied to the `Truth` of the
action it belongs to (what was acknowledged before it, what the session held after it).

Plain MicroPython-compatible Python: the same file runs under the unix port.
"""

import json

from goclockfw.app.wake import session_ms
from goclockfw.core import gameclock
from goclockfw.storage import chunks
from goclockfw.storage.configcheck import validate_config, validate_presets
from goclockfw.storage.logline import verify_bytes
from support.cutflash import CutFlash
from support.flashfs import release
from support.sessions import make_session

# Flash geometries: the Pico's blocks on a small flash, and 1 KB blocks (games of many
# parts, recycled chunks and finished games dropped for room within a few hundred
# actions; "tiny" is so small that a long game gives up its own oldest parts).
GEOMETRIES = {"pico": (4096, 48), "small": (1024, 72), "tiny": (1024, 44), "pico-full": (4096, 28)}
BLOCKS = GEOMETRIES["pico"][1]
TC = {"type": "byoyomi", "main": 20, "periods": 3, "period": 10}
# Time controls the workload configures and pushes as presets: short, so games reach
# their overtime and some flag.
TCS = (
    TC,
    {"type": "byoyomi", "main": 0, "periods": 5, "period": 10},
    {"type": "sudden_death", "main": 90},
    {"type": "fischer", "main": 30, "increment": 3},
    {"type": "canadian", "main": 15, "moves": 5, "period": 30},
)
# One long game: byo-yomi from the first move, periods long enough that the clock has
# quiet moments for the flash's upkeep between calls.
MARATHON_TC = {"type": "byoyomi", "main": 0, "periods": 5, "period": 30}
REGAIN_MS = 2000


class Truth:
    """What a boot after a cut inside one action must find: what was acknowledged before
    the action began, and what the session held once it was done."""

    def __init__(self, run, games):
        self.acks = len(run.acks)
        self.config = run.configs[-1]
        self.writing_config = run.writing_config
        self.presets = run.presets[-1]
        self.writing_presets = run.writing_presets
        self.gone = run.gone  # games whose removal (reset, clear, drop) was acknowledged
        self.games = games  # the games the journal held when the action began
        self.removing = ()  # of those, the ones the action removed
        self.now = run.now
        self.live = None  # (state, turn, moves, status at now, tc) after the action
        self.current = None  # the game being written after the action
        self.ended = run.ended  # the game that had ended (lost on time, say) before it

    def settle(self, run):
        s = run.session
        after = set(s.journal.games)
        self.removing = [g for g in self.games if g not in after]
        c = s.clock
        self.live = (c.state, c.turn, c.moves_made, c.status(run.now), s.tc.to_json())
        self.current = s.journal.current


class Run:
    def __init__(self, seed, cut_at, geometry="pico", tear="prefix", trace=False):
        self.seed = seed
        self.cut_at = cut_at
        self.geometry = geometry
        block, blocks = GEOMETRIES[geometry]
        self.flash = CutFlash(block, blocks, cut_at, seed * 7 + 1, tear=tear)
        self.acks = []  # ("press", game, move, side, t) ("reset", game) ("clear", [games])
        self.configs = [None]  # acknowledged configs (JSON text), in order
        self.writing_config = None  # a config write under way
        self.presets = [None]
        self.writing_presets = None
        self.gone = ()  # games whose removal was acknowledged
        self.session = None
        self.now = 0
        self.cut_now = None  # the tick at which the power went
        self.ops = 0
        self.booted_at = 0  # operations of formatting and the first boot (no checks there)
        self.truth = None  # of the action under way, once it has touched the flash
        self.known = []  # the games the journal held after the last action answered
        self.ended = None  # the game whose end (a flag) was acknowledged: shown as ended
        self._games = ()
        self.tracing = trace
        if trace:
            self.flash.trace = []
            self.op_truth = [None]  # operation number -> its Truth (index 0 unused)
            self.flash.on_trace = self._on_op

    def _on_op(self, n):
        if self.truth is None and self.session is not None:
            self.truth = Truth(self, self._games)
        self.op_truth.append(self.truth)

    def begin_action(self):
        """An action starts: operations from here on belong to it."""
        self.truth = None
        s = self.session
        if s is not None:
            ended = s.clock.state == gameclock.ENDED
            self.ended = s.journal.current if ended else None
            if self.tracing:
                self._games = list(s.journal.games)

    def end_action(self):
        if self.truth is not None:
            self.truth.settle(self)
        self.truth = None


def _rand(state):
    state[0] = (state[0] * 1103515245 + 12345) & 0x7FFFFFFF
    return state[0] >> 4


def _alive(run):
    if run.flash.dead and run.cut_now is None:
        run.cut_now = run.now
    return not run.flash.dead


def names(seed):
    """Chunk names drawn from `seed` (chunks._nonce's are random): the same run, the same
    blocks, every time."""
    state = [(seed * 40503 + 7) & 0x3FFFFFFF or 1]

    def nonce(salt):
        out = ""
        for _ in range(4):
            state[0] = (state[0] * 1103515245 + 12345) & 0x7FFFFFFF
            out += "%04x" % ((state[0] >> 8) & 0xFFFF)
        return out

    return nonce


class _Names:
    """`with _Names(seed):` chunks get their names from `names(seed)`."""

    def __init__(self, seed):
        self.nonce = names(seed)

    def __enter__(self):
        self.saved = chunks._nonce
        chunks._nonce = self.nonce

    def __exit__(self, *exc):
        chunks._nonce = self.saved


def play(seed, cut_at, actions=60, geometry="pico", tear="prefix", trace=False, mix=None):
    """The workload of `seed`. `mix`: None for presses, pauses, volume writes and resets
    only (the project's first power-cut test); "all" for everything above; "marathon" for
    one long game in byo-yomi with the arbiter's config and presets writes while paused
    (no reset, no clear: on a small flash it outgrows the flash and gives up its oldest
    parts behind snapshots)."""
    run = Run(seed, cut_at, geometry, tear, trace)
    with _Names(seed):
        _play(run, actions, mix)
    run.ops = run.flash.ops
    if run.cut_now is None:
        run.cut_now = run.now
    return run


def _play(run, actions, mix):
    seed = run.seed
    rnd = [seed * 2654435761 & 0x7FFFFFFF or 1]
    try:
        s = make_session(run.flash, now=0)
    except OSError:
        return  # the cut came while formatting or booting: nothing was acknowledged
    if not _alive(run):
        return
    run.session = s
    run.known = list(s.journal.games)
    run.booted_at = run.flash.ops
    run.configs = [_json(s.store.config)]
    run.presets = [_json(s.store.presets())]
    if not _config(run, MARATHON_TC if mix == "marathon" else TC, 7):
        return
    if not _do(run, lambda: s.commands.reset(None)):
        return
    for _ in range(actions):
        _one(run, s, rnd, mix)
        if not _alive(run):
            break
        # Time passes, stepped as the board's loop steps: it wakes when the session asks.
        until = run.now + 50 + _rand(rnd) % 5000
        while run.now < until and _alive(run):
            wait = session_ms(s, run.now)
            if not s.records.held:  # (held records: the loop passes again at once)
                run.now += wait if 0 < wait < until - run.now else until - run.now
            run.begin_action()
            s.step(run.now)
            if _alive(run):
                _removed(run)
            run.end_action()
        if not _alive(run):
            break


def _one(run, s, rnd, mix):
    r = _rand(rnd) % 100
    c = s.clock
    if c.state == gameclock.IDLE:
        if mix and r < 24:
            _setup(run, s, rnd, mix)
        else:
            _do(run, lambda: s.commands.press(1 - s.tc.first, run.now))
    elif c.state == gameclock.RUNNING:
        if r < (80 if mix else 70):
            side = c.turn
            game = s.journal.current
            run.begin_action()
            ok = s.commands.press(side, run.now)
            if ok and _alive(run):
                run.acks.append(("press", game, s.clock.moves_made, side, s.records.t(run.now)))
            run.end_action()
        elif r < (90 if mix else 85):
            _do(run, s.commands.pause)
    elif c.state == gameclock.PAUSED:
        if r < 30 and not mix:
            _config(run, None, _rand(rnd) % 11)
        elif r < 45 and not mix:
            _reset(run, s, None)
        elif mix and r < 50:
            _setup(run, s, rnd, mix)
        else:
            _do(run, s.commands.resume)
    else:  # ended: a new game (or first the logs cleared)
        if mix and r < 30:
            _clear(run, s, rnd)
        _reset(run, s, _preset(run, s, rnd) if mix else None)


def _setup(run, s, rnd, mix):
    """Something an arbiter does between games or while paused."""
    k = _rand(rnd) % 100
    if mix == "marathon":
        k = 35 if k < 30 else 0  # presets or the volume: the game goes on
    if k < 20:
        _config(run, None, _rand(rnd) % 11)
    elif k < 30:
        _config(run, TCS[_rand(rnd) % len(TCS)], None)
    elif k < 40:
        n = 1 + _rand(rnd) % 4
        presets = [
            {"name": "p%d" % i, "time_control": TCS[_rand(rnd) % len(TCS)]} for i in range(n)
        ]
        _presets(run, presets)
    elif k < 60:
        _clear(run, s, rnd)
    else:
        _reset(run, s, _preset(run, s, rnd))


def _preset(run, s, rnd):
    n = s.store.preset_count
    return 1 + _rand(rnd) % n if n and _rand(rnd) % 2 else None


def _do(run, fn):
    """An action; True when it was answered (acknowledged) before the power went."""
    run.begin_action()
    try:
        out = fn()
    except (OSError, ValueError):
        out = False
    ok = _alive(run) and out is not False  # (a press ignored: False)
    if ok:
        _removed(run)
    run.end_action()
    return ok


def _removed(run):
    """An action was answered: the games it removed (a clear, a drop for room) are gone."""
    games = run.session.journal.games
    gone = [g for g in run.known if g not in games]
    if gone:
        run.gone = tuple(run.gone) + tuple(gone)
    run.known = list(games)


def _reset(run, s, preset):
    # A game set up but not started is set up again under its own id: nothing ends.
    game = s.journal.current if s.records.started else None
    if _do(run, lambda: s.commands.reset(preset)) and game is not None:
        run.acks.append(("reset", game))


def _clear(run, s, rnd):
    j = s.journal
    finished = [g for g in j.ids() if g != j.current]
    which = finished[_rand(rnd) % len(finished)] if finished and _rand(rnd) % 3 == 0 else None
    if _do(run, lambda: j.clear(which)):
        run.acks.append(("clear", which))


def _config(run, tc, volume):
    s = run.session
    cfg = dict(s.store.config)
    if tc is not None:
        cfg["time_control"] = tc
    if volume is not None:
        cfg["volume"] = volume
    cfg = validate_config(cfg)
    run.writing_config = _json(cfg)
    if _do(run, lambda: s.commands.set_config(cfg)):
        run.configs.append(run.writing_config)
        run.writing_config = None
        return True
    return False


def _presets(run, presets):
    s = run.session
    presets = validate_presets(presets)
    run.writing_presets = _json(presets)
    if _do(run, lambda: s.commands.set_presets(presets)):
        run.presets.append(run.writing_presets)
        run.writing_presets = None


def _json(v):
    return json.dumps(v)


def _left(st, tc):
    """A side's time until its flag, in ms, for the kinds whose whole time the status shows
    (None for the others)."""
    kind = tc.get("type")
    if kind == "byoyomi":
        period = tc.get("period", 0) * 1000
        if st.get("periods", 0) and st["main_ms"] == 0:
            return (st["periods"] - 1) * period + st["period_ms"]
        return st["main_ms"] + st.get("periods", 0) * period
    if kind in ("sudden_death", "fischer"):
        return st["main_ms"]
    if kind == "canadian":
        return st["main_ms"] + st["period_ms"]
    return None


def truth_of(run):
    """The Truth of a run cut for real: the action the cut fell in is the last one."""
    t = Truth(run, run.known)
    t.settle(run)
    t.now = run.cut_now
    return t


def check(run):
    """The problems a boot after the cut finds (empty: all is well), and the time regained."""
    if run.session is None:
        return [], None
    release(run.session.fs)
    return check_image(run.flash._ram, truth_of(run), run.acks, run.geometry)


def check_image(image, truth, acks, geometry="pico"):
    """Boot on `image` (a whole flash) and compare with what was acknowledged: `acks` (the
    first `truth.acks` of them) and `truth`. Returns (problems, time regained or None)."""
    block, blocks = GEOMETRIES[geometry]
    after = CutFlash(block, blocks)
    after.load(image)
    try:
        with _Names(truth.now + 1):
            b = make_session(after, now=truth.now + 5000, fresh=False)
    except OSError as e:
        return ["boot failed: %r" % (e,)], None
    try:
        return _check(truth, acks[: truth.acks], b)
    finally:
        release(b.fs)


def _check(truth, acks, b):
    problems = []
    regained = None
    cfg = _json(b.store.config)
    try:
        presets = _json(b.store.presets())
    except OSError as e:
        presets = "unreadable: %s" % e
    if cfg != truth.config and cfg != truth.writing_config:
        problems.append("config %s, acknowledged %s" % (cfg, truth.config))
    if presets != truth.presets and presets != truth.writing_presets:
        problems.append("presets %s, acknowledged %s" % (presets, truth.presets))
    # Logs: every one verifies, moves numbered without gaps or repeats, time goes forward.
    presses = {}
    first_move = {}
    for g in b.journal.ids():
        if g in truth.gone:
            problems.append("game %d was cleared or dropped but came back" % g)
        data = b.journal.read(g, 0, 1 << 24)[0]
        v = verify_bytes(data)
        if not v["ok"]:
            problems.append("game %d log: %r" % (g, v["errors"][:3]))
        last_t = -1
        moves = []
        ended = False
        for rec in v["records"]:
            if rec["t"] < last_t and rec["event"] != "game":
                problems.append("game %d: time goes back at %r" % (g, rec))
            last_t = rec["t"]
            if rec["event"] == "press":
                moves.append((rec["move"], ("black", "white").index(rec["side"]), rec["t"]))
            ended = ended or rec["event"] == "end"
        # A log the clock gave up the beginning of (a full flash) starts where a snapshot is.
        start = moves[0][0] if moves and v["cut"] else 1
        for i, m in enumerate(moves):
            if m[0] != start + i:
                problems.append("game %d: move %d numbered %d" % (g, start + i, m[0]))
                break
        if moves and not ended and g != b.journal.current:
            problems.append(
                "game %d: %d moves and no end record: its tail is lost" % (g, len(moves))
            )
        presses[g] = moves
        first_move[g] = start
    for a in acks:
        if a[0] == "press":
            _, g, move, side, t = a
            if g in truth.gone or (g in truth.removing and g not in presses):
                continue  # cleared or dropped (or being so at the cut, and gone: allowed)
            if move < first_move.get(g, 1):
                continue  # in a part the game gave up for want of flash
            if (move, side, t) not in presses.get(g, ()):
                problems.append("acknowledged press lost: game %d move %d" % (g, move))
        elif a[0] == "reset":
            if b.journal.current == a[1] and b.clock.state != gameclock.IDLE:
                problems.append("game %d was reset but came back" % a[1])
    # The running side's time: the boot gives back at most 2 s, takes nothing.
    state, turn, moves_made, truth_status, tc = truth.live
    same_game = b.journal.current == truth.current
    # (A clock idle at the boot never started: the start was not acknowledged.)
    started = b.clock.state != gameclock.IDLE
    if same_game and started and state == gameclock.RUNNING and b.clock.moves_made == moves_made:
        tc = json.loads(json.dumps(tc))
        got = b.clock.status(b.now)
        side = ("black", "white")[turn]
        other = ("black", "white")[1 - turn]
        mine = _left(got[side], tc)
        if mine is not None:
            regained = mine - _left(truth_status[side], tc)
            if not 0 <= regained <= REGAIN_MS:
                problems.append("running side regained %d ms" % regained)
            if _left(got[other], tc) != _left(truth_status[other], tc):
                problems.append(
                    "the side not to move changed: %r %r" % (got[other], truth_status[other])
                )
    # A game whose end was acknowledged (its flag's record written, then told) stays ended;
    # one that ended in the action the cut fell in may come back paused just before.
    if truth.ended is not None and b.journal.current == truth.ended:
        if b.clock.state != gameclock.ENDED:
            problems.append("a finished game came back as %s" % b.clock.state)
    return problems, regained
