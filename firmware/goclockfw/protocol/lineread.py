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
        """The lines `data` completes: bytes-like copies without their end, or OVERLONG."""
        lines = []
        buf = self._buf
        n = self._len
        cap = self.max_line - 1  # room for the line end counts too
        over = self._overlong
        for b in data:  # locals only: this runs for every byte of every request
            if b == 10 or b == 13:
                if over:
                    lines.append(OVERLONG)
                elif n:
                    lines.append(buf[:n])
                n = 0
                over = False
            elif over:
                continue
            elif n >= cap:
                over = True
            else:
                buf[n] = b
                n += 1
        self._len = n
        self._overlong = over
        return lines
