"""Results in the game's log (`result` records: the clock's own loss on time, the `result`
command in any SGF RE form) and the arbiter call (a hold of the arbiter key that pauses a
running clock; answered with arbiter.ack or a hold at the board), on the real session."""

import json

from goclockfw.app.commands import valid_result
from goclockfw.app.gestures import HOLD_MS
from goclockfw.app.replay import Replay
from goclockfw.storage import logline
from protocol_support import make_device


def ask(proto, **req):
    return json.loads(proto.handle_line(json.dumps(req).encode() + b"\n"))


def records(app):
    data, _ = app.journal.read(app.journal.current, 0, 1 << 20)
    assert logline.verify_bytes(data)["ok"]
    lines = (logline.after_marks(x) for x in data.split(b"\n"))
    return [json.loads(x) for x in lines if x.startswith(b"{")]


def test_sgf_result_forms():
    for r in ("B+R", "W+T", "B+F", "W+", "B+3.5", "W+12", "0", "Draw", "Void", "?", "B+Resign"):
        assert valid_result(r), r
    for r in ("B+", "b+r", "X+R", "B+3.", "B+.5", "W+3.5.1", "", "B+R ", 5):
        assert valid_result(r) is (r == "B+"), r


def test_a_loss_on_time_and_a_result_entered_later(tmp_path):
    app, proto, _ = make_device(tmp_path)
    ok = ask(proto, cmd="config.set", config={"time_control": {"type": "sudden_death", "main": 2}})
    assert ok["ok"], ok
    assert ask(proto, cmd="reset")["ok"]
    assert ask(proto, cmd="result", result="B+R")["ok"] is False  # no game yet
    assert ask(proto, cmd="press", side="white")["accepted"]
    app.now += 5000
    app.step(app.now)  # Black's main second and period run out: a loss on time
    assert app.clock.state == "ended"
    recs = records(app)
    res = [r for r in recs if r["event"] == "result"]
    assert res[-1]["result"] == "W+T" and res[-1]["by"] == "clock"
    assert ask(proto, cmd="result", result="Q+1")["ok"] is False
    r = ask(proto, cmd="result", result="B+R")
    assert r["ok"] and r["result"] == "B+R"
    res = [r for r in records(app) if r["event"] == "result"]
    assert [x["result"] for x in res] == ["W+T", "B+R"] and res[-1]["by"] == "host"
    # A replay takes the log as it was: the result records change no clock.
    rp = Replay()
    for rec in records(app):
        rp.feed(rec)
    assert rp.clock.state == "ended" and rp.refused == 0


def test_the_arbiter_call_gesture_and_its_answer(tmp_path):
    app, proto, _ = make_device(tmp_path)
    assert ask(proto, cmd="press", side="white")["accepted"]
    g = app.gestures
    t = app.now + 1000
    app.now = t
    g.on_arbiter_down(t, t)  # the key's first edge pauses
    assert app.clock.state == "paused" and app.calling is None
    assert g.next_due(t) == HOLD_MS
    g.poll(t + HOLD_MS)
    assert app.calling is not None
    g.on_arbiter_up(t + HOLD_MS + 100)
    assert app.clock.state == "paused"  # a hold is no tap: no resume
    r = ask(proto, cmd="arbiter.ack")
    assert r["ok"] and app.calling is None and app.called_by == "host"
    assert ask(proto, cmd="arbiter.ack")["ok"] is False  # nobody calls now
    # A hold on a paused clock is no call (the arbiter's reset gesture starts so) ...
    t2 = t + 10000
    g.on_arbiter_down(t2, t2)
    g.poll(t2 + HOLD_MS)
    assert app.calling is None
    g.on_arbiter_up(t2 + HOLD_MS + 10)
    # ... but answers one that is on, at the board.
    assert ask(proto, cmd="resume")["ok"]
    t3 = t2 + 20000
    g.on_arbiter_down(t3, t3)
    g.poll(t3 + HOLD_MS)
    assert app.calling is not None
    g.on_arbiter_up(t3 + HOLD_MS + 10)
    g.on_arbiter_down(t3 + 5000, t3 + 5000)
    g.poll(t3 + 5000 + HOLD_MS)
    assert app.calling is None and app.called_by == "board"
    notices = [r.get("notice") for r in records(app) if r["event"] == "log"]
    assert notices.count("arbiter_call") == 2 and notices.count("arbiter_ack") == 2
