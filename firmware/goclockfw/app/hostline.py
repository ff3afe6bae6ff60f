"""The serial line to the host, from the clock's side: requests in, replies out, and the one
rule between them (back-pressure).

A USB or UART write can block, so nothing is written to the board from here: replies and
event lines go into the output ring (app/outbuf.py), which the loop hands to the board as
far as the line takes it. The rule: a request is answered only while REPLY_ROOM bytes are
free in the ring, and requests are read from the board only while none waits for an
answer. One read can complete several requests whose replies do not all fit: those lines
wait here (`held`), in order, and are answered as the host reads again. A reply longer
than the room there is (a `logs.list` of many games) goes into the ring in pieces as the
line drains, no event line entering meanwhile, and nothing more is read or answered until
it is in. So a host that stops reading loses event lines (dropped whole, counted in the
ring), never a reply, and the clock never blocks on it. Each pass tells the board whether
requests are read (`board.watch_serial`), so a board that sleeps on the serial line
sleeps on while they are not.

    line = HostLine(out, protocol, catch_up)
    line.receive(board, now)    # every pass: held requests answered, new ones read
    line.feed(data, now)        # bytes from the host (receive reads them from the board)
"""

from goclockfw.app.outbuf import REPLY_ROOM
from goclockfw.protocol.lineread import NO_LINE, OVERLONG, OVERLONG_LINE

SERIAL_IN = 256  # bytes taken from the board's line per pass, at most


class HostLine:
    def __init__(self, out, protocol, catch_up):
        self.out = out
        self.protocol = protocol
        self.held = []  # request lines read but not answered yet (no room for their replies)
        self.long = None  # what is left of a reply going in piece by piece (a memoryview)
        self._catch_up = catch_up  # the session's clock run up to now (replies say the time)
        self.inbuf = bytearray(SERIAL_IN)  # what the board reads into (read_serial)
        # A request was answered since the session's last step (which clears it): that
        # step then leaves its heavier work to the next pass (app/session.py), so the
        # reply goes out sooner and the pass stays short.
        self.answered = False

    def room(self):
        """May a request be answered now: nothing going in, room for a reply?"""
        out = self.out
        return self.long is None and out.size - out.used >= REPLY_ROOM

    def receive(self, board, now):
        """Finish a long reply, answer what was held while replies fit; read and answer new
        requests only once nothing is held and a reply fits."""
        if self.long is not None:
            self._more()
        held = self.held
        out = self.out
        if held and self.long is None and out.size - out.used >= REPLY_ROOM:
            self._catch_up(now)  # (a held press written first: app/records.py)
            reply_to = self.protocol.reply_to
            while held and self.room():
                self._reply(reply_to(held.pop(0)))
        reading = not held and self.long is None and out.size - out.used >= REPLY_ROOM
        board.watch_serial = reading
        if reading:
            n = board.read_serial(self.inbuf)
            if n:
                self.feed(self.inbuf, now, n)

    def feed(self, data, now, n=-1):
        """Request bytes, data[:n] (all of it by default): each request they complete is
        answered at once while its reply fits, else held (in order, a copy) for `receive`.
        Lines are read in the reader's buffer, where they are (nothing allocated)."""
        self._catch_up(now)
        held = self.held
        out = self.out
        p = self.protocol
        r = p.reader
        r.begin(data, n)
        while True:
            k = r.next_line()
            if k == NO_LINE:
                return
            if held or self.long is not None or out.size - out.used < REPLY_ROOM:
                # (rare: a host that stopped reading)
                held.append(OVERLONG if k == OVERLONG_LINE else bytes(r.buf[:k]))
                continue
            self._reply(p.reply_to(r.buf, k))

    def _reply(self, reply):
        self.answered = True
        out = self.out
        if isinstance(reply, str):
            reply = reply.encode()  # (an error's text: the replies proper are written in place)
            buf, n = reply, len(reply)
        else:
            buf, n = reply.buf, reply.n  # the protocol's reply writer (events.EventWriter)
        if n + 1 <= out.size - out.used:
            out.put(buf, n)
            return
        # Longer than the room there is: copied (the protocol reuses its buffer), then in
        # pieces as the line drains; no event line enters the ring until it is all in.
        self.long = memoryview(bytes(buf[:n]) + b"\n")
        out.holding = True
        self._more()

    def _more(self):
        long = self.long
        n = self.out.put_part(long)
        if n < len(long):
            self.long = long[n:]
        else:
            self.long = None
            self.out.holding = False
