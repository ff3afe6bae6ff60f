"""The core against a brute-force reference for the controls of issue 12 (hypothesis).

Like tests/test_core_reference.py, and sharing no code with the core: the reference below
is written straight from the rules and walks time in 100 ms steps, each side's time a
plain counter that it decrements (and, for the hourglass, increments). The core jumps from
deadline to deadline. Capped Fischer, the hourglass, Ing overtime, the Bronstein delay
(with main time, and with none: a time per move) and the simple delay are compared call
by call, press by press; untimed games, where nothing but sums happen, over hours.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from support.reference import SIDES, STEP, SteppedModel, core_lines, play

CEILING = 48 * 3600 * 1000  # an uncapped Fischer clock stops here (timecontrol.MAX_HOLD_MS)


class Reference(SteppedModel):
    """Both sides' clocks, stepped 100 ms at a time, with the cn calls."""

    def __init__(self, tc):
        self.kind = tc["type"]
        self.mode = tc.get("mode", "bronstein")
        self.main = [tc.get("main", 0) * 1000] * 2
        self.increment = tc.get("increment", 0) * 1000
        self.cap = tc["max"] * 1000 if "max" in tc else CEILING
        self.delay = tc.get("delay", 0) * 1000
        self.periods = [tc.get("periods", 0)] * 2
        self.period = tc.get("period", 0) * 1000
        self.penalty = tc.get("penalty", 2)
        self.overtime = [None, None]  # Ing: ms left of the period in use; None in main time
        self.points = [0, 0]
        self.turn = None
        self.paused = False
        self.over = False
        self.lines = []
        self.e = 0  # ms into the current move
        self.per_move = False  # Bronstein with main time 0: the delay is the move's time
        self.moves = 0

    def say(self, t, phrase):
        self.out(t, "call", side=SIDES[self.turn], phrase=phrase)

    def countdown(self, t, left):
        """Where running out loses: "1" with 9 s left ... "10" at 0, then the loss."""
        if 0 <= left <= 9000 and left % 1000 == 0:
            self.say(t, str(10 - left // 1000))
        if left == 0:
            self.say(t, "超时判负")
            self.out(t, "timeout", side=SIDES[self.turn])
            self.over = True

    def enter_period(self, t, side):
        self.overtime[side] = self.period
        self.points[side] += self.penalty
        self.say(t, "共罚%d点" % self.points[side])
        self.out(t, "penalty", side=SIDES[side], points=self.points[side])

    def step(self, t):
        side = self.turn
        self.e += STEP
        kind = self.kind
        if kind == "hourglass":
            self.main[side] -= STEP
            self.main[1 - side] += STEP
            self.countdown(t, self.main[side])
        elif kind == "fischer":
            self.main[side] -= STEP
            self.countdown(t, self.main[side])
        elif kind == "delay" and self.per_move:
            self.countdown(t, self.delay - self.e)
        elif kind == "delay" and self.mode == "simple":
            if self.e > self.delay:
                self.main[side] -= STEP
            self.countdown(t, self.main[side] + max(self.delay - self.e, 0))
        elif kind == "delay":
            self.main[side] -= STEP
            self.countdown(t, self.main[side])
        elif self.overtime[side] is None:  # Ing, main time
            self.main[side] -= STEP
            if self.periods[side] == 0:
                self.countdown(t, self.main[side])
            elif self.main[side] == 0:
                self.enter_period(t, side)
        else:  # Ing, overtime: periods run on across moves
            self.overtime[side] -= STEP
            if self.periods[side] == 1:
                self.countdown(t, self.overtime[side])
            elif self.overtime[side] == 0:
                self.periods[side] -= 1
                self.enter_period(t, side)

    def begin_move(self, side):
        self.turn = side
        self.e = 0
        self.per_move = self.kind == "delay" and self.mode == "bronstein" and self.main[side] == 0

    def press_status(self, side):
        if self.kind == "fischer":
            self.main[side] = min(self.main[side] + self.increment, self.cap)
        elif self.kind == "delay" and self.mode == "bronstein" and not self.per_move:
            self.main[side] += min(self.e, self.delay)
        status = {"main_ms": self.main[side], "flagged": False}
        if self.per_move:  # what was left of the move's time
            status["period_ms"] = self.delay - self.e
        if self.kind == "ing":
            left = self.overtime[side]
            status["periods"] = self.periods[side]
            status["period_ms"] = self.period if left is None else left
            status["points"] = self.points[side]
        return status

    def event(self, t, ev):
        do = ev["do"]
        if do == "start":
            self.out(t, "start", side="black")
            self.begin_move(0)
        elif do == "pause" and self.turn is not None and not self.paused and not self.over:
            self.paused = True
            self.out(t, "pause", side=SIDES[self.turn])
        elif do == "resume" and self.paused:
            self.paused = False
            self.out(t, "resume", side=SIDES[self.turn])
        elif do == "press":
            side = SIDES.index(ev["side"])
            if self.over or self.paused or side != self.turn:
                return
            self.moves += 1
            status = self.press_status(side)
            self.out(t, "press", side=ev["side"], used_ms=self.e, move=self.moves, **status)
            self.begin_move(1 - side)


def time_control(draw, kind):
    if kind == "fischer":
        tc = {
            "type": kind,
            "main": draw(st.sampled_from([3, 12, 30])),
            "increment": draw(st.sampled_from([0, 2, 10])),
        }
        if draw(st.booleans()):
            tc["max"] = tc["main"] + draw(st.sampled_from([0, 1, 5, 20]))
        return tc
    if kind == "hourglass":
        return {"type": kind, "main": draw(st.sampled_from([3, 12, 30]))}
    if kind == "ing":
        return {
            "type": kind,
            "main": draw(st.sampled_from([3, 12, 30])),
            "periods": draw(st.integers(0, 3)),
            "period": draw(st.sampled_from([1, 5, 10, 20])),
            "penalty": draw(st.integers(1, 3)),
        }
    if kind == "per_move":  # Bronstein with main time 0
        return {
            "type": "delay",
            "main": 0,
            "delay": draw(st.sampled_from([2, 5, 15])),
            "mode": "bronstein",
        }
    mode = draw(st.sampled_from(["bronstein", "simple"]))
    main = draw(st.sampled_from([3, 12, 30]))
    return {"type": "delay", "main": main, "delay": draw(st.sampled_from([2, 5, 15])), "mode": mode}


@st.composite
def games(draw, kind):
    tc = time_control(draw, kind)
    # Quick moves as often as long ones: time per move and the caps are about them.
    return play(draw, tc, st.one_of(st.integers(0, 60), st.integers(0, 400)), 600)


def check_against_reference(scenario):
    ref = Reference(scenario["time_control"])
    ref.run(scenario["events"], scenario["until"])
    got, final = core_lines(scenario)
    assert got == ref.lines
    for i, name in enumerate(SIDES):
        assert final[name]["main_ms"] == max(ref.main[i], 0)
        if scenario["time_control"]["type"] == "ing":
            assert final[name]["points"] == ref.points[i]


@settings(max_examples=100, deadline=None)
@given(games("fischer"))
def test_capped_fischer_matches_reference(scenario):
    check_against_reference(scenario)


@settings(max_examples=100, deadline=None)
@given(games("hourglass"))
def test_hourglass_matches_reference(scenario):
    check_against_reference(scenario)


@settings(max_examples=150, deadline=None)
@given(games("ing"))
def test_ing_matches_reference(scenario):
    check_against_reference(scenario)


@settings(max_examples=150, deadline=None)
@given(games("delay"))
def test_delay_matches_reference(scenario):
    check_against_reference(scenario)


@settings(max_examples=100, deadline=None)
@given(games("per_move"))
def test_bronstein_time_per_move_matches_reference(scenario):
    check_against_reference(scenario)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10 * 3600 * 1000), st.booleans()), max_size=8))
def test_untimed_matches_sums_over_hours(moves):
    """Untimed: every move's time is recorded, each side's total counted; never a flag,
    never a call, whatever the hours (the silent hourly rebases do not show)."""
    events = [{"t": 0, "do": "start"}]
    t = 0
    spent = [0, 0]
    expected = [{"event": "start", "t": 0, "side": "black"}]
    for n, (used, pause) in enumerate(moves):
        side = n % 2
        if pause:  # a pause of 10 min in the middle of the move
            events += [
                {"t": t + used // 2, "do": "pause"},
                {"t": t + used // 2 + 600000, "do": "resume"},
            ]
            expected += [
                {"event": "pause", "t": t + used // 2, "side": SIDES[side]},
                {"event": "resume", "t": t + used // 2 + 600000, "side": SIDES[side]},
            ]
            t += 600000
        t += used
        spent[side] += used
        events.append({"t": t, "do": "press", "side": SIDES[side]})
        status = {"main_ms": 0, "flagged": False, "spent_ms": spent[side]}
        expected.append(
            dict(event="press", t=t, side=SIDES[side], used_ms=used, move=n + 1, **status)
        )
    scenario = {"time_control": {"type": "untimed"}, "events": events, "until": t + 7200000}
    got, final = core_lines(scenario)
    assert got == expected
    spent[len(moves) % 2] += 7200000
    assert [final[s]["spent_ms"] for s in SIDES] == spent


def test_reference_counts_an_ing_game_through():
    """The reference itself follows the rules (so it can catch the core)."""
    ref = Reference({"type": "ing", "main": 1, "periods": 2, "period": 10, "penalty": 2})
    ref.run([{"t": 0, "do": "start"}], 30000)
    said = [x.get("phrase") or x["event"] for x in ref.lines if x["event"] != "start"]
    counts = [str(i) for i in range(1, 11)]
    assert said == ["共罚2点", "penalty", "共罚4点", "penalty"] + counts + ["超时判负", "timeout"]
    assert [x["t"] for x in ref.lines if x["event"] == "penalty"] == [1000, 11000]
