"""Serial output that never blocks the clock: lines wait here, the loop sends what the line takes.

A USB or UART write can block (a Pico's USB serial waits up to 500 ms for a host that
does not read; an ESP32's UART sends 11.5 bytes a millisecond). So the session never
writes to the board: it puts whole lines into this ring, and the loop hands the board
as much as it accepts without waiting (`take`/`sent`), a partial write resumed on the
next pass. Allocated once.

A line that does not fit is dropped whole and counted (`dropped`); nothing is ever cut.
Only event lines meet a full ring: a request is answered only while REPLY_ROOM bytes are
free and no reply is longer (app/hostline.py), so a reply always fits.
"""

REPLY_ROOM = 2048  # the longest reply (ten presets, a logs.get chunk in base64) fits in this
# (tests/test_firmware_protocol.py checks the longest replies against it)


class OutBuffer:
    def __init__(self, size=6144):
        self.buf = bytearray(size)
        self.view = memoryview(self.buf)
        self.size = size
        self.head = 0  # next byte to send
        self.used = 0
        self.dropped = 0  # event lines dropped for want of room
        self.sent_bytes = 0

    def free(self):
        return self.size - self.used

    def put(self, data):
        """Queue one line (`data` without its newline). False when it was dropped."""
        if isinstance(data, str):
            data = data.encode()
        n = len(data) + 1
        if n > self.size - self.used:
            self.dropped += 1
            return False
        tail = (self.head + self.used) % self.size
        first = self.size - tail
        if first > n - 1:
            first = n - 1
        self.buf[tail : tail + first] = data[:first] if first < len(data) else data
        rest = n - 1 - first
        if rest:
            self.buf[0:rest] = data[first:]
        self.buf[(tail + n - 1) % self.size] = 10
        self.used += n
        return True

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
