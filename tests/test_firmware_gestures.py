"""The arbiter key and button gestures (firmware/goclockfw/app/gestures.py) over a recording fake app."""

import pytest

from goclockfw.app.gestures import HOLD_MS, MENU_TIMEOUT_MS, TAP_MS, Gestures

BLACK, WHITE = 0, 1


class FakeApp:
    def __init__(self, state="running", presets=3, byoyomi_timeout=False):
        self.state = state
        self.presets = presets
        self.byoyomi_timeout = byoyomi_timeout
        self.done = []

    def clock_state(self):
        return self.state

    def can_timeout_pass(self):
        return self.state == "ended" and self.byoyomi_timeout

    def preset_count(self):
        return self.presets

    def announce(self, name):
        self.done.append(("notice", name))

    def button_press(self, side, tick):
        self.done.append(("press", side, tick))

    def arbiter_pause(self, tick):
        self.state = "paused"
        self.done.append(("pause", tick))

    def arbiter_resume(self, now):
        self.state = "running"
        self.done.append(("resume", now))

    def arbiter_timeout_pass(self, now):
        self.state = "running"
        self.done.append(("timeout_pass", now))

    def arbiter_reset(self, preset):
        self.state = "idle"
        self.done.append(("reset", preset))


def test_pause_at_the_first_edge_then_tap_resumes():
    app = FakeApp()
    g = Gestures(app)
    g.on_arbiter_down(1000, 1012)
    assert app.done == [("pause", 1000)]
    g.on_arbiter_up(1100)  # the same press: nothing more
    g.on_arbiter_down(5000, 5010)
    g.on_arbiter_up(5200)
    assert app.done[-1] == ("resume", 5200)


def test_long_press_while_paused_does_not_resume():
    app = FakeApp(state="paused")
    g = Gestures(app)
    g.on_arbiter_down(0, 0)
    g.poll(TAP_MS + 100)
    g.on_arbiter_up(TAP_MS + 100)
    assert app.done == []


def test_player_presses_pass_through():
    app = FakeApp()
    g = Gestures(app)
    g.on_press(BLACK, 10, 20)
    g.on_press(WHITE, 30, 40)
    assert app.done == [("press", BLACK, 10), ("press", WHITE, 30)]


def test_arbiter_and_white_resets_only_when_no_clock_runs():
    app = FakeApp(state="paused")
    g = Gestures(app)
    g.on_arbiter_down(0, 0)
    g.on_press(WHITE, 300, 310)
    g.on_arbiter_up(500)
    assert app.done == [("reset", None)]
    # While running, the arbiter key pauses first; the reset needs a fresh press.
    app = FakeApp(state="running")
    g = Gestures(app)
    g.on_arbiter_down(0, 0)
    assert app.done == [("pause", 0)]
    g.on_press(WHITE, 300, 310)
    assert app.done[-1] == ("reset", None)


def test_preset_menu_browse_and_choose():
    app = FakeApp(state="idle", presets=3)
    g = Gestures(app)
    g.on_arbiter_down(0, 0)
    g.on_press(BLACK, 100, 110)
    g.on_arbiter_up(200)  # releasing the key after opening the menu keeps it open
    assert g.menu == 0 and app.done == [("notice", "preset_1")]
    for t in (1000, 2000, 3000):
        g.on_press(BLACK, t, t + 10)
    assert [d[1] for d in app.done[1:]] == ["preset_2", "preset_3", "preset_1"]
    g.on_press(BLACK, 4000, 4010)
    g.on_press(WHITE, 5000, 5010)
    assert app.done[-1] == ("reset", 2)  # the preset just said, numbered from 1
    assert g.menu == -1


def test_preset_menu_cancel_by_tap_and_by_timeout():
    app = FakeApp(state="ended")
    g = Gestures(app)
    g.on_arbiter_down(0, 0)
    g.on_press(BLACK, 10, 10)
    g.on_arbiter_up(50)
    g.on_arbiter_down(1000, 1000)
    g.on_arbiter_up(1100)
    assert g.menu == -1 and app.done[-1] == ("notice", "cancel")
    g.on_arbiter_down(2000, 2000)
    g.on_press(BLACK, 2010, 2010)
    g.on_arbiter_up(2050)
    assert g.next_due(2100) == MENU_TIMEOUT_MS - 90
    g.poll(2010 + MENU_TIMEOUT_MS)
    assert g.menu == -1 and app.done[-1] == ("notice", "cancel")
    assert not any(d[0] == "reset" for d in app.done)


def test_no_presets_no_menu():
    app = FakeApp(state="idle", presets=0)
    g = Gestures(app)
    g.on_arbiter_down(0, 0)
    g.on_press(BLACK, 10, 10)
    assert g.menu == -1 and app.done == []


@pytest.mark.parametrize("byoyomi", [True, False])
def test_hold_after_a_byoyomi_timeout_rules_a_pass(byoyomi):
    app = FakeApp(state="ended", byoyomi_timeout=byoyomi)
    g = Gestures(app)
    g.on_arbiter_down(0, 0)
    assert g.next_due(500) == HOLD_MS - 500
    g.poll(HOLD_MS - 1)
    assert app.done == []
    g.poll(HOLD_MS)
    g.poll(HOLD_MS + 500)
    g.on_arbiter_up(HOLD_MS + 600)
    assert app.done == ([("timeout_pass", HOLD_MS)] if byoyomi else [])
