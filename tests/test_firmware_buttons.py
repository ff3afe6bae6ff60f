"""Debouncing (firmware/goclockfw/app/buttons.py): one press per real press, dated at its first edge.

A simulated switch produces bursts of edges (contact bounce on press and on
release) at random ms; the loop samples at random intervals as a busy loop
would. Whatever the bounce and the loop's timing: each press is confirmed
exactly once, charged at its first edge, and the clock is never allowed past
an unconfirmed edge (`hold`).
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from goclockfw.app.buttons import (
    ARBITER,
    DEBOUNCE_MS,
    LEFT,
    MAX_HOLD_MS,
    PRESS,
    RELEASE,
    RIGHT,
    Debouncer,
    EdgeRing,
)
from goclockfw.core.ticks import TICKS_PERIOD, ticks_add, ticks_diff

press_st = st.lists(
    st.tuples(
        st.lists(st.integers(0, 3), max_size=5),  # press bounce: gaps in ms between edges
        st.integers(30, 400),  # held down this long after the bounce
        st.lists(st.integers(0, 3), max_size=5),  # release bounce
        st.integers(30, 500),  # up this long before the next press
    ),
    min_size=1,
    max_size=6,
)


def build(presses, t0):
    """The level changes of a switch pressed as described; returns (changes, first edges)."""
    changes = []
    firsts = []
    t = t0
    for bounce, hold, rbounce, gap in presses:
        firsts.append(t)
        level = 1
        changes.append((t, 1))
        for g in bounce:  # each bounce: up and down again
            t = ticks_add(t, g)
            changes.append((t, 0))
            t = ticks_add(t, 1)
            changes.append((t, 1))
        t = ticks_add(t, hold)
        changes.append((t, 0))
        level = 0
        for g in rbounce:
            t = ticks_add(t, g)
            changes.append((t, 1))
            t = ticks_add(t, 1)
            changes.append((t, 0))
        t = ticks_add(t, gap)
        assert level == 0
    return changes, firsts, t


def pops(deb):
    out = []
    while True:
        kind = deb.pop()
        if kind == 0:
            return out
        out.append((deb.channel, kind, deb.tick))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    presses=press_st,
    steps=st.lists(st.integers(1, 60), min_size=50, max_size=50),
    t0=st.sampled_from([0, 5000, TICKS_PERIOD - 700]),  # also across the tick wrap
)
def test_each_press_counted_once_at_its_first_edge(presses, steps, t0):
    """Loop steps up to 60 ms apart (a stalled loop), taps as short as 30 ms: none lost."""
    changes, firsts, end = build(presses, t0)
    ring = EdgeRing(64)
    deb = Debouncer()
    got = []
    now = t0
    i = 0  # next change to deliver
    level = 0
    k = 0
    while ticks_diff(now, ticks_add(end, 100)) < 0:
        now = ticks_add(now, steps[k % len(steps)])
        k += 1
        # The interrupts of everything up to now, at their own ticks.
        while i < len(changes) and ticks_diff(changes[i][0], now) <= 0:
            ring.put(RIGHT, changes[i][0], changes[i][1])
            level = changes[i][1]
            i += 1
        ring.drain(deb)
        deb.observe(RIGHT, level, now)
        deb.settle(RIGHT, level, now)
        got.extend(t for ch, kind, t in pops(deb) if kind == PRESS)
        # The clock may go no further than an edge waiting to be confirmed.
        limit = deb.hold(now)
        for f in firsts:
            if ticks_diff(f, now) <= 0 and f not in got and ticks_diff(now, f) < MAX_HOLD_MS:
                assert ticks_diff(limit, f) <= 0
    assert got == firsts


def test_held_button_is_one_press_and_release_bounce_is_not_a_press():
    deb = Debouncer()
    deb.edge(LEFT, 100, 1)
    deb.settle(LEFT, 1, 100 + DEBOUNCE_MS - 1)  # still inside the window
    assert pops(deb) == []
    assert deb.hold(105) == 100
    deb.settle(LEFT, 1, 100 + DEBOUNCE_MS)
    assert pops(deb) == [(LEFT, PRESS, 100)]
    # Held for seconds: no edges, nothing more.
    for t in range(200, 5000, 37):
        deb.observe(LEFT, 1, t)
        deb.settle(LEFT, 1, t)
    assert pops(deb) == []
    # Release with bounce: those edges do not hold the clock (the button is down).
    for t, lv in ((5000, 0), (5001, 1), (5002, 0), (5004, 0)):
        deb.edge(LEFT, t, lv)
    assert deb.hold(5005) == 5005
    deb.settle(LEFT, 0, 5004 + DEBOUNCE_MS)
    assert pops(deb) == [(LEFT, RELEASE, 5004)]


def test_glitch_shorter_than_window_is_ignored_but_holds_briefly():
    deb = Debouncer()
    deb.edge(RIGHT, 1000, 1)
    deb.edge(RIGHT, 1002, 0)  # back up: a 2 ms spike
    assert deb.hold(1005) == 1000
    deb.settle(RIGHT, 0, 1002 + DEBOUNCE_MS)
    assert pops(deb) == []
    assert deb.hold(1020) == 1020


def test_short_tap_during_a_stall_still_counts_at_its_own_tick():
    deb = Debouncer()
    ring = EdgeRing()
    ring.put(LEFT, 200, 1)
    ring.put(LEFT, 203, 0)  # bounce
    ring.put(LEFT, 204, 1)
    ring.put(LEFT, 240, 0)  # released 36 ms later, before the loop looked
    ring.put(RIGHT, 250, 1)
    ring.drain(deb)  # the loop wakes at 300
    deb.settle(LEFT, 0, 300)
    deb.settle(RIGHT, 1, 300)
    assert pops(deb) == [(LEFT, PRESS, 200), (LEFT, RELEASE, 240), (RIGHT, PRESS, 250)]


def test_chattering_switch_stops_holding_the_clock():
    deb = Debouncer()
    for t in range(0, 200, 3):
        deb.edge(ARBITER, t, t % 2)
    assert deb.hold(MAX_HOLD_MS + 10) == MAX_HOLD_MS + 10


def test_missed_interrupt_is_caught_by_the_level_check():
    deb = Debouncer()
    deb.observe(LEFT, 1, 500)  # no edge was recorded, but the pin reads pressed
    deb.settle(LEFT, 1, 500 + DEBOUNCE_MS)
    assert pops(deb) == [(LEFT, PRESS, 500)]


def test_ring_full_drops_newest_and_counts():
    ring = EdgeRing(4)
    for t in range(10):
        ring.put(LEFT, t, 1)
    assert ring.dropped == 7  # a ring of 4 holds 3
    deb = Debouncer()
    ring.drain(deb)
    assert deb.first[LEFT] == 0 and deb.last[LEFT] == 2
    ring.put(RIGHT, 50, 1)
    ring.drain(deb)
    assert deb.pending[RIGHT] and deb.first[RIGHT] == 50


def test_next_due_tells_when_to_look_again():
    deb = Debouncer()
    assert deb.next_due(0) == -1
    deb.edge(LEFT, 100, 1)
    assert deb.next_due(103) == DEBOUNCE_MS - 3
    assert deb.next_due(500) == 0


def test_a_tap_whose_release_went_unreported_is_a_press_then_a_release():
    # An ESP32 pin is not watched after its first edge until the loop looks: a tap's
    # release before that look leaves only the press in the ring.
    deb = Debouncer()
    deb.edge(LEFT, 100, 1)
    deb.observe(LEFT, 0, 190)  # the loop looks 90 ms later: the button is up
    deb.settle(LEFT, 0, 190)
    assert pops(deb) == [(LEFT, PRESS, 100)]
    assert deb.hold(195) == 195  # the press is confirmed: nothing holds the clock
    deb.observe(LEFT, 0, 190 + DEBOUNCE_MS)
    deb.settle(LEFT, 0, 190 + DEBOUNCE_MS)
    assert pops(deb) == [(LEFT, RELEASE, 190)]


def test_a_glitch_whose_end_went_unreported_but_was_seen_in_the_window_is_ignored():
    deb = Debouncer()
    deb.edge(RIGHT, 100, 1)
    deb.observe(RIGHT, 0, 104)  # the loop looked within the window: the pin is up again
    deb.settle(RIGHT, 0, 104)
    assert deb.hold(106) == 100  # still a possible press until the window has passed
    for t in (110, 113, 114, 130):
        deb.observe(RIGHT, 0, t)
        deb.settle(RIGHT, 0, t)
    assert pops(deb) == []
    assert deb.hold(130) == 130


def test_a_press_whose_first_edge_read_a_bounce_is_one_press_at_that_edge():
    # The handler read the pin in a bounce (up); the loop looks late and sees it down.
    deb = Debouncer()
    deb.edge(LEFT, 100, 0)
    deb.observe(LEFT, 1, 150)
    deb.settle(LEFT, 1, 150)
    assert pops(deb) == [(LEFT, PRESS, 100)]
    for t in (160, 170, 400):
        deb.observe(LEFT, 1, t)
        deb.settle(LEFT, 1, t)
    assert pops(deb) == []


def test_a_sampled_level_must_be_seen_again_after_the_window():
    # BOOTSEL has no interrupt: down in one sample, up in the next is no press.
    deb = Debouncer()
    deb.observe(ARBITER, 1, 100)
    deb.settle(ARBITER, 1, 100)
    deb.observe(ARBITER, 0, 120)
    deb.settle(ARBITER, 0, 120)
    assert pops(deb) == []
    deb.observe(ARBITER, 1, 200)
    deb.settle(ARBITER, 1, 200)
    deb.observe(ARBITER, 1, 220)
    deb.settle(ARBITER, 1, 220)
    assert pops(deb) == [(ARBITER, PRESS, 200)]
