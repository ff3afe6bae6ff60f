"""JSON text in preallocated buffers: the hot paths' integers, checksums, templates, requests.

A press on an RP2040 has about 3 ms of CPU for everything it does; in bytecode a decimal
integer written digit by digit costs ~0.2 ms, a request read byte by byte ~2 ms. So the
byte work is done here, on buffers allocated once, by viper code (jsontext_viper.py) on
the chips and by the plain versions below on CPython and in the browser's MicroPython:
the same results, tested on both.

    put_int(buf, at, v) -> end          v in decimal at buf[at:]; the index after it
    put_hex32(buf, at, src) -> end      src[0:4] (a little-endian 32-bit value) as 8
                                        lowercase hex digits, most significant first
    render(buf, at, tpl, tn, ints, strs) -> end
                                        tpl[0:tn] copied, each marker byte replaced: INT
                                        by the next int of `ints` (a list), BOOL by the
                                        next one as true/false, TEXT by the next bytes of
                                        `strs` (a list), taken in order
    scan_flat(data, n, out, names) -> pairs
                                        the flat object data[0:n] read into `out` (array
                                        "i", PAIR ints a pair: KEY_START, KEY_END, KEY_NAME,
                                        KIND, then a string's VALUE start and END and its
                                        NAME, or an integer's VALUE); -1 when it is anything
                                        else (see below). A NAME is the string's index in
                                        `names` (each name's length, then its bytes:
                                        protocol/jsonstring.py's `know`), or -1

`scan_flat` reads only the requests every command source sends in the ordinary course, a
flat object of plain ASCII strings, short integers and true/false/null, and it reads them
as strictly as strictjson.py does; -1 leaves every other text (escapes, UTF-8, nesting,
fractions, long numbers, errors of any kind) to strictjson, whose messages say what is
wrong. The caller makes the dict (protocol/commands.py).

The buffers must have room: the callers size them for the longest line they write.
"""

try:
    import micropython
except ImportError:  # CPython
    micropython = None

INT = 1  # template markers (bytes JSON text never holds raw: control characters)
BOOL = 2
TEXT = 3

STRING = 1  # kinds of scan_flat's values
INTEGER = 2
TRUE = 3
FALSE = 4
NULL = 5
PAIR = 7  # ints per pair in scan_flat's output, at these offsets:
KEY_START = 0
KEY_END = 1
KEY_NAME = 2
KIND = 3
VALUE = 4  # a string's start, an integer's value
END = 5  # a string's end
NAME = 6  # a string's name index

_WS = b" \t\n\r"
_TRUE = b"true"
_FALSE = b"false"


def _put_int_py(buf, at, v):
    text = b"%d" % v
    n = len(text)
    buf[at : at + n] = text
    return at + n


def _put_hex32_py(buf, at, src):
    text = b"%08x" % (src[0] | src[1] << 8 | src[2] << 16 | src[3] << 24)
    buf[at : at + 8] = text
    return at + 8


def _render_py(buf, at, tpl, tn, ints, strs):
    k = 0
    s = 0
    for i in range(tn):
        c = tpl[i]
        if c > TEXT:
            buf[at] = c
            at += 1
        elif c == INT:
            at = _put_int_py(buf, at, ints[k])
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


def _string_py(d, i, n, out, at, names):
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


def _scan_flat_py(d, n, out, names):
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
            i = _string_py(d, i, n, out, base, names)
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
                i = _string_py(d, i, n, out, base + VALUE, names)
                if i < 0:
                    return -1
            elif c == 45 or 48 <= c <= 57:
                start = i
                if c == 45:
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


put_int = _put_int_py
put_hex32 = _put_hex32_py
render = _render_py
scan_flat = _scan_flat_py

if micropython is not None:
    try:
        from goclockfw import jsontext_viper as _v

        put_int = _v.put_int
        put_hex32 = _v.put_hex32
        render = _v.render
        scan_flat = _v.scan_flat
    except SyntaxError:  # a port built without native code (webassembly): plain Python
        pass
