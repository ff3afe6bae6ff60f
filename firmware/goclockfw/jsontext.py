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
    scan_flat(data, n, out) -> pairs    the flat object data[0:n] read into `out` (array
                                        "i", 5 ints a pair: key start, key end, kind, then
                                        a string's start and end or an integer's value);
                                        -1 when it is anything else (see below)

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
PAIR = 5  # ints per pair in scan_flat's output

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


def _plain_to(d, i, n):
    """The index of the quote closing the plain string from i, or -1 (not plain)."""
    while i < n and d[i] != 34:
        if d[i] < 32 or d[i] > 127 or d[i] == 92:
            return -1
        i += 1
    return i if i < n else -1


def _scan_flat_py(d, n, out):
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
            out[base] = i + 1
            i = _plain_to(d, i + 1, n)
            if i < 0:
                return -1
            out[base + 1] = i
            i = _ws(d, i + 1, n)
            if i >= n or d[i] != 58:
                return -1
            i = _ws(d, i + 1, n)
            if i >= n:
                return -1
            c = d[i]
            if c == 34:
                out[base + 2] = STRING
                out[base + 3] = i + 1
                i = _plain_to(d, i + 1, n)
                if i < 0:
                    return -1
                out[base + 4] = i
                i += 1
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
                out[base + 2] = INTEGER
                out[base + 3] = int(bytes(d[start:i]))
            elif bytes(d[i : i + 4]) == b"true":
                out[base + 2] = TRUE
                i += 4
            elif bytes(d[i : i + 5]) == b"false":
                out[base + 2] = FALSE
                i += 5
            elif bytes(d[i : i + 4]) == b"null":
                out[base + 2] = NULL
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
