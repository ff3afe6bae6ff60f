"""The clock core against a brute-force reference, on random games (hypothesis).

The reference below is written straight from the rules and walks time in
100 ms steps, keeping each side's time as a plain counter. It shares no code
with the core, which jumps from deadline to deadline. All scenario times are
multiples of 100 ms and all durations whole seconds, so the stepping is exact.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from support.reference import SIDES, STEP, SteppedModel, core_lines, play


def cn_byoyomi_calls(pe, period, left):
    """(phrases, period_over) of the cn rules at `pe` s into a period (whole seconds)."""
    out = []
    if period == 60:
        if pe in (30, 40, 50) or (left > 1 and pe in (55, 58)):
            out.append("%d秒" % pe)
        if left == 1 and pe >= 51:
            out.append(str(pe - 50))
        if left > 1 and pe == 60:
            out += ["1分", "还剩%d分" % (left - 1)]
    elif left > 1:
        if (pe % 10 == 0 and pe < period - 5) or pe in (period - 5, period - 2):
            out.append("%d秒" % pe)
        if pe == period:
            out.append("还剩%d次" % (left - 1))
    else:
        if pe % 10 == 0 and pe <= period - 10:
            out.append("%d秒" % pe)
        if pe >= period - 9:
            out.append(str(pe - (period - 10)))
    return out, pe == period


class Reference(SteppedModel):
    def __init__(self, tc):
        self.kind = tc["type"]
        self.main = [tc["main"] * 1000] * 2
        self.periods = [tc.get("periods", 0)] * 2
        self.period = tc.get("period", 0)
        self.increment = tc.get("increment", 0) * 1000
        self.turn = None
        self.paused = False
        self.over = False
        self.lines = []
        self.e = 0  # ms into the current move
        self.period_start = None
        self.moves = 0

    def losing_in_main(self):
        return self.kind == "fischer" or self.periods[self.turn] == 0

    def step(self, t):
        """Time runs from t - STEP to t for the side to move."""
        side = self.turn
        name = SIDES[side]
        self.e += STEP
        if self.period_start is None:
            self.main[side] -= STEP
            left = self.main[side]
            if self.losing_in_main() and left % 1000 == 0 and 0 <= left <= 9000:
                self.out(t, "call", side=name, phrase=str(10 - left // 1000))
            if left == 0:
                if self.losing_in_main():
                    self.out(t, "call", side=name, phrase="超时判负")
                    self.out(t, "timeout", side=name)
                    self.over = True
                else:
                    self.out(t, "call", side=name, phrase="开始读秒")
                    self.out(t, "byoyomi", side=name)
                    self.period_start = self.e
            return
        pe_ms = self.e - self.period_start
        if pe_ms % 1000:
            return
        phrases, over = cn_byoyomi_calls(pe_ms // 1000, self.period, self.periods[side])
        for p in phrases:
            self.out(t, "call", side=name, phrase=p)
        if over:
            if self.periods[side] > 1:
                self.periods[side] -= 1
                self.period_start = self.e
                self.out(t, "period", side=name, left=self.periods[side])
            else:
                self.periods[side] = 0
                self.out(t, "call", side=name, phrase="超时判负")
                self.out(t, "timeout", side=name)
                self.over = True

    def begin_move(self, side):
        self.turn = side
        self.e = 0
        in_byoyomi = self.kind == "byoyomi" and self.main[side] == 0 and self.periods[side] > 0
        self.period_start = 0 if in_byoyomi else None

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
            self.main[side] += self.increment
            self.moves += 1
            # The side's time as the move leaves it; in byo-yomi, what was left of the period.
            status = {"main_ms": self.main[side], "flagged": False}
            if self.kind == "byoyomi":
                status["periods"] = self.periods[side]
                in_period = self.period_start is not None
                left = self.period * 1000 - (self.e - self.period_start) if in_period else None
                status["period_ms"] = left if in_period else self.period * 1000
            self.out(t, "press", side=ev["side"], used_ms=self.e, move=self.moves, **status)
            self.begin_move(1 - side)


@st.composite
def games(draw, kind):
    if kind == "byoyomi":
        tc = {
            "type": "byoyomi",
            "main": draw(st.sampled_from([0, 3, 12, 30])),
            "periods": draw(st.integers(0, 3)),
            "period": draw(st.sampled_from([10, 20, 30, 60])),
        }
        if tc["main"] == 0 and tc["periods"] == 0:
            tc["periods"] = 1
    else:
        tc = {
            "type": "fischer",
            "main": draw(st.sampled_from([5, 12, 30])),
            "increment": draw(st.sampled_from([0, 2, 10])),
        }
    return play(draw, tc, st.integers(0, 900), 1200)


def check_against_reference(scenario):
    ref = Reference(scenario["time_control"])
    ref.run(scenario["events"], scenario["until"])
    got, final = core_lines(scenario)
    assert got == ref.lines
    for i, name in enumerate(SIDES):
        assert final[name]["main_ms"] == ref.main[i]
        if scenario["time_control"]["type"] == "byoyomi":
            assert final[name]["periods"] == ref.periods[i]


@settings(max_examples=150, deadline=None)
@given(games("byoyomi"))
def test_byoyomi_matches_reference(scenario):
    check_against_reference(scenario)


@settings(max_examples=100, deadline=None)
@given(games("fischer"))
def test_fischer_matches_reference(scenario):
    check_against_reference(scenario)


def test_reference_sees_a_full_cn_minute():
    """The reference itself says the sequence of the rules (so it can catch the core)."""
    ref = Reference({"type": "byoyomi", "main": 0, "periods": 2, "period": 60})
    ref.run([{"t": 0, "do": "start"}], 120000)
    phrases = [x["phrase"] for x in ref.lines if x["event"] == "call"]
    assert phrases[:7] == ["30秒", "40秒", "50秒", "55秒", "58秒", "1分", "还剩1分"]
    assert phrases[7:] == ["30秒", "40秒", "50秒"] + [str(i) for i in range(1, 11)] + ["超时判负"]
