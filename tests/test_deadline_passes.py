"""A deadline's work spread over loop passes (Session.step): one deadline a pass, then a
held record's line made, or written, a pass, the deadline first; the log the same as when
everything is done at once.

On the chip each of these is a millisecond or so of Python; done together at a period's
start they made one pass of 3-4 ms (tools/rp2/README.md, figure (e)). Virtual time: the
session is stepped at chosen ticks, nothing reads a clock.
"""

from goclockfw.app.session import CATCH_UP_MS
from goclockfw.storage.logline import verify_bytes
from support.sessions import make_session

# Black's clock starts at 1000: main time ends at 3000, the first period at 13000 (a call,
# "2 periods left", and the period's own event on that millisecond).
TC = {"type": "byoyomi", "main": 2, "periods": 3, "period": 10}
PERIOD_END = 13000


def started():
    s = make_session()
    s.commands.set_config(dict(s.store.config, time_control=TC))
    s.commands.reset(None)
    s.commands.button_press(1, 1000)  # White presses: Black's clock runs
    return s


def log_bytes(s):
    j = s.journal
    return j.read(j.current, 0, 1 << 20)[0]


def run_to(s, t, start=1000):
    """Pass after pass from `start` up to tick `t`, every ms, as a loop that never sleeps."""
    for tick in range(start, t):
        s.step(tick)
        s.changed = False


def test_a_call_and_its_period_on_one_millisecond_take_a_pass_each_then_a_step_each():
    s = started()
    run_to(s, PERIOD_END)
    r = s.records
    j = s.journal
    n = j.count()
    assert r.held == 0 and s.clock.sides[0].periods == 3
    s.step(PERIOD_END)  # the call: said, held, nothing written
    assert r.held == 1 and j.count() == n and s.clock.sides[0].periods == 3
    assert s.announcer.said >= 1
    s.step(PERIOD_END)  # the period: still due, so it goes before the held call's write
    assert r.held == 2 and j.count() == n and s.clock.sides[0].periods == 2
    # Then a pass each: the call's line made, written; the period's line made, written.
    seen = []
    for tick in range(PERIOD_END, PERIOD_END + 4):
        s.step(tick)
        seen.append((r.held, j.count() - n))
    assert seen == [(2, 0), (1, 1), (1, 1), (0, 2)]
    last = verify_bytes(log_bytes(s))["records"][-2:]
    assert [(x["event"], x["t"]) for x in last] == [("call", 12000), ("period", 12000)]
    assert last[1]["left"] == 2


def test_the_log_is_the_same_as_when_every_deadline_is_fired_and_written_at_once():
    passes = started()
    run_to(passes, PERIOD_END + 10)
    at_once = started()
    run_to(at_once, PERIOD_END)
    at_once._catch_up(PERIOD_END)  # (a host's request: every deadline fired and written)
    assert at_once.records.held == 0
    run_to(at_once, PERIOD_END + 10, start=PERIOD_END)
    assert passes.records.held == 0
    assert log_bytes(passes) == log_bytes(at_once)


def test_a_held_call_is_written_from_its_arguments_and_a_press_from_the_clock_as_it_was():
    # A press's line reads the clock (its move, its times) and is made in its own pass; a
    # call's is its phrase and time alone, made when it is written. A press right after a
    # held call, the period still due: the press fires it first; all three come out right,
    # in order.
    s = started()
    run_to(s, PERIOD_END)
    s.step(PERIOD_END)  # the call, held
    s.commands.button_press(0, PERIOD_END + 1)  # Black moves: held, its line made now
    assert s.records.held == 3
    for tick in range(PERIOD_END + 2, PERIOD_END + 7):
        s.step(tick)
    assert s.records.held == 0
    last = verify_bytes(log_bytes(s))["records"][-3:]
    assert [(x["event"], x["t"]) for x in last] == [
        ("call", 12000),
        ("period", 12000),
        ("press", 12001),
    ]
    press = last[2]
    assert (press["move"], press["used_ms"], press["periods"], press["period_ms"]) == (
        1,
        12001,
        2,
        9999,  # what was left of the new period when Black pressed, 1 ms into it
    )


def test_a_pass_that_comes_late_catches_up_with_every_deadline_at_once():
    # A loop held up (or a session stepped now and then) CATCH_UP_MS or more: the call and
    # the period are both fired in the one pass, each at its own tick; the records follow.
    s = started()
    run_to(s, PERIOD_END)
    s.step(PERIOD_END + CATCH_UP_MS)
    assert s.records.held == 2 and s.clock.sides[0].periods == 2
    # Less late than that, it is still one a pass.
    t = started()
    run_to(t, PERIOD_END)
    t.step(PERIOD_END + CATCH_UP_MS - 1)
    assert t.records.held == 1 and t.clock.sides[0].periods == 3


class CountingPlayer:
    """A player that counts the polls the announcer hands it; `hungry` as a test sets it."""

    def __init__(self):
        self.polls = 0
        self.error = None
        self.wants = True

    def poll(self, now):
        self.polls += 1

    def busy(self):
        return True

    def hungry(self):
        return self.wants


def test_a_deadlines_pass_leaves_the_players_refill_to_the_next_pass_two_passes_at_most():
    from goclockfw.app.announcer import WAIT_PASSES, Announcer

    assert WAIT_PASSES == 2
    p = CountingPlayer()
    a = Announcer(p)
    a.pump(0)
    assert p.polls == 1
    a.pump(1, True)  # a pass that fired a deadline: the refill waits
    a.pump(2, True)  # ... and a press answered in the next one
    assert p.polls == 1
    a.pump(3, True)  # ... two passes at most: the third busy pass refills all the same
    assert p.polls == 2
    a.pump(4, True)  # the count starts again after a refill
    assert p.polls == 2
    a.pump(5)  # a quiet pass refills at once
    assert p.polls == 3
    p.wants = False  # nothing to refill: the poll (its watchdog) runs in any pass
    a.pump(6, True)
    assert p.polls == 4


def test_a_held_record_waits_while_the_player_wants_its_next_block():
    # The sound first: a pass that refills the I2S does not also make or write a record.
    s = started()
    run_to(s, PERIOD_END)
    s.step(PERIOD_END)  # the call, held
    s.step(PERIOD_END)  # the period, held
    wants = [True]
    s.announcer.hungry = lambda: wants[0]
    s.step(PERIOD_END + 1)
    s.step(PERIOD_END + 2)
    assert s.records.held == 2
    n = s.journal.count()
    wants[0] = False
    for tick in range(PERIOD_END + 3, PERIOD_END + 7):
        s.step(tick)
    assert s.records.held == 0 and s.journal.count() == n + 2


def test_a_pass_that_answered_a_host_leaves_the_refill_and_the_upkeep_to_the_next_pass():
    # The reply goes out at the end of the pass that answered it: that pass does no more
    # than it must. The refill waits a pass (one at most), the upkeep's look too, and a
    # pass that refills leaves the look to the next, unless it is CHECK_MS overdue (a host
    # asking in every pass does not starve it).
    from goclockfw.app.upkeep import CHECK_MS

    s = started()
    s.step(1001)
    p = CountingPlayer()
    s.announcer.set_player(p)
    looks = []
    due = s.upkeep.due
    s.upkeep.due = lambda running, now: looks.append(now) or due(running, now)
    status = b'{"id":1,"cmd":"status"}\n'
    s.upkeep.check_at = 1002
    s.line.feed(status, 1002)
    s.step(1002)
    assert (p.polls, looks) == (0, [])
    s.step(1003)  # the next pass: the refill
    assert (p.polls, looks) == (1, [])
    p.wants = False  # (its block taken: no refill in the next pass)
    s.step(1004)  # then the look
    assert (p.polls, looks) == (2, [1004])
    p.wants = True
    s.upkeep.check_at = 1004
    s.line.feed(status, 1004 + CHECK_MS)
    s.step(1004 + CHECK_MS)  # overdue: looked at all the same, the refill still waits
    assert (p.polls, looks) == (2, [1004, 1004 + CHECK_MS])
    s.line.feed(status, 1005 + CHECK_MS)
    s.step(1005 + CHECK_MS)  # a second pass that answered: the refill waits again
    assert p.polls == 2
    s.line.feed(status, 1006 + CHECK_MS)
    s.step(1006 + CHECK_MS)  # two passes waited already: a refill waits no longer
    assert p.polls == 3
    assert looks == [1004, 1004 + CHECK_MS]  # (the look's next is CHECK_MS later)


def test_a_pass_that_looks_for_flash_work_makes_no_call_ready_besides():
    # The upkeep's look (about 0.2 ms on an RP2040) and a call's preparation in one pass
    # overran a period's start budget: the pass that looks and finds nothing leaves the
    # preparation to the next, which the loop runs at once (app/wake.py: calls not
    # ready, BUSY_MS at most).
    s = started()
    t = 1001
    while t < 3000 and (s.upkeep.looks(t) or s.records.held or not s.calls_ready()):
        s.step(t)  # the new game's flash work and first preparation done
        s.changed = False
        t += 1
    assert s.calls_ready() and not s.upkeep.looks(t)
    s.commands.button_press(0, t)  # Black moves: White's deadline is planned
    while s.records.held:
        t += 1
        s.step(t)
        s.changed = False
    looks = []
    due = s.upkeep.due

    def due_seen(running, now):
        answer = due(running, now)
        looks.append((now, answer))
        return answer

    s.upkeep.due = due_seen
    prepared = []
    prepare = s.clock.prepare
    s.clock.prepare = lambda: prepared.append(s.now) or prepare()
    t += 1
    s.upkeep.check_at = t
    assert not s.calls_ready()
    s.step(t)
    s.changed = False
    assert (looks, prepared) == ([(t, False)], [])
    assert not s.calls_ready()
    s.step(t + 1)  # no look due now: the preparation's pass
    assert (looks, prepared) == ([(t, False)], [t + 1])
