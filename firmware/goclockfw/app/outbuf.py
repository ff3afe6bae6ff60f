"""Serial output that never blocks the clock: lines wait here, the loop sends what the line takes.

A USB or UART write can block (a Pico's USB serial waits up to 500 ms for a host that
does not read; an ESP32's UART sends 11.5 bytes a millisecond). So the session never
writes to the board: it puts whole lines into this ring, and the loop hands the board
as much as it accepts without waiting (`take`/`sent`), a partial write resumed on the
next pass. Allocated once.

A line that does not fit is dropped whole and counted (`dropped`); nothing is ever cut.
Only event lines meet a full ring: the serial line (app/hostline.py) answers a request
only while REPLY_ROOM bytes are free, and a reply longer than the room there is goes in
with `put_part`, piece by piece as the line drains, while `holding` keeps every event
line out (dropped, counted) so that none lands inside it. So a reply is never dropped.
"""

from goclockfw.bytesops import copy

# A status, an info or a logs.get chunk (512 B as base64, ~0.8 KB) fits in this; longer
# replies (a config with ten presets, a long logs.list) go in piece by piece (`put_part`).
REPLY_ROOM = 1024


class OutBuffer:
    def __init__(self, size=6144):
        self.buf = bytearray(size)
        self.size = size
        self.head = 0  # next byte to send
        self.used = 0
        self.dropped = 0  # event lines dropped for want of room
        self.holding = False  # a long reply is going in piece by piece: no line may enter
        self.sent_bytes = 0

    def free(self):
        return self.size - self.used

    def put(self, data, n=-1):
        """Queue one line, `data[:n]` (all of it by default) without its newline. False
        when it was dropped."""
        if isinstance(data, str):
            data = data.encode()
            n = -1
        if n < 0:
            n = len(data)
        size = self.size
        used = self.used
        if self.holding or n + 1 > size - used:
            self.dropped += 1
            return False
        tail = (self.head + used) % size
        if tail + n < size:
            # The usual line, in one piece with its newline (`put_part`, written out: a
            # call less in every reply and event line).
            copy(self.buf, tail, data, 0, n)
            self.buf[tail + n] = 10
            self.used = used + n + 1
            return True
        self.put_part(data, n)
        self.buf[(self.head + self.used) % size] = 10
        self.used += 1
        return True

    def put_part(self, data, n=-1):
        """As much of `data[:n]` as there is room for, no newline added: the count taken.
        Copied by bytesops.copy (a slice would allocate on the chip)."""
        if n < 0:
            n = len(data)
        free = self.size - self.used
        if n > free:
            n = free
        if n <= 0:
            return 0
        tail = (self.head + self.used) % self.size
        first = self.size - tail
        if first > n:
            first = n
        copy(self.buf, tail, data, 0, first)
        if n > first:
            copy(self.buf, 0, data, first, n - first)
        self.used += n
        return n

    def take(self):
        """How many bytes wait from `head` on in one piece (up to the ring's end): the
        caller sends buf[head:head + count]; 0 when none wait."""
        if not self.used:
            return 0
        end = self.head + self.used
        return (self.size if end > self.size else end) - self.head

    def sent(self, n):
        """`n` bytes of what `take` gave were sent."""
        if n <= 0:
            return
        self.head = (self.head + n) % self.size
        self.used -= n
        self.sent_bytes += n
        if not self.used:
            self.head = 0
