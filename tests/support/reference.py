"""What the two brute-force reference models of the core share (tests/test_core_reference*.py).

A model is written straight from the rules and shares no code with the core: it walks
time in STEP ms, deciding at each step what the clock must say and do. `SteppedModel`
gives it the walk and the output lines; `core_lines` is what the real core (through the
scenario runner) says for the same scenario, to compare line by line.
"""

import io
import json

from goclockfw.scenario import runner

STEP = 100
SIDES = ("black", "white")


class SteppedModel:
    """A model's `lines`, its output, and the walk; a subclass gives `event(t, ev)` and
    `step(t)`, and keeps `turn`, `paused` and `over`."""

    turn = None
    paused = False
    over = False

    def out(self, t, kind, **kw):
        self.lines.append(dict(event=kind, t=t, **kw))

    def run(self, events, until):
        t = 0
        pending = list(events)
        while True:
            while pending and pending[0]["t"] == t:
                self.event(t, pending.pop(0))
            if t >= until:
                break
            t += STEP
            if self.turn is not None and not self.paused and not self.over:
                self.step(t)


def play(draw, tc, think, until_steps):
    """A scenario (hypothesis `draw`): up to 14 actions, each after `think` steps: the right
    side's press mostly, else the wrong side's press or a pause and resume; then up to
    `until_steps` more steps."""
    from hypothesis import strategies as st

    events = [{"t": 0, "do": "start"}]
    t = 0
    turn = 0
    for _ in range(draw(st.integers(1, 14))):
        t += STEP * draw(think)
        action = draw(st.sampled_from(["press", "press", "press", "wrong", "pause"]))
        if action == "pause":
            events.append({"t": t, "do": "pause"})
            t += STEP * draw(st.integers(0, 50))
            events.append({"t": t, "do": "resume"})
        else:
            side = turn if action == "press" else 1 - turn
            events.append({"t": t, "do": "press", "side": SIDES[side]})
            if action == "press":
                turn = 1 - turn
    until = t + STEP * draw(st.integers(0, until_steps))
    return {"time_control": tc, "events": events, "until": until}


def core_lines(scenario):
    """(the core's lines but "ignored" and "final", the "final" line) for `scenario`."""
    buf = io.StringIO()
    runner.run(scenario, buf.write)
    lines = [json.loads(x) for x in buf.getvalue().splitlines()]
    return [x for x in lines if x["event"] not in ("ignored", "final")], lines[-1]
