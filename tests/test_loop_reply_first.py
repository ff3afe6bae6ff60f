"""A reply to a host that is not watching goes out before the session's step, in the pass
that answered it (app/loop.py); the step still runs in every pass; a watching host's reply
and status line leave together, after the step."""

import json

from goclockfw.app.loop import Loop
from goclockfw.board.base import Board
from goclockfw.core.ticks import ticks_add
from support.sessions import make_session


class Line(Board):
    """A board with a clock and a serial line: requests queued in, every write kept."""

    def __init__(self):
        Board.__init__(self)
        self.now = 0
        self.incoming = []  # request lines, one handed over per read
        self.out = bytearray()
        self.waits = []

    def ticks(self):
        return self.now

    def wait(self, ms):
        self.waits.append(ms)
        self.now = ticks_add(self.now, ms if ms > 0 else 1)

    def read_serial(self, buf):
        if not self.incoming:
            return 0
        line = self.incoming.pop(0)
        buf[: len(line)] = line
        return len(line)

    def serial_send(self, buf, start, n):
        self.out += buf[start : start + n]
        return n

    def replies(self):
        lines = [json.loads(x) for x in bytes(self.out).decode().splitlines()]
        self.out.clear()
        return lines


def looped():
    board = Line()
    loop = Loop(board, make_session())
    steps = []  # (tick, bytes sent before the step)
    step = loop.session.step
    loop.session.step = lambda now: steps.append((now, len(board.out))) or step(now)
    for _ in range(5):
        loop._step()
    board.replies()
    steps.clear()
    return board, loop, steps


def test_the_reply_goes_out_before_the_step_of_its_pass():
    board, loop, steps = looped()
    board.incoming.append(b'{"id":1,"cmd":"press","side":"white"}\n')
    loop._step()
    sent_before = steps[0][1]
    reply = b'{"accepted":true,"id":1,"ok":true}\n'
    assert len(steps) == 1 and sent_before == len(reply) and bytes(board.out) == reply
    assert loop.session.clock.state == "running"


def test_a_host_that_asks_every_pass_gets_a_step_every_pass():
    board, loop, steps = looped()
    for i in range(6):
        board.incoming.append(b'{"id":%d,"cmd":"status"}\n' % i)
    for _ in range(6):
        loop._step()
    assert [r["id"] for r in board.replies()] == list(range(6))
    assert len(steps) == 6


def test_a_watching_host_gets_its_reply_and_status_line_in_one_write_after_the_step():
    board, loop, steps = looped()
    board.incoming.append(b'{"id":1,"cmd":"watch","on":true}\n')
    loop._step()
    board.replies()
    steps.clear()
    board.incoming.append(b'{"id":2,"cmd":"press","side":"white"}\n')
    loop._step()
    assert steps[0][1] == 0  # nothing sent before the step
    lines = board.replies()
    assert {"accepted": True, "id": 2, "ok": True} in lines
    assert [x["event"] for x in lines if "event" in x][-1] == "status"
