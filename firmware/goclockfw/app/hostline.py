"""The serial line to the host, from the clock's side: requests in, replies out, and the one
rule between them (back-pressure).

A USB or UART write can block, so nothing is written to the board from here: replies and
event lines go into the output ring (app/outbuf.py), which the loop hands to the board as
far as the line takes it. The rule: a request is answered only while REPLY_ROOM bytes are
free in the ring (every reply fits in that), and requests are read from the board only
while none waits for an answer. One read can complete several requests whose replies do
not all fit: those lines wait here (`held`), in order, and are answered as the host
reads again. So a host that stops reading loses event lines (dropped whole, counted in
the ring), never a reply, and the clock never blocks on it. Each pass tells the board
whether requests are read (`board.watch_serial`), so a board that sleeps on the serial line
sleeps on while they are not.

    line = HostLine(out, protocol, catch_up)
    line.receive(board, now)    # every pass: held requests answered, new ones read
    line.feed(data, now)        # bytes from the host (receive reads them from the board)
"""

from goclockfw.app.outbuf import REPLY_ROOM


class HostLine:
    def __init__(self, out, protocol, catch_up):
        self.out = out
        self.protocol = protocol
        self.held = []  # request lines read but not answered yet (no room for their replies)
        self._catch_up = catch_up  # the session's clock run up to now (replies say the time)
        self._put = out.put  # bound once: a reply allocates no method

    def room(self):
        """Does a reply fit in the output now?"""
        out = self.out
        return out.size - out.used >= REPLY_ROOM

    def receive(self, board, now):
        """Answer what was held while replies fit; read and answer new requests only once
        nothing is held and a reply fits."""
        held = self.held
        out = self.out
        if held and out.size - out.used >= REPLY_ROOM:
            put = self._put
            reply_to = self.protocol.reply_to
            while held and out.size - out.used >= REPLY_ROOM:
                put(reply_to(held.pop(0)))
        reading = not held and out.size - out.used >= REPLY_ROOM
        board.watch_serial = reading
        if reading:
            data = board.read_serial()
            if data is not None:
                self.feed(data, now)

    def feed(self, data, now):
        """Request bytes: each request they complete is answered at once while its reply
        fits, else held (in order) for `receive`."""
        self._catch_up(now)
        held = self.held
        out = self.out
        p = self.protocol
        for line in p.lines(data):
            if held or out.size - out.used < REPLY_ROOM:
                held.append(line)  # (rare: a host that stopped reading; the reader copied it)
                continue
            self._put(p.reply_to(line))
