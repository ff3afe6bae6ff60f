"""JSON strings read strictly from bytes: well-formed UTF-8, escapes, no raw control characters.

Part of the strict request reader (strictjson.py, which has the why). `string(data, i, n)`
reads the string whose opening quote is at `i`. UTF-8 is checked against Unicode's table of
well-formed sequences (table 3-7): no overlong forms, no surrogates, nothing above
U+10FFFF, no cut sequences; a `\\u` escape of a lone surrogate is refused too, a pair is
joined. A string with escapes is rebuilt as UTF-8 in a bytearray, then decoded once.
The index after the closing quote goes to END[0], not into a tuple: a request's strings
allocate nothing but themselves, and nothing at all when the text is a known name (`know`).
"""

from array import array

from goclockfw.bytesops import plain
from goclockfw.jsontext import scan_string

END = array("i", [0])  # where the last string read ended (the byte after its quote)
_FOUND = array("i", [0, 0, 0])  # scan_string's start, end and name index (`name_of`)
NAMES = []  # the names known (a str each: ASCII, its bytes its own), in the order of ...
NAMES_TABLE = bytearray()  # ... each one's length and bytes (jsontext.scan_flat's `names`)


def know(names):
    """Strings read later whose text is one of `names` (ASCII) are these very str objects:
    a request's keys, command names and sides allocate nothing (MicroPython 1.25 would
    build a slice and a bytes object for each, even when the str itself is interned).
    Both readers find them in NAMES_TABLE (jsontext.scan_flat, and `name_of` through
    jsontext.scan_string): a dict of them by hash, 47 slots of 8 B, held more."""
    new = []
    for name in names:
        if name not in NAMES and name not in new and len(name) < 256:
            new.append(name)
    # Grown once each, to their size: appended name by name, the list doubled its room
    # (64 slots for 38 names) and the table took 8 bytes' slack at each name.
    NAMES.extend(new)
    table = bytearray(sum(len(n) + 1 for n in new))
    k = 0
    for name in new:
        table[k] = len(name)
        table[k + 1 : k + 1 + len(name)] = name.encode()
        k += 1 + len(name)
    NAMES_TABLE.extend(table)


class JSONError(ValueError):
    """Not strict JSON; `pos` is the byte offset where reading stopped."""

    def __init__(self, msg, pos):
        super().__init__("%s at byte %d" % (msg, pos))
        self.pos = pos


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


def string(data, i, n):
    """The string whose opening quote is at i; END[0] is the index after the closing quote.

    Few locals on purpose: a function whose frame (locals and stack) exceeds 11 words
    gets it from the heap on every call in MicroPython; the rare strings (escapes,
    UTF-8) go to `_string`."""
    i += 1
    # Most strings are plain ASCII up to the next quote: checked by a viper loop (and
    # `find`), not byte by byte in bytecode, which is slow on a microcontroller.
    j = data.find(b'"', i)
    if j > i:
        if plain(data, i, j):
            END[0] = j + 1
            return name_of(data, i, j)
    elif j == i:
        END[0] = j + 1
        return ""
    return _string(data, i, n)


def name_of(data, i, j):
    """The plain ASCII text data[i:j] (its quotes at i - 1 and j) as a str: a known name
    is its own str object (`know`), allocating nothing; any other text is sliced out."""
    found = _FOUND
    scan_string(data, i - 1, j + 1, found, 0, NAMES_TABLE)
    k = found[2]
    return NAMES[k] if k >= 0 else str(data[i:j], "ascii")


def _string(data, i, n):
    # A string with escapes, UTF-8 or control characters, from after its opening quote.
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
    END[0] = i + 1
    if buf is None:
        return str(data[start:i], "utf-8")
    buf.extend(data[seg:i])
    return str(buf, "utf-8")
