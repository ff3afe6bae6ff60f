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

REPLY_ROOM = 2048  # a reply of ten presets or a logs.get chunk (base64) fits in this


class OutBuffer:
    def __init__(self, size=6144):
        self.buf = bytearray(size)
        self.view = memoryview(self.buf)
        self.size = size
        self.head = 0  # next byte to send
        self.used = 0
        self.dropped = 0  # event lines dropped for want of room
        self.holding = False  # a long reply is going in piece by piece: no line may enter
        self.sent_bytes = 0

    def free(self):
        return self.size - self.used

    def put(self, data):
        """Queue one line (`data` without its newline). False when it was dropped."""
        if isinstance(data, str):
            data = data.encode()
        if self.holding or len(data) + 1 > self.size - self.used:
            self.dropped += 1
            return False
        self.put_part(data)
        self.buf[(self.head + self.used) % self.size] = 10
        self.used += 1
        return True

    def put_part(self, data):
        """As much of `data` as there is room for, no newline added: the count taken."""
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
        self.buf[tail : tail + first] = data if first == len(data) else data[:first]
        rest = n - first
        if rest:
            self.buf[0:rest] = data[first:n]
        self.used += n
        return n

    def take(self):
        """The bytes waiting, as one memoryview (up to the ring's end), or None."""
        if not self.used:
            return None
        end = self.head + self.used
        if end > self.size:
            end = self.size
        return self.view[self.head : end]

    def sent(self, n):
        """`n` bytes of what `take` gave were sent."""
        if n <= 0:
            return
        self.head = (self.head + n) % self.size
        self.used -= n
        self.sent_bytes += n
        if not self.used:
            self.head = 0
