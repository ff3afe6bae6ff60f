"""The quiet-time flash upkeep (app/upkeep.py) backs off after a step that failed.

Making a chunk goes through littlefs, whose file objects MicroPython allocates: on a
fragmented heap (or under micropython.heap_lock(), as the emulated Pico's pass tests run)
the step raises MemoryError. Before, the same step was tried again in the very next pass,
and failed again, every pass (a full gc.collect() each time in the loop). Here the step
fails for good (the journal's work replaced by one that raises), and the session is
stepped every 10 ms of virtual time: when is the step tried?
"""

from goclockfw.app.upkeep import BACKOFF_MAX_MS, BACKOFF_MS, CHECK_MS, GIVE_UP
from goclockfw.storage.journal import SPARES_RUNNING
from support.sessions import make_session

PASS_MS = 10


def failing(session):
    """The session's journal work replaced by one that raises: the times it was tried."""
    tried = []

    def work(running, free_bytes, snapshot=None):
        tried.append(session.now)
        raise MemoryError("memory allocation failed, heap is locked")

    session.journal.work = work
    return tried


def run(session, t0, ms):
    """Passes every PASS_MS from t0 for ms: the MemoryErrors that came out of them (the loop
    counts and survives those: app/loop.py)."""
    errors = 0
    for t in range(t0, t0 + ms, PASS_MS):
        try:
            session.step(t)
        except MemoryError:
            errors += 1
    return errors


def prepared_in_part(spares=SPARES_RUNNING + 1):
    """A session on a 256 KB flash whose next game has `spares` of its chunks made, more
    wanted (the setup target), nothing running or playing."""
    s = make_session(blocks=64, player=False)
    j = s.journal
    while len(j.spares) < spares:
        s.upkeep.work(False)
    assert j.wants_work(False) and len(j.spares) < j.setup_spares
    return s


def test_a_failed_step_waits_1_2_4_8_16_s_then_only_what_a_game_needs_is_tried():
    s = prepared_in_part()
    tried = failing(s)
    assert run(s, 0, 100000) == GIVE_UP
    gaps = [b - a for a, b in zip(tried, tried[1:])]
    # Tried in the first pass, then once each back-off has passed (within a pass of it):
    # never in the pass after a failure.
    assert tried[0] == 0
    assert len(gaps) == GIVE_UP - 1
    for k, gap in enumerate(gaps):
        assert BACKOFF_MS << k <= gap < (BACKOFF_MS << k) + 2 * PASS_MS, gaps
    # Given up: the preparation is not needed for a game to be played (enough chunks for
    # it are ready), and is not tried again in the remaining minute.
    assert tried[-1] < 40000
    assert s.upkeep.failures == GIVE_UP


def test_a_game_down_to_its_last_chunks_is_still_helped_at_the_longest_back_off():
    s = prepared_in_part()
    tried = failing(s)
    run(s, 0, 40000)
    assert len(tried) == GIVE_UP
    del s.journal.spares[1:]  # a game used them: below SPARES_RUNNING, a chunk is needed
    run(s, 40000, 3 * BACKOFF_MAX_MS)
    assert len(tried) == GIVE_UP + 3, tried  # tried again, but not every pass:
    gaps = [b - a for a, b in zip(tried[GIVE_UP - 1 :], tried[GIVE_UP:])]
    assert BACKOFF_MS << (GIVE_UP - 1) <= gaps[0] < (BACKOFF_MS << (GIVE_UP - 1)) + 2 * PASS_MS
    assert all(BACKOFF_MAX_MS <= gap < BACKOFF_MAX_MS + 2 * PASS_MS for gap in gaps[1:]), gaps


def test_a_back_off_passed_days_ago_does_not_come_back_when_the_ticks_wrap():
    """Given up (the game had its chunks), then days with nothing to try: the next need is
    tried at the next look (CHECK_MS), though the tick difference from the old retry time reads negative then
    (ticks wrap at 2**30 ms; a difference is valid for half of that, about 6.2 days)."""
    s = prepared_in_part()
    tried = failing(s)
    run(s, 0, 70000)  # the last back-off (32 s after the failure at 31 s) passes meanwhile
    assert len(tried) == GIVE_UP
    t = 70000
    for _ in range(6):  # a pass a day (the loop's every second changes nothing here)
        t += 100000000
        run(s, t, PASS_MS)
    assert t - (31000 + 32000) > 1 << 29  # ticks_diff(t, the old retry time) < 0 now
    del s.journal.spares[1:]  # the day's game used its chunks: one is needed now
    run(s, t + PASS_MS, CHECK_MS + PASS_MS)  # (asked again CHECK_MS after the last no)
    assert len(tried) == GIVE_UP + 1 and t < tried[-1] <= t + PASS_MS + CHECK_MS, tried


def test_the_next_game_set_up_tries_again_and_a_success_ends_the_back_off():
    s = prepared_in_part()
    tried = failing(s)
    run(s, 0, 40000)
    assert s.upkeep.failures == GIVE_UP
    del s.journal.work  # the heap has room again: the journal's own work
    s.commands.reset()  # the next game set up (app/session.py new_game)
    assert s.upkeep.failures == 0
    run(s, 40000, 30000)
    assert len(s.journal.spares) == s.journal.setup_spares
    assert not s.journal.wants_work(False)
    assert len(tried) == GIVE_UP


def test_a_snapshot_that_fails_backs_off_too():
    s = make_session(blocks=64, player=False)
    j = s.journal
    while j.wants_work(False):  # every chunk the game is given made: no journal work
        s.upkeep.work(False)
    s.commands.press(1, 0)  # White starts Black's clock
    tried = []

    def snapshot():
        tried.append(s.now)
        raise MemoryError("memory allocation failed, heap is locked")

    s.upkeep.snapshot = snapshot
    j.moves_since_snapshot = 100  # a snapshot is due (at a quiet moment between marks)
    errors = run(s, 0, 20000)
    assert errors == len(tried) >= 2, tried
    gaps = [b - a for a, b in zip(tried, tried[1:])]
    assert all(gap >= BACKOFF_MS << k for k, gap in enumerate(gaps)), gaps
