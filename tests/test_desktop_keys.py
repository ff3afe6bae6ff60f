"""Taps and holds of the desktop and browser boards (desktop/keys.py): the edges they put
in the board's ring, at the ticks a finger would make them."""

from goclockfw.app.buttons import ARBITER, LEFT, RIGHT
from goclockfw.desktop.keys import TAP_MS, KeyButtons


class Ring:
    def __init__(self):
        self.edges = []

    def put(self, ch, tick, level):
        self.edges.append((ch, tick, level))


def test_a_tap_goes_down_at_once_and_up_at_its_end_tick_even_when_seen_late():
    ring = Ring()
    keys = KeyButtons(ring)
    keys.tap(LEFT, 100)
    assert ring.edges == [(LEFT, 100, 1)] and keys.level(LEFT) == 1
    assert keys.next_release_ms(150) == TAP_MS - 50
    keys.release(100 + TAP_MS - 1)
    assert keys.level(LEFT) == 1
    keys.release(500)  # a pass long after: the edge keeps the tick it was due
    assert ring.edges[-1] == (LEFT, 100 + TAP_MS, 0) and keys.level(LEFT) == 0
    assert keys.next_release_ms(500) is None


def test_a_held_button_stays_down_through_a_tap_and_a_second_tap_makes_no_edge():
    ring = Ring()
    keys = KeyButtons(ring, held=(ARBITER,))
    assert keys.held(ARBITER) and keys.level(ARBITER) == 1
    keys.tap(ARBITER, 10)
    keys.release(10 + TAP_MS)
    assert ring.edges == []  # down all along
    keys.toggle(ARBITER, 200)
    assert ring.edges == [(ARBITER, 200, 0)] and not keys.held(ARBITER)
    keys.tap(RIGHT, 300)
    keys.tap(RIGHT, 310)  # still down: the tap is made longer, no second edge
    assert ring.edges[1:] == [(RIGHT, 300, 1)]
    assert keys.next_release_ms(300 + TAP_MS) == 10
    assert keys.next_release_ms(400 + TAP_MS) == 0  # due: at once
