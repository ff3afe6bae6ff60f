"""The serial line's back-pressure (app/hostline.py): a reply is never dropped, an event may be.

The real session on a flash of the Pico's size, in virtual time; the host is a board whose
line takes one USB packet (64 bytes) a pass, as a reading host empties the Pico's.
"""

import json

from goclockfw.board.base import Board
from support.sessions import make_session

PIECE = 64


class Host(Board):
    """The serial line: what the host sends, what it has read."""

    def __init__(self):
        Board.__init__(self)
        self.sending = bytearray()
        self.read = bytearray()

    def read_serial(self, buf):
        n = min(len(buf), len(self.sending))
        buf[0:n] = self.sending[:n]
        del self.sending[:n]
        return n


def run(s, host, now, passes):
    """Passes of the loop, 10 ms apart: the line served, the session stepped, a piece read
    (and what was shown taken as shown, as the loop's `_show` does)."""
    out = s.out
    for _ in range(passes):
        s.line.receive(host, now)
        s.step(now)
        s.changed = False
        k = out.take()
        if k:
            n = min(k, PIECE)
            host.read.extend(bytes(out.buf[out.head : out.head + n]))
            out.sent(n)
        now += 10
    return now


def lines(host):
    """The whole lines the host has read."""
    return [json.loads(x) for x in bytes(host.read).decode().split("\n")[:-1]]


def test_a_reply_longer_than_the_output_ring_reaches_the_host_whole():
    s = make_session(blocks=352)
    c = s.commands
    now = 0
    while len(json.dumps(s.journal.list())) < s.out.size + 2000:  # a logs.list over the ring
        c.press(1, now)  # White's button starts Black's clock
        c.press(0, now + 10)
        c.pause()
        c.reset()
        now += 1000
    c.press(1, now)  # a game runs: status events every second for a watching host
    host = Host()
    host.sending.extend(b'{"id":1,"cmd":"watch","on":true}\n{"id":2,"cmd":"logs.list"}\n')
    host.sending.extend(b'{"id":3,"cmd":"status"}\n')
    now = run(s, host, now, 400)  # 4 s: the long reply takes some 150 passes
    got = lines(host)  # every line whole: no event inside the reply
    replies = [x for x in got if "id" in x]
    assert [r["id"] for r in replies] == [1, 2, 3] and all(r["ok"] for r in replies)
    listed = replies[1]["logs"]
    assert listed == s.journal.list() and len(json.dumps(replies[1])) > s.out.size
    assert s.out.dropped > 0  # the status events that came while the reply went in
    assert any(x.get("event") == "status" for x in got[got.index(replies[2]) :])  # then again
    assert s.line.long is None and s.line.held == []


def test_a_long_reply_gives_its_buffer_back():
    """presets.get (ten presets, ~1 KB) grows the reply writer's buffer; the next reply
    built field by field gives it back, so a clock does not keep 2 KB for a rare command.
    A press's reply, from its template, neither grows nor shrinks it."""
    from goclockfw.protocol.commands import REPLY_BUF

    s = make_session()
    p = s.protocol
    r = json.loads(p.handle_line('{"id":1,"cmd":"presets.get"}'))
    assert len(r["presets"]) == 10 and len(p._replies.buf) > REPLY_BUF
    assert json.loads(p.handle_line('{"id":2,"cmd":"config.get"}'))["ok"]
    assert len(p._replies.buf) == REPLY_BUF
    assert json.loads(p.handle_line('{"id":3,"cmd":"press","side":"white"}'))["accepted"]
    assert len(p._replies.buf) == REPLY_BUF


def test_a_preset_that_cannot_be_read_now_is_refused_not_replaced():
    """The presets are read from the flash when asked (storage/configstore.py): a stored
    file damaged since boot makes `reset` to a preset, `presets.get` and the menu's line
    say so; no game starts on a time control nobody chose, and the clock goes on."""
    s = make_session()
    p = s.protocol
    mine = '[{"name":"mine","time_control":{"type":"fischer","main":60,"increment":5}}]'
    assert json.loads(p.handle_line('{"id":1,"cmd":"presets.set","presets":%s}' % mine))["ok"]
    with s.store.fs.open(s.store.name, "wb") as f:
        f.write(b"{")  # damaged after it was read
    r = json.loads(p.handle_line('{"id":2,"cmd":"reset","preset":1}'))
    assert not r["ok"] and r["error"].startswith("presets unreadable"), r
    r = json.loads(p.handle_line('{"id":3,"cmd":"presets.get"}'))
    assert not r["ok"] and r["error"].startswith("presets unreadable"), r
    s.gestures.menu = 0
    assert s.menu() == "1 ?" and s.menu_time_control() is None
    assert json.loads(p.handle_line('{"id":4,"cmd":"status"}'))["state"] == "idle"
