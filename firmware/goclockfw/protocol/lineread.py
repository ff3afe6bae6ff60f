"""Request lines out of a serial byte stream, with a cap on their length.

The buffer is allocated once. A line longer than the cap is dropped as it
streams in (never buffered whole) and reported once, when its end comes, so
a flood of junk costs no memory. "\\n", "\\r\\n" and "\\r" all end a line
(terminals such as mpremote and miniterm send "\\r" for Enter); empty lines
are skipped.

The serial line reads lines where they are, allocating nothing:

    reader.begin(data, m)       # data[:m]: bytes from the line
    while True:
        k = reader.next_line()  # a line in reader.buf[:k] (valid until the next call),
        if k == NO_LINE:        # OVERLONG_LINE for a line over the cap, NO_LINE when
            break               # the bytes are used up (an unfinished line is kept)

`feed(data)` gives the lines as copies (tests and tools).
"""

from goclockfw.bytesops import copy

OVERLONG = None  # what `feed` yields for a line over the cap
NO_LINE = -1  # next_line: the bytes given are used up
OVERLONG_LINE = -2  # next_line: a line over the cap ended (its bytes are gone)


class LineReader:
    def __init__(self, max_line):
        self.max_line = max_line  # bytes, the line end included
        self.buf = bytearray(max_line)
        self._len = 0
        self._overlong = False
        self._data = b""  # the bytes being read (begin), and how far
        self._m = 0
        self._pos = 0

    def begin(self, data, m=-1):
        """Read lines out of data[:m] (all of it by default) with next_line."""
        self._data = data
        self._m = len(data) if m < 0 else m
        self._pos = 0

    def next_line(self):
        """The next line the bytes complete: its length in `buf`, or OVERLONG_LINE, or
        NO_LINE once they are used up. The bytes are copied into the buffer and searched
        for line ends by C code (`find`) and a viper copy: a byte-by-byte loop in
        bytecode costs ~10 us a byte on an RP2040."""
        data = self._data
        buf = self.buf
        cap = self.max_line - 1  # room for the line end counts too
        m = self._m
        pos = self._pos
        n = self._len
        while pos < m:
            if self._overlong:  # drop up to the line end (the buffer serves as scratch)
                k = m - pos if m - pos < len(buf) else len(buf)
                copy(buf, 0, data, pos, k)
                e = _eol(buf, 0, k)
                if e < 0:
                    pos += k
                    continue
                self._overlong = False
                self._pos = pos + e + 1
                self._len = 0
                return OVERLONG_LINE
            room = cap - n
            if room == 0:  # full: only a line end may come now
                b = data[pos]
                pos += 1
                if b == 10 or b == 13:
                    self._pos = pos
                    self._len = 0
                    return n
                self._overlong = True
                n = 0
                continue
            k = m - pos if m - pos < room else room
            copy(buf, n, data, pos, k)
            e = _eol(buf, n, n + k)
            if e < 0:
                n += k
                pos += k
                continue
            pos += e - n + 1
            if e:
                self._pos = pos
                self._len = 0
                return e
            n = 0  # an empty line: skipped
        self._pos = pos
        self._len = n
        self._data = b""  # not kept: the caller's buffer is its own again
        return NO_LINE

    def feed(self, data):
        """The lines `data` completes: bytes copies without their end, or OVERLONG."""
        lines = []
        self.begin(data)
        while True:
            k = self.next_line()
            if k == NO_LINE:
                return lines
            lines.append(OVERLONG if k == OVERLONG_LINE else bytes(self.buf[:k]))


def _eol(buf, start, end):
    """Index of the first line end ("\n" or "\r") in buf[start:end], or -1."""
    i = buf.find(b"\n", start, end)
    j = buf.find(b"\r", start, end)
    if i < 0 or (0 <= j < i):
        return j
    return i
