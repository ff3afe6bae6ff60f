"""A strict JSON reader for request lines: RFC 8259 in strict UTF-8, the same on every engine.

MicroPython's `json.loads` accepts what is not JSON (`{"cmd":"pause"]`, trailing commas,
`01`, raw control characters in strings) and its `bytes.decode` lets overlong and surrogate
UTF-8 through, so a request could mean one thing to the clock and another to the host that
wrote it. This module parses the bytes itself and refuses, with `JSONError` (a ValueError):

- anything outside RFC 8259's grammar: trailing commas, mismatched brackets, leading zeros,
  `NaN`/`Infinity`, single quotes, comments, a BOM, data after the value;
- bytes that are not well-formed UTF-8 (Unicode table 3-7: no overlong forms, no
  surrogates, nothing above U+10FFFF, no cut sequences), and a `\\u` escape of a lone
  surrogate;
- control characters (below 0x20) inside strings: they must be escaped;
- an object with the same key twice (RFC 8259 leaves its meaning open: we refuse it);
- numbers whose text is over MAX_NUMBER characters or whose value is not a finite double
  (RFC 8259 lets a reader limit the range), and nesting deeper than MAX_DEPTH.

The parser keeps its own stack of open containers instead of recursing, so a line of
brackets cannot exhaust MicroPython's small C stack; what it allocates is bounded by the
line (requests are at most 1024 bytes): the values themselves, and one bytearray for a
string only when the string has escapes. `loads` returns what `json.loads` would for the
same valid text: dicts, lists, str, int, float, True, False, None.
"""

MAX_DEPTH = 16  # open objects and arrays at once; a request needs 5 at most
MAX_NUMBER = 32  # characters of one number's text

_SPACE = b" \t\n\r"
_ESCAPES = {
    0x22: 0x22,  # \"
    0x5C: 0x5C,  # \\
    0x2F: 0x2F,  # \/
    0x62: 0x08,  # \b
    0x66: 0x0C,  # \f
    0x6E: 0x0A,  # \n
    0x72: 0x0D,  # \r
    0x74: 0x09,  # \t
}


class JSONError(ValueError):
    """Not strict JSON; `pos` is the byte offset where reading stopped."""

    def __init__(self, msg, pos):
        super().__init__("%s at byte %d" % (msg, pos))
        self.pos = pos


def _ws(data, i, n):
    while i < n and data[i] in _SPACE:
        i += 1
    return i


def _utf8(data, i, n):
    """Check the multi-byte UTF-8 sequence at i (lead byte >= 0x80); return the index after it."""
    c = data[i]
    # (continuation bytes after the lead, range of the first continuation byte)
    if 0xC2 <= c <= 0xDF:
        more, lo, hi = 1, 0x80, 0xBF
    elif c == 0xE0:
        more, lo, hi = 2, 0xA0, 0xBF  # below 0xA0: an overlong form
    elif c == 0xED:
        more, lo, hi = 2, 0x80, 0x9F  # above 0x9F: a surrogate (U+D800..U+DFFF)
    elif 0xE1 <= c <= 0xEF:
        more, lo, hi = 2, 0x80, 0xBF
    elif c == 0xF0:
        more, lo, hi = 3, 0x90, 0xBF  # below 0x90: an overlong form
    elif 0xF1 <= c <= 0xF3:
        more, lo, hi = 3, 0x80, 0xBF
    elif c == 0xF4:
        more, lo, hi = 3, 0x80, 0x8F  # above 0x8F: beyond U+10FFFF
    else:  # a stray continuation byte, 0xC0/0xC1 (overlong), 0xF5..0xFF
        raise JSONError("invalid UTF-8", i)
    if i + more >= n:
        raise JSONError("invalid UTF-8 (cut short)", i)
    b = data[i + 1]
    if b < lo or b > hi:
        raise JSONError("invalid UTF-8", i)
    for k in range(i + 2, i + 1 + more):
        if data[k] & 0xC0 != 0x80:
            raise JSONError("invalid UTF-8", i)
    return i + 1 + more


def _hex4(data, i, n):
    if i + 4 > n:
        raise JSONError("bad \\u escape", i)
    v = 0
    for k in range(i, i + 4):
        c = data[k]
        if 0x30 <= c <= 0x39:
            d = c - 0x30
        elif 0x61 <= c <= 0x66:
            d = c - 0x57
        elif 0x41 <= c <= 0x46:
            d = c - 0x37
        else:
            raise JSONError("bad \\u escape", i)
        v = v * 16 + d
    return v


def _put_utf8(buf, cp):
    if cp < 0x80:
        buf.append(cp)
    elif cp < 0x800:
        buf.append(0xC0 | cp >> 6)
        buf.append(0x80 | cp & 0x3F)
    elif cp < 0x10000:
        buf.append(0xE0 | cp >> 12)
        buf.append(0x80 | cp >> 6 & 0x3F)
        buf.append(0x80 | cp & 0x3F)
    else:
        buf.append(0xF0 | cp >> 18)
        buf.append(0x80 | cp >> 12 & 0x3F)
        buf.append(0x80 | cp >> 6 & 0x3F)
        buf.append(0x80 | cp & 0x3F)


def _escape(data, i, n, buf):
    """The escape whose backslash is at i, appended to buf as UTF-8; the index after it."""
    if i + 1 >= n:
        raise JSONError("unterminated string", i)
    c = data[i + 1]
    if c != 0x75:  # not \u
        b = _ESCAPES.get(c)
        if b is None:
            raise JSONError("bad escape", i)
        buf.append(b)
        return i + 2
    cp = _hex4(data, i + 2, n)
    i += 6
    if 0xDC00 <= cp <= 0xDFFF:
        raise JSONError("lone surrogate escape", i - 6)
    if 0xD800 <= cp <= 0xDBFF:  # must be followed by the low half of the pair
        if i + 1 >= n or data[i] != 0x5C or data[i + 1] != 0x75:
            raise JSONError("lone surrogate escape", i - 6)
        low = _hex4(data, i + 2, n)
        if not 0xDC00 <= low <= 0xDFFF:
            raise JSONError("lone surrogate escape", i - 6)
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00)
        i += 6
    _put_utf8(buf, cp)
    return i


def _string(data, i, n):
    """The string whose opening quote is at i -> (str, index after the closing quote)."""
    i += 1
    # Most strings are plain ASCII up to the next quote: checked with C loops (find, min,
    # max, in), not byte by byte in Python, which is slow on a microcontroller.
    j = data.find(b'"', i)
    if j > i:
        seg = data[i:j]
        if min(seg) >= 0x20 and max(seg) < 0x80 and 0x5C not in seg:
            return str(seg, "ascii"), j + 1
    elif j == i:
        return "", j + 1
    start = i
    seg = i  # start of the bytes not yet copied into buf
    buf = None  # only a string with escapes needs a buffer of its own
    while True:
        if i >= n:
            raise JSONError("unterminated string", start - 1)
        c = data[i]
        if c == 0x22:
            break
        if c == 0x5C:
            if buf is None:
                buf = bytearray()
            buf.extend(data[seg:i])
            i = _escape(data, i, n, buf)
            seg = i
        elif c < 0x20:
            raise JSONError("control character in a string", i)
        elif c < 0x80:
            i += 1
        else:
            i = _utf8(data, i, n)
    if buf is None:
        return str(data[start:i], "utf-8"), i + 1
    buf.extend(data[seg:i])
    return str(buf, "utf-8"), i + 1


def _digits(data, i, n):
    while i < n and 0x30 <= data[i] <= 0x39:
        i += 1
    return i


def _number(data, i, n):
    """The number starting at i -> (int or float, index after it)."""
    start = i
    if data[i] == 0x2D:  # -
        i += 1
    if i < n and data[i] == 0x30:
        i += 1  # a leading 0 stands alone: "01" ends the number after the 0
    elif i < n and 0x31 <= data[i] <= 0x39:
        i = _digits(data, i, n)
    else:
        raise JSONError("bad number", start)
    is_float = False
    if i < n and data[i] == 0x2E:  # .
        j = _digits(data, i + 1, n)
        if j == i + 1:
            raise JSONError("bad number", start)
        i = j
        is_float = True
    if i < n and (data[i] == 0x65 or data[i] == 0x45):  # e E
        i += 1
        if i < n and (data[i] == 0x2B or data[i] == 0x2D):
            i += 1
        j = _digits(data, i, n)
        if j == i:
            raise JSONError("bad number", start)
        i = j
        is_float = True
    if i - start > MAX_NUMBER:
        raise JSONError("number too long", start)
    text = str(data[start:i], "ascii")
    if not is_float:
        return int(text), i
    v = float(text)
    if v - v != 0.0:  # inf (of a double, or of a single-precision MCU float)
        raise JSONError("number out of range", start)
    return v, i


def _literal(data, i, n):
    for word, value in ((b"true", True), (b"false", False), (b"null", None)):
        if data[i : i + len(word)] == word:
            return value, i + len(word)
    raise JSONError("unexpected byte", i)


def _key(data, i, n, obj):
    """An object's key at i, then its colon -> (key, index of the value)."""
    if i >= n or data[i] != 0x22:
        raise JSONError("expected a string key", i)
    at = i
    key, i = _string(data, i, n)
    if key in obj:
        raise JSONError("duplicate key", at)
    i = _ws(data, i, n)
    if i >= n or data[i] != 0x3A:
        raise JSONError("expected ':'", i)
    return key, _ws(data, i + 1, n)


def loads(data, max_depth=MAX_DEPTH):
    """The value of one JSON text (bytes); JSONError when it is not strict JSON."""
    if isinstance(data, str):
        data = data.encode()
    elif not isinstance(data, bytes):
        data = bytes(data)
    n = len(data)
    stack = []  # the open containers, innermost last
    keys = []  # the pending key of each open container (None for arrays)
    key = None  # the pending key of the innermost open object
    root = None
    i = _ws(data, 0, n)
    while True:
        # A value starts at i.
        if i >= n:
            raise JSONError("expected a value", i)
        c = data[i]
        opened = c == 0x7B or c == 0x5B  # { [
        if opened:
            if len(stack) >= max_depth:
                raise JSONError("nested too deep", i)
            value = {} if c == 0x7B else []
            i += 1
        elif c == 0x22:
            value, i = _string(data, i, n)
        elif c == 0x2D or 0x30 <= c <= 0x39:
            value, i = _number(data, i, n)
        else:
            value, i = _literal(data, i, n)
        if not stack:
            root = value
        elif key is None:
            stack[-1].append(value)
        else:
            stack[-1][key] = value
        if opened:
            stack.append(value)
            keys.append(key)
            key = None
            i = _ws(data, i, n)
            if i < n and data[i] == (0x7D if c == 0x7B else 0x5D):
                stack.pop()
                key = keys.pop()
                i += 1
            elif c == 0x7B:
                key, i = _key(data, i, n, value)
                continue
            else:
                continue
        # After a value: a comma, or the close of its container (then of the outer ones).
        while True:
            i = _ws(data, i, n)
            if not stack:
                if i != n:
                    raise JSONError("unexpected data after the value", i)
                return root
            top = stack[-1]
            is_obj = key is not None
            c = data[i] if i < n else -1
            if c == 0x2C:  # ,
                i = _ws(data, i + 1, n)
                if is_obj:
                    key, i = _key(data, i, n, top)
                break
            if c == (0x7D if is_obj else 0x5D):
                stack.pop()
                key = keys.pop()
                i += 1
                continue
            raise JSONError("expected ',' or '%s'" % ("}" if is_obj else "]"), i)
