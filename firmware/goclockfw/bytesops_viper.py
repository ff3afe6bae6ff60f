"""The viper halves of goclockfw/bytesops.py: machine-word loops over the buffers' bytes.

In a module of their own because a MicroPython built without native code (the WebAssembly
port that runs the firmware in the browser) refuses to compile any module holding a viper
function: bytesops imports this one and, on a SyntaxError, keeps its plain versions.
"""

from array import array

import micropython


# The decorator must be spelled out: MicroPython's compiler recognises it by name.
@micropython.viper
def copy(dst, at: int, src, start: int, n: int):
    d = ptr8(dst)  # noqa: F821 (a viper builtin)
    s = ptr8(src)  # noqa: F821
    i = 0
    while i < n:
        d[at + i] = s[start + i]
        i += 1


@micropython.viper
def fill(dst, at: int, n: int, value: int):
    d = ptr8(dst)  # noqa: F821
    i = at
    end = at + n
    while i < end:
        d[i] = value
        i += 1


# CRC-32's table for four bits at a time (16 words: two lookups a byte, ~4 times faster
# than a bit at a time, and 64 bytes instead of the 1 KB of a byte table). Made at import
# in an array, which is word-aligned (a Cortex-M0+ cannot load a word that is not).
_NIBBLES = array("I", [0] * 16)


def _nibbles():
    poly = (0xEDB8 << 16) | 0x8320
    for i in range(16):
        c = i
        for _ in range(4):
            c = (c >> 1) ^ poly if c & 1 else c >> 1
        _NIBBLES[i] = c


_nibbles()


@micropython.viper
def crc32(data, n: int, prev, out):
    # CRC-32 (IEEE 802.3, reflected: binascii.crc32's), four bits at a time from _NIBBLES.
    # The constants are built from halves: a literal above 2**30 would be a long integer
    # object, not a machine word.
    d = ptr8(data)  # noqa: F821 (a viper builtin)
    p = ptr8(prev)  # noqa: F821
    o = ptr8(out)  # noqa: F821
    t = ptr32(_NIBBLES)  # noqa: F821
    ones = (uint(0xFFFF) << 16) | uint(0xFFFF)  # noqa: F821
    c = uint(p[0]) | (uint(p[1]) << 8) | (uint(p[2]) << 16) | (uint(p[3]) << 24)  # noqa: F821
    c = c ^ ones
    i = 0
    while i < n:
        c = c ^ uint(d[i])  # noqa: F821
        c = (c >> 4) ^ uint(t[int(c & 15)])  # noqa: F821
        c = (c >> 4) ^ uint(t[int(c & 15)])  # noqa: F821
        i += 1
    c = c ^ ones
    o[0] = c & 0xFF
    o[1] = (c >> 8) & 0xFF
    o[2] = (c >> 16) & 0xFF
    o[3] = (c >> 24) & 0xFF


@micropython.viper
def seal(buf, n: int, prev, out) -> int:
    # A record line: CRC-32 of buf[0:n] (the event, closing brace included) chained to
    # `prev` into `out`, then the closing brace replaced by `,"c":"` + its 8 lowercase hex
    # digits (most significant first) + `"}` and a newline; the new length.
    crc32(buf, n, prev, out)
    b = ptr8(buf)  # noqa: F821
    o = ptr8(out)  # noqa: F821
    at = n - 1
    b[at] = 44  # ,
    b[at + 1] = 34  # "
    b[at + 2] = 99  # c
    b[at + 3] = 34
    b[at + 4] = 58  # :
    b[at + 5] = 34
    at += 6
    k = 3
    while k >= 0:
        c = o[k]
        h = c >> 4
        b[at] = h + 48 if h < 10 else h + 87
        h = c & 15
        b[at + 1] = h + 48 if h < 10 else h + 87
        at += 2
        k -= 1
    b[at] = 34
    b[at + 1] = 125  # }
    b[at + 2] = 10
    return at + 3


@micropython.viper
def plain(data, i: int, j: int) -> int:
    d = ptr8(data)  # noqa: F821
    while i < j:
        c = d[i]
        if c < 0x20 or c >= 0x80 or c == 0x5C:
            return 0
        i += 1
    return 1


@micropython.viper
def hash_of(data, i: int, j: int) -> int:
    d = ptr8(data)  # noqa: F821
    h = 0
    while i < j:
        h = (h * 31 + d[i]) & 0xFFFFFF
        i += 1
    return h


@micropython.viper
def same(data, i: int, word, n: int) -> int:
    d = ptr8(data)  # noqa: F821
    w = ptr8(word)  # noqa: F821
    k = 0
    while k < n:
        if d[i + k] != w[k]:
            return 0
        k += 1
    return 1
