"""Request lines out of a serial byte stream, with a cap on their length.

The buffer is allocated once. A line longer than the cap is dropped as it
streams in (never buffered whole) and reported once, when its end comes, so
a flood of junk costs no memory. "\\n", "\\r\\n" and "\\r" all end a line
(terminals such as mpremote and miniterm send "\\r" for Enter); empty lines
are skipped.
"""

OVERLONG = None  # what `feed` yields for a line over the cap


class LineReader:
    def __init__(self, max_line):
        self.max_line = max_line  # bytes, the line end included
        self._buf = bytearray(max_line)
        self._len = 0
        self._overlong = False

    def feed(self, data):
        """The lines `data` completes: bytes-like copies without their end, or OVERLONG.

        The bytes are copied into the buffer and searched for line ends by C code (slice
        assignment, find): a byte-by-byte loop in Python costs ~10 us a byte on an RP2040."""
        lines = []
        buf = self._buf
        cap = self.max_line - 1  # room for the line end counts too
        n = self._len
        over = self._overlong
        m = len(data)
        pos = 0
        while pos < m:
            if over:  # drop up to the line end (the buffer serves as scratch)
                k = m - pos if m - pos < len(buf) else len(buf)
                buf[0:k] = data if k == m else data[pos : pos + k]
                e = _eol(buf, 0, k)
                if e < 0:
                    pos += k
                    continue
                lines.append(OVERLONG)
                over = False
                n = 0
                pos += e + 1
                continue
            room = cap - n
            if room == 0:  # full: only a line end may come now
                b = data[pos]
                if b == 10 or b == 13:
                    lines.append(buf[:n])
                    n = 0
                    pos += 1
                else:
                    over = True
                continue
            k = m - pos if m - pos < room else room
            buf[n : n + k] = data if k == m else data[pos : pos + k]
            e = _eol(buf, n, n + k)
            if e < 0:
                n += k
                pos += k
                continue
            if e:
                lines.append(buf[:e])
            pos += e - n + 1
            n = 0
        self._len = n
        self._overlong = over
        return lines


def _eol(buf, start, end):
    """Index of the first line end ("\n" or "\r") in buf[start:end], or -1."""
    i = buf.find(b"\n", start, end)
    j = buf.find(b"\r", start, end)
    if i < 0 or (0 <= j < i):
        return j
    return i
