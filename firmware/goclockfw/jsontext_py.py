"""jsontext.py's functions in plain Python: for CPython (the tests, the tools) and for a
MicroPython built without native code (the browser's webassembly port). The chips run
jsontext_viper.py; this module is then never imported, and its bytecode takes no heap.
Both are tested against each other (tests/test_jsontext.py)."""

from goclockfw.jsontext import (
    BOOL,
    FALSE,
    INT,
    INTEGER,
    KIND,
    NULL,
    PAIR,
    PRESS_LINE,
    STRING,
    TEXT,
    TRUE,
    VALUE,
)

_WS = b" \t\n\r"
_TRUE = b"true"
_FALSE = b"false"


def put_int(buf, at, v):
    text = b"%d" % v
    n = len(text)
    buf[at : at + n] = text
    return at + n


def put_hex32(buf, at, src):
    text = b"%08x" % (src[0] | src[1] << 8 | src[2] << 16 | src[3] << 24)
    buf[at : at + 8] = text
    return at + 8


def render(buf, at, tpl, tn, ints, strs):
    k = 0
    s = 0
    for i in range(tn):
        c = tpl[i]
        if c > TEXT:
            buf[at] = c
            at += 1
        elif c == INT:
            at = put_int(buf, at, ints[k])
            k += 1
        elif c == BOOL:
            word = _TRUE if ints[k] else _FALSE
            buf[at : at + len(word)] = word
            at += len(word)
            k += 1
        else:
            o = strs[s]
            s += 1
            buf[at : at + len(o)] = o
            at += len(o)
    return at


def _ws(d, i, n):
    while i < n and d[i] in _WS:
        i += 1
    return i


def _string(d, i, n, out, at, names):
    """The plain string from the quote at i: start, end, name index into out[at:]; the
    index after its closing quote, or -1 (not plain)."""
    start = i + 1
    i = start
    while i < n and d[i] != 34:
        if d[i] < 32 or d[i] > 127 or d[i] == 92:
            return -1
        i += 1
    if i >= n:
        return -1
    out[at] = start
    out[at + 1] = i
    text = bytes(d[start:i])
    found = -1
    p = idx = 0
    while p < len(names):
        k = names[p]
        if bytes(names[p + 1 : p + 1 + k]) == text:
            found = idx
            break
        p += 1 + k
        idx += 1
    out[at + 2] = found
    return i + 1


def _int_end(d, i, n):
    """The end of the integer of at most 9 digits at i (a minus sign allowed, no leading
    zero, no fraction or exponent after it), or -1."""
    if i < n and d[i] == 45:
        i += 1
    if i >= n or not 48 <= d[i] <= 57:
        return -1
    if d[i] == 48:
        i += 1
    else:
        j = i
        while i < n and 48 <= d[i] <= 57:
            i += 1
        if i - j > 9:
            return -1
    if i < n and (d[i] in b".eE" or 48 <= d[i] <= 57):
        return -1
    return i


def scan_flat(d, n, out, names):
    cap = len(out) // PAIR
    i = _ws(d, 0, n)
    if i >= n or d[i] != 123:
        return -1
    i = _ws(d, i + 1, n)
    pairs = 0
    if i < n and d[i] == 125:
        i += 1
    else:
        while True:
            if pairs >= cap or i >= n or d[i] != 34:
                return -1
            base = pairs * PAIR
            i = _string(d, i, n, out, base, names)
            if i < 0:
                return -1
            i = _ws(d, i, n)
            if i >= n or d[i] != 58:
                return -1
            i = _ws(d, i + 1, n)
            if i >= n:
                return -1
            c = d[i]
            if c == 34:
                out[base + KIND] = STRING
                i = _string(d, i, n, out, base + VALUE, names)
                if i < 0:
                    return -1
            elif c == 45 or 48 <= c <= 57:
                start = i
                i = _int_end(d, i, n)
                if i < 0:
                    return -1
                out[base + KIND] = INTEGER
                out[base + VALUE] = int(bytes(d[start:i]))
            elif bytes(d[i : i + 4]) == b"true":
                out[base + KIND] = TRUE
                i += 4
            elif bytes(d[i : i + 5]) == b"false":
                out[base + KIND] = FALSE
                i += 5
            elif bytes(d[i : i + 4]) == b"null":
                out[base + KIND] = NULL
                i += 4
            else:
                return -1
            pairs += 1
            i = _ws(d, i, n)
            if i < n and d[i] == 44:
                i = _ws(d, i + 1, n)
                continue
            if i < n and d[i] == 125:
                i += 1
                break
            return -1
    return pairs if _ws(d, i, n) == n else -1


_SIDES = (b"black", b"white")


def press_line(d, n, out):
    i = 0
    while i < n and d[i] == 32:
        i += 1
    side = -1
    for c in PRESS_LINE:
        if c == 1:
            start = i
            i = _int_end(d, i, n)
            if i < 0:
                return -1
            out[0] = int(bytes(d[start:i]))
        elif c == 2:
            name = bytes(d[i : i + 5])
            if name not in _SIDES:
                return -1
            side = _SIDES.index(name)
            i += 5
        else:
            if c in b":,}":
                while i < n and d[i] == 32:
                    i += 1
            if i >= n or d[i] != c:
                return -1
            i += 1
            if c in b":,{":
                while i < n and d[i] == 32:
                    i += 1
    while i < n and d[i] in _WS:
        i += 1
    return side if i == n else -1
