"""The viper halves of goclockfw/jsontext.py: JSON text read and written at machine speed.

In a module of its own for the reason bytesops_viper.py gives: a MicroPython built without
native code (the WebAssembly port of the pages) refuses a whole module holding a viper
function, and jsontext.py then keeps its plain versions, which give the same results.
"""

import micropython

from goclockfw.jsontext import PRESS_LINE


# The decorator must be spelled out: MicroPython's compiler recognises it by name. The
# arguments the loops run on come first, typed and reused: the armv6m emitter keeps only a
# function's first three locals in registers (bytesops_viper.py says more).
@micropython.viper
def put_int(buf: ptr8, at: int, v: int) -> int:  # noqa: F821 (viper types)
    if v < 0:
        buf[at] = 45  # "-"
        at += 1
        v = 0 - v
    k = 1
    w = v
    while w >= 10:  # how many digits
        w = w // 10
        k += 1
    end = at + k
    at = end - 1
    while True:  # the digits, from the last (// and %: the RP2040's divider does them)
        buf[at] = 48 + v % 10
        v = v // 10
        if v == 0:
            return end
        at -= 1


@micropython.viper
def put_hex32(buf: ptr8, at: int, src: ptr8) -> int:  # noqa: F821
    # 8 lowercase hex digits of the 4 bytes src[0:4] read as a little-endian value.
    k = 3
    while k >= 0:
        c = src[k]
        h = c >> 4
        buf[at] = h + 48 if h < 10 else h + 87
        h = c & 15
        buf[at + 1] = h + 48 if h < 10 else h + 87
        at += 2
        k -= 1
    return at


@micropython.viper
def render(buf: ptr8, at: int, tpl: ptr8, tn: int, ints, strs) -> int:  # noqa: F821
    # tpl[0:tn] copied to buf at `at`, each marker byte replaced: 1 the next item of
    # `ints` (a list of small ints: read as objects, so a negative one stays negative on
    # a 64-bit port too) in decimal, 2 the next one as true/false, 3 the next item of
    # `strs` (bytes) as it is. JSON text never holds those bytes raw.
    tn = int(uint(tpl)) + tn  # the template's end: the loop moves `tpl` on  # noqa: F821
    k = 0
    s = 0
    while int(uint(tpl)) < tn:  # noqa: F821
        c = tpl[0]
        tpl = ptr8(uint(tpl) + 1)  # noqa: F821
        if c > 3:
            buf[at] = c
            at += 1
        elif c == 1:
            n = int(ints[k])
            k += 1
            if n < 0:
                buf[at] = 45
                at += 1
                n = 0 - n
            d = 1
            w = n
            while w >= 10:
                w = w // 10
                d += 1
            at += d
            j = at - 1
            while True:
                buf[j] = 48 + n % 10
                n = n // 10
                if n == 0:
                    break
                j -= 1
        elif c == 2:
            if ints[k]:
                buf[at] = 116  # true
                buf[at + 1] = 114
                buf[at + 2] = 117
                buf[at + 3] = 101
                at += 4
            else:
                buf[at] = 102  # false
                buf[at + 1] = 97
                buf[at + 2] = 108
                buf[at + 3] = 115
                buf[at + 4] = 101
                at += 5
            k += 1
        else:
            o = strs[s]
            s += 1
            p = ptr8(o)  # noqa: F821
            m = int(len(o))
            j = 0
            while j < m:
                buf[at + j] = p[j]
                j += 1
            at += m
    return at


# scan_flat in pieces: the Cortex-M0+'s branches reach only so far, and MicroPython 1.25's
# compiler refuses a viper function whose jumps go further ("native method too big").


@micropython.viper
def _ws(data: ptr8, i: int, n: int) -> int:  # noqa: F821
    while i < n and (data[i] == 32 or data[i] == 9 or data[i] == 10 or data[i] == 13):
        i += 1
    return i


@micropython.viper
def _string(data: ptr8, i: int, n: int, out, at: int, names) -> int:  # noqa: F821
    # The plain ASCII string whose opening quote is at i (no escape, no control character,
    # no UTF-8): its start, end and index in `names` (-1: not one of them) into
    # out[at:at + 3]; the index after its closing quote, or -1.
    o = ptr32(out)  # noqa: F821
    i += 1
    start = i
    while i < n and data[i] != 34:
        c = data[i]
        if c < 32 or c > 127 or c == 92:
            return -1
        i += 1
    if i >= n:
        return -1
    o[at] = start
    o[at + 1] = i
    # Which known name: `names` is each name's length, then its bytes (jsonstring.know).
    b = ptr8(names)  # noqa: F821
    nb = int(len(names))
    m = i - start
    p = 0
    idx = 0
    found = -1
    while p < nb:
        k = b[p]
        if k == m:
            j = 0
            while j < m and b[p + 1 + j] == data[start + j]:
                j += 1
            if j == m:
                found = idx
                break
        p += 1 + k
        idx += 1
    o[at + 2] = found
    return i + 1


@micropython.viper
def _number(data: ptr8, i: int, n: int, out, at: int) -> int:  # noqa: F821
    # An integer of at most 9 digits at i into out[at:at + 2] (kind, value); the index
    # after it, or -1 (a fraction, an exponent, a leading zero, a longer number:
    # strictjson's).
    o = ptr32(out)  # noqa: F821
    neg = 0
    if data[i] == 45:
        neg = 1
        i += 1
    if i >= n or data[i] < 48 or data[i] > 57:
        return -1
    v = 0
    k = 0
    if data[i] == 48:
        i += 1
    else:
        while i < n and data[i] >= 48 and data[i] <= 57:
            v = v * 10 + data[i] - 48
            i += 1
            k += 1
            if k > 9:
                return -1
    if i < n and (
        data[i] == 46 or data[i] == 101 or data[i] == 69 or (data[i] >= 48 and data[i] <= 57)
    ):
        return -1
    o[at] = 2
    o[at + 1] = 0 - v if neg else v
    return i


@micropython.viper
def _literal(data: ptr8, i: int, n: int, out, at: int) -> int:  # noqa: F821
    # true, false or null at i into out[at] (its kind); the index after it, or -1.
    o = ptr32(out)  # noqa: F821
    c = data[i]
    if c == 116 and i + 4 <= n and data[i + 1] == 114 and data[i + 2] == 117 and data[i + 3] == 101:
        o[at] = 3
        return i + 4
    if c == 102 and i + 5 <= n and data[i + 1] == 97 and data[i + 2] == 108:
        if data[i + 3] == 115 and data[i + 4] == 101:
            o[at] = 4
            return i + 5
    if c == 110 and i + 4 <= n and data[i + 1] == 117 and data[i + 2] == 108 and data[i + 3] == 108:
        o[at] = 5
        return i + 4
    return -1


@micropython.viper
def scan_flat(data, n: int, out, names) -> int:
    # A flat JSON object, strictly: {"key": value, ...} whose keys and string values are
    # printable ASCII without escapes, whose numbers are integers of at most 9 digits, and
    # whose other values are true/false/null. Each pair is 7 ints of `out` (jsontext.py
    # says which). Returns the number of pairs, or -1 for any other text (then the full
    # reader, strictjson.py, decides; it has the error messages).
    d = ptr8(data)  # noqa: F821
    o = ptr32(out)  # noqa: F821
    cap = int(len(out)) // 7
    i = int(_ws(data, 0, n))
    if i >= n or d[i] != 123:
        return -1
    i = int(_ws(data, i + 1, n))
    pairs = 0
    if i < n and d[i] == 125:
        i += 1
    else:
        while True:
            if pairs >= cap or i >= n or d[i] != 34:
                return -1
            base = pairs * 7
            i = int(_string(data, i, n, out, base, names))
            if i < 0:
                return -1
            while i < n and d[i] == 32:  # (spaces inline; a tab or newline is rare)
                i += 1
            if i < n and d[i] != 58:
                i = int(_ws(data, i, n))
            if i >= n or d[i] != 58:
                return -1
            i += 1
            while i < n and d[i] == 32:
                i += 1
            if i < n and (d[i] == 9 or d[i] == 10 or d[i] == 13):
                i = int(_ws(data, i, n))
            if i >= n:
                return -1
            c = d[i]
            if c == 34:
                o[base + 3] = 1
                i = int(_string(data, i, n, out, base + 4, names))
            elif c == 45 or (c >= 48 and c <= 57):
                i = int(_number(data, i, n, out, base + 3))
            else:
                i = int(_literal(data, i, n, out, base + 3))
            if i < 0:
                return -1
            pairs += 1
            while i < n and d[i] == 32:
                i += 1
            if i < n and d[i] != 44 and d[i] != 125:
                i = int(_ws(data, i, n))
            if i < n and d[i] == 44:
                i += 1
                while i < n and d[i] == 32:
                    i += 1
                if i < n and d[i] != 34:
                    i = int(_ws(data, i, n))
                continue
            if i < n and d[i] == 125:
                i += 1
                break
            return -1
    if i < n and int(_ws(data, i, n)) != n:
        return -1
    return pairs


@micropython.viper
def press_line(data: ptr8, n: int, out: ptr32) -> int:  # noqa: F821
    # The usual press request, PRESS_LINE with spaces or none around its punctuation (as
    # json.dumps writes it, compact or not), then only whitespace: the side (0 black, 1
    # white), its id into out[0]; -1 for any other text (scan_flat and the full reader
    # then read it). One viper call: scan_flat's are a dozen, ~20 us each on an RP2040.
    t = ptr8(PRESS_LINE)  # noqa: F821
    tn = int(len(PRESS_LINE))  # noqa: F821
    i = 0
    j = 0
    side = -1
    while i < n and data[i] == 32:
        i += 1
    while j < tn:
        c = t[j]
        j += 1
        if c == 1:  # the id: an integer of at most 9 digits, as `_number` reads one
            # (its lines written out: a call to it would cost what this call saves)
            neg = 0
            if i < n and data[i] == 45:
                neg = 1
                i += 1
            if i >= n or data[i] < 48 or data[i] > 57:
                return -1
            v = 0
            if data[i] == 48:
                i += 1
            else:
                k = 0
                while i < n and data[i] >= 48 and data[i] <= 57:
                    v = v * 10 + data[i] - 48
                    i += 1
                    k += 1
                    if k > 9:
                        return -1
            if i < n and (data[i] == 46 or data[i] == 101 or data[i] == 69):
                return -1
            if i < n and data[i] >= 48 and data[i] <= 57:
                return -1
            out[0] = 0 - v if neg else v
        elif c == 2:  # the side's name
            if i + 5 > n:
                return -1
            if data[i] == 98 and data[i + 1] == 108 and data[i + 2] == 97:
                if data[i + 3] != 99 or data[i + 4] != 107:  # "black"
                    return -1
                side = 0
            elif data[i] == 119 and data[i + 1] == 104 and data[i + 2] == 105:
                if data[i + 3] != 116 or data[i + 4] != 101:  # "white"
                    return -1
                side = 1
            else:
                return -1
            i += 5
        else:
            if c == 58 or c == 44 or c == 125:  # spaces before ":" "," "}"
                while i < n and data[i] == 32:
                    i += 1
            if i >= n or data[i] != c:
                return -1
            i += 1
            if c == 58 or c == 44 or c == 123:  # and after ":" "," "{"
                while i < n and data[i] == 32:
                    i += 1
    while i < n and (data[i] == 32 or data[i] == 9 or data[i] == 10 or data[i] == 13):
        i += 1
    if i != n:
        return -1
    return side
