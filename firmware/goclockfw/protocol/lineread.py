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
        """The lines `data` completes: bytes without their end, or OVERLONG."""
        lines = []
        buf = self._buf
        for b in data:
            if b == 10 or b == 13:
                if self._overlong:
                    lines.append(OVERLONG)
                elif self._len:
                    lines.append(bytes(buf[: self._len]))
                self._len = 0
                self._overlong = False
            elif self._overlong:
                continue
            elif self._len >= self.max_line - 1:  # room for the line end counts too
                self._overlong = True
            else:
                buf[self._len] = b
                self._len += 1
        return lines
