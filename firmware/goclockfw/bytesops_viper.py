"""The viper halves of goclockfw/bytesops.py: machine-word loops over the buffers' bytes.

In a module of their own because a MicroPython built without native code (the WebAssembly
port that runs the firmware in the browser) refuses to compile any module holding a viper
function: bytesops imports this one and, on a SyntaxError, keeps its plain versions.
"""

from array import array

import micropython


# The decorator must be spelled out: MicroPython's compiler recognises it by name.
#
# Why the arguments are typed ptr8 and reused inside: the armv6m emitter keeps only a
# function's first three locals (its first arguments) in registers, the others on the
# stack, loaded and stored at every use. So the loops below run on their first three
# arguments, moved to where they start, and a copy costs ~25 cycles a byte, not ~70.
@micropython.viper
def copy(dst: ptr8, at: int, src: ptr8, start: int, n: int):  # noqa: F821 (viper types)
    dst = ptr8(uint(dst) + at)  # noqa: F821
    src = ptr8(uint(src) + start)  # noqa: F821
    at = 0
    while at < n:
        dst[at] = src[at]
        at += 1


@micropython.viper
def fill(dst: ptr8, at: int, n: int, value: int):  # noqa: F821
    n = at + n
    while at < n:
        dst[at] = value
        at += 1


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
def crc32(data: ptr8, n: int, prev: ptr8, out: ptr8):  # noqa: F821
    # CRC-32 (IEEE 802.3, reflected: binascii.crc32's), four bits at a time from _NIBBLES.
    # The constants are built from halves: a literal above 2**30 would be a long integer
    # object, not a machine word.
    t = ptr32(_NIBBLES)  # noqa: F821
    ones = (uint(0xFFFF) << 16) | uint(0xFFFF)  # noqa: F821
    c = uint(prev[0]) | (uint(prev[1]) << 8) | (uint(prev[2]) << 16) | (uint(prev[3]) << 24)  # noqa: F821
    c = c ^ ones
    n = int(uint(data)) + n  # (the end: the loop moves `data` on)  # noqa: F821
    while int(uint(data)) < n:  # noqa: F821
        c = c ^ uint(data[0])  # noqa: F821
        c = (c >> 4) ^ uint(t[int(c & 15)])  # noqa: F821
        c = (c >> 4) ^ uint(t[int(c & 15)])  # noqa: F821
        data = ptr8(uint(data) + 1)  # noqa: F821
    c = c ^ ones
    out[0] = c & 0xFF
    out[1] = (c >> 8) & 0xFF
    out[2] = (c >> 16) & 0xFF
    out[3] = (c >> 24) & 0xFF


@micropython.viper
def seal(buf: ptr8, n: int, prev, out) -> int:  # noqa: F821
    # A record line: CRC-32 of buf[0:n] (the event, closing brace included) chained to
    # `prev` into `out`, then the closing brace replaced by `,"c":"` + its 8 lowercase hex
    # digits (most significant first) + `"}` and a newline; the new length.
    crc32(buf, n, prev, out)
    o = ptr8(out)  # noqa: F821
    n -= 1
    buf[n] = 44  # ,
    buf[n + 1] = 34  # "
    buf[n + 2] = 99  # c
    buf[n + 3] = 34
    buf[n + 4] = 58  # :
    buf[n + 5] = 34
    n += 6
    # The digits as jsontext_viper.put_hex32 writes them, written here: a call from viper
    # code to another function is a full Python call (~20 us on the RP2040), in every record.
    k = 3
    while k >= 0:
        c = o[k]
        h = c >> 4
        buf[n] = h + 48 if h < 10 else h + 87
        h = c & 15
        buf[n + 1] = h + 48 if h < 10 else h + 87
        n += 2
        k -= 1
    buf[n] = 34
    buf[n + 1] = 125  # }
    buf[n + 2] = 10
    return n + 3


@micropython.viper
def plain(data: ptr8, i: int, j: int) -> int:  # noqa: F821
    while i < j:
        c = data[i]
        if c < 0x20 or c >= 0x80 or c == 0x5C:
            return 0
        i += 1
    return 1


@micropython.viper
def filled(data: ptr8, i: int, j: int, value: int) -> int:  # noqa: F821
    while i < j:
        if data[i] != value:
            return 0
        i += 1
    return 1


@micropython.viper
def hash_of(data: ptr8, i: int, j: int) -> int:  # noqa: F821
    h = 0
    while i < j:
        h = (h * 31 + data[i]) & 0xFFFFFF
        i += 1
    return h


@micropython.viper
def same(data: ptr8, i: int, word: ptr8, n: int) -> int:  # noqa: F821
    k = 0
    while k < n:
        if data[i + k] != word[k]:
            return 0
        k += 1
    return 1


@micropython.viper
def utf8_size(text: ptr8, chars: int) -> int:  # noqa: F821
    # Bytes of the first `chars` characters of `text` (a str: UTF-8, NUL-terminated in
    # MicroPython, so a look one byte past its end reads the NUL).
    i = 0
    while chars > 0:
        i += 1
        while (text[i] & 0xC0) == 0x80:
            i += 1
        chars -= 1
    return i
