"""The arbiter key and button gestures (app/gestures.py), on the real session in virtual time.

Buttons are edges at exact ticks (as the interrupts record them) and pin levels the loop
sees; the session steps as a board's loop would. What the clock says is what its
announcer starts (its echo); what it did is its state and its log.
"""

import pytest

from goclockfw.app.buttons import ARBITER, LEFT, RIGHT
from goclockfw.app.gestures import CONFIRM_MS, HOLD_MS, LATE_MS, MENU_TIMEOUT_MS, TAP_MS
from goclockfw.app.wake import BUSY_MS, session_ms
from support.sessions import make_session, notice_names, out_lines

BYO = {"type": "byoyomi", "main": 60, "periods": 3, "period": 30}


class Hands:
    """Presses the buttons of a session, in virtual time; remembers what it said."""

    def __init__(self, tc=BYO, presets=None):
        self.s = make_session()
        self.t = 0
        self.levels = [0, 0, 0]
        self.said = []  # device notices by name ("pause"), calls as said
        names = notice_names(self.s.announcer)
        self.s.announcer.echo = lambda phrase: self.said.append(names.get(phrase, phrase))
        self.s.commands.set_config(dict(self.s.store.config, time_control=tc))
        if presets is not None:
            self.s.commands.set_presets(presets)
        self.s.commands.reset(None)
        del self.said[:]  # the set-up's own "reset": what the hands do is said from here on

    def run_to(self, t):
        s = self.s
        while self.t < t:
            wait = session_ms(s, self.t)
            if not s.records.held:  # (held records: the loop passes again at once)
                self.t = t if wait <= 0 or self.t + wait > t else self.t + wait
            for ch in range(3):
                s.deb.observe(ch, self.levels[ch], self.t)
                s.deb.settle(ch, self.levels[ch], self.t)
            s.step(self.t)

    def down(self, ch, t):
        self.run_to(t)
        self.levels[ch] = 1
        self.s.deb.edge(ch, t, 1)
        self.run_to(t + 30)

    def up(self, ch, t):
        self.run_to(t)
        self.levels[ch] = 0
        self.s.deb.edge(ch, t, 0)
        self.run_to(t + 30)

    def tap(self, ch, t, ms=80):
        self.down(ch, t)
        self.up(ch, t + ms)

    @property
    def state(self):
        return self.s.clock.state

    def events(self):
        j = self.s.journal
        from goclockfw.storage.logline import verify_bytes

        return [r["event"] for r in verify_bytes(j.read(j.current, 0, 1 << 20)[0])["records"]]


def started():
    h = Hands()
    h.tap(RIGHT, 1000)  # White starts Black's clock
    assert h.state == "running"
    return h


def test_pause_at_the_first_edge_then_tap_resumes():
    h = started()
    h.down(ARBITER, 5000)
    assert h.state == "paused" and h.s.clock.status(5100)["black"]["main_ms"] == 56000
    h.up(ARBITER, 5300)
    assert h.state == "paused"  # the press that paused does not also resume
    h.tap(ARBITER, 9000)
    assert h.state == "running" and h.said[-2:] == ["pause", "resume"]


def test_long_press_while_paused_does_not_resume():
    h = started()
    h.tap(ARBITER, 5000)
    h.down(ARBITER, 8000)
    h.up(ARBITER, 8000 + TAP_MS + 200)
    assert h.state == "paused"


def test_player_presses_pass_through():
    h = started()
    h.tap(LEFT, 4000)  # Black moves
    assert h.s.clock.moves_made == 1 and h.s.clock.turn == 1


def test_arbiter_and_white_resets_only_when_no_clock_runs():
    h = started()
    h.down(ARBITER, 5000)  # pauses at once: the game is paused, not reset
    h.tap(RIGHT, 5500)
    h.up(ARBITER, 6000)
    assert h.state == "paused" and h.said[-1] == "confirm"  # a game in progress: asks first
    h.tap(RIGHT, 7000)  # confirmed with White's button
    assert h.state == "idle" and h.said[-1] == "reset"
    h.down(ARBITER, 9000)  # idle: no game to end, no question
    h.tap(RIGHT, 9300)
    h.up(ARBITER, 9600)
    assert h.state == "idle" and h.said[-1] == "reset"


def test_a_reset_not_confirmed_leaves_the_game_as_it_was():
    h = started()
    h.tap(ARBITER, 5000)
    for other, t in ((LEFT, 7000), (None, 27000)):
        h.down(ARBITER, t)
        h.tap(RIGHT, t + 300)
        h.up(ARBITER, t + 600)
        assert h.said[-1] == "confirm"
        if other is None:
            h.run_to(t + 600 + CONFIRM_MS + 100)  # nothing more: the question lapses
        else:
            h.tap(other, t + 1500)  # Black's button is no answer
        assert h.said[-1] == "cancel" and h.state == "paused"
    assert "end" not in h.events()


def test_preset_menu_browse_and_choose():
    presets = [
        {"name": "a", "time_control": {"type": "sudden_death", "main": 60}},
        {"name": "b", "time_control": {"type": "sudden_death", "main": 120}},
        {"name": "c", "time_control": {"type": "fischer", "main": 180, "increment": 2}},
    ]
    h = Hands(presets=presets)
    h.down(ARBITER, 1000)
    h.tap(LEFT, 1300)  # arbiter key held + Black's button: the menu
    h.up(ARBITER, 1600)  # letting the key go keeps the menu open
    assert h.said == ["preset_1"]
    for t in (3000, 4000, 5000):
        h.tap(LEFT, t)
    assert h.said[1:] == ["preset_2", "preset_3", "preset_1"]
    h.tap(LEFT, 6000)
    h.tap(RIGHT, 7000)  # White's button: reset to the preset just said (idle: no question)
    assert h.s.tc.to_json()["main"] == 120 and h.state == "idle" and h.said[-1] == "reset"


def test_preset_menu_cancel_by_tap_and_by_timeout():
    h = Hands()
    for leave in ("tap", "timeout"):
        h.down(ARBITER, h.t + 1000)
        h.tap(LEFT, h.t + 300)
        h.up(ARBITER, h.t + 300)
        assert h.s.gestures.menu == 0
        if leave == "tap":
            h.tap(ARBITER, h.t + 1000)
        else:
            h.run_to(h.t + MENU_TIMEOUT_MS + 100)
        assert h.s.gestures.menu == -1 and h.said[-1] == "cancel"
    assert h.s.tc.to_json()["main"] == 60  # nothing changed


def test_no_presets_no_menu():
    h = Hands(presets=[])
    h.down(ARBITER, 1000)
    h.tap(LEFT, 1300)
    h.up(ARBITER, 1600)
    assert h.s.gestures.menu == -1 and h.said == [] and h.state == "idle"


@pytest.mark.parametrize("byoyomi", [True, False])
def test_hold_after_a_timeout_rules_a_pass_only_in_byoyomi(byoyomi):
    tc = BYO if byoyomi else {"type": "sudden_death", "main": 60}
    h = Hands(tc)
    h.tap(RIGHT, 1000)
    h.run_to(1000 + 60000 + 3 * 30000 + 1000)  # Black runs out of everything
    assert h.state == "ended"
    h.down(ARBITER, h.t + 1000)
    h.run_to(h.t + HOLD_MS + 100)
    h.up(ARBITER, h.t)
    if byoyomi:
        assert h.state == "running" and h.s.clock.turn == 1 and h.said[-1] == "timeout_pass"
        assert "ruling" in h.events()
    else:
        assert h.state == "ended"


def test_late_marked_at_the_board_and_arrival_by_the_late_side_s_button():
    h = Hands({"type": "sudden_death", "main": 1800})
    h.down(ARBITER, 1000)
    h.run_to(1000 + HOLD_MS + 50)  # held: "late", and the next button says whose
    assert h.said[-1] == "late"
    h.up(ARBITER, h.t)
    h.tap(LEFT, h.t + 500)  # Black is late
    assert h.said[-1] == "late_marked" and h.s.commands.is_absent(0)
    start = h.t + 1000
    h.tap(RIGHT, start)  # White starts Black's clock; Black is not there
    h.tap(LEFT, start + 60000)  # Black sits down: arrival, not a move
    assert not h.s.commands.is_absent(0) and h.s.clock.moves_made == 0 and h.said[-1] == "arrive"
    kinds = h.events()
    assert kinds.index("late") < kinds.index("start") < kinds.index("arrive")
    # charged twice the lateness in all: 60 s ran on its clock, 60 s more come off
    j = h.s.journal
    from goclockfw.storage.logline import verify_bytes

    recs = verify_bytes(j.read(j.current, 0, 1 << 20)[0])["records"]
    arrive = [r for r in recs if r["event"] == "arrive"][0]
    assert arrive["late_ms"] == 60000 and arrive["charged_ms"] == 60000 and arrive["t"] == 60000
    h.tap(LEFT, start + 65000)  # now a move
    assert h.s.clock.moves_made == 1


def test_late_lapses_without_a_button():
    h = Hands()
    h.down(ARBITER, 1000)
    h.run_to(1000 + HOLD_MS + 50)
    h.up(ARBITER, h.t)
    h.run_to(h.t + LATE_MS + 100)
    assert (
        h.said[-1] == "cancel" and not h.s.commands.is_absent(0) and not h.s.commands.is_absent(1)
    )


def test_a_player_s_press_is_written_at_the_start_of_the_next_pass():
    # The press's own pass charges it and renders its line; the next pass writes it first
    # (app/records.py `hold`): the loop does not sleep in between, and a watching host
    # hears of the press only once its record is durable.
    h = started()
    s = h.s
    j = s.journal
    out_lines(s)
    s.protocol.watching = True
    before = j.count()
    assert s.commands.button_press(0, 4000)  # Black's button, as the gestures pass it on
    assert s.clock.turn == 1 and j.count() == before and s.records.held
    assert session_ms(s, 4000) == 0  # the next pass at once
    assert not [e for e in out_lines(s) if e.get("event") == "press"]
    s.step(4000)
    assert j.count() == before + 1 and not s.records.held
    press = [e for e in out_lines(s) if e.get("event") == "press"]
    assert len(press) == 1 and press[0]["side"] == "black" and press[0]["used_ms"] == 3000
    assert h.events()[-1] == "press"


def test_a_held_press_is_written_before_a_host_is_answered_or_another_record():
    h = started()
    s = h.s
    j = s.journal
    before = j.count()
    s.commands.button_press(0, 4000)
    # A host's request in the next pass comes before its step: the press goes first.
    s.line.feed(b'{"id":1,"cmd":"status"}\n', 4000)
    assert j.count() == before + 1 and out_lines(s)[-1]["moves"] == 1
    # Another record in the same pass (the arbiter's pause): the press is written first.
    s.commands.button_press(1, 6000)
    s.commands.pause(6000)
    assert h.events()[-2:] == ["press", "pause"] and j.count() == before + 3
    # A host's press is not held: its reply waits for its record.
    s.commands.resume()
    n = j.count()
    s.line.feed(b'{"id":2,"cmd":"press","side":"black"}\n', 7000)
    assert j.count() == n + 1 and not s.records.held


def test_after_a_press_the_loop_comes_back_soon_to_make_the_next_call_ready():
    # The next call's table and clip are made ready at quiet passes (Session.step): the
    # loop wakes for them within BUSY_MS instead of sleeping to the next deadline, which
    # would then make them in its own step.
    h = started()
    s = h.s

    def quiet_passes(t):
        for _ in range(3):  # a table, then a clip: a quiet pass each
            s.changed = False  # (the board's loop clears it after each pass)
            t += BUSY_MS
            s.step(t)
        return t

    t = quiet_passes(2000)
    assert s.calls_ready() and session_ms(s, t) > BUSY_MS
    s.commands.button_press(0, t)  # Black moves: White's deadline is planned
    s.step(t)  # (its record written)
    assert not s.calls_ready() and session_ms(s, t) == BUSY_MS
    t = quiet_passes(t)
    assert s.calls_ready() and session_ms(s, t) > BUSY_MS
