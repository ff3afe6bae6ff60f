"""The .mpy layout that lets a ROMFS partition run a module's machine code in place.

A plain rp2 image with tools/rp2/patches/0013 runs a .mpy's viper code straight from the
ROMFS partition when the code starts on a word (Thumb's literal loads count on one);
anywhere else the code is copied into the heap, some 14 KB for goclock's three viper
modules. mpy-cross places a function's code wherever the bytes before it end, so the
length in front of each native function's code (an unsigned integer, 7 bits a byte, high
byte first) is written with 0-3 leading 0x80 bytes, as many as put the code on a word:
MicroPython reads each as a zero digit. Nothing else changes.

Used by the chip (romfs.py, which moves a /lib package into the partition) and by the PC
(host goclock/romfs.py, for `goclock deploy --romfs`): one copy of the format.
"""

WORD = 4

# .mpy version 6 (MicroPython 1.23-1.25): py/persistentcode.h, py/runtime0.h.
MPY_VERSION = 6
KIND_BYTECODE, KIND_NATIVE_PY, KIND_VIPER, KIND_ASM = 0, 1, 2, 3
OBJ_STR, OBJ_BYTES, OBJ_TUPLE = 5, 6, 10
OBJ_WITHOUT_DATA = 4  # the function table, None, False, True, Ellipsis: a type byte alone
SCOPE_VIPERRELOC, SCOPE_VIPERRODATA, SCOPE_VIPERBSS = 0x10, 0x20, 0x40


class NotAligned(ValueError):
    """A .mpy this module cannot lay out (it is then left as it is: its code is copied)."""


def encode_uint(value, extra=0):
    """MicroPython's unsigned integer encoding (7 bits a byte, high first), with `extra`
    leading zero digits (0x80), which its reader skips."""
    digits = [value & 0x7F]
    value >>= 7
    while value:
        digits.append(0x80 | (value & 0x7F))
        value >>= 7
    digits.extend([0x80] * extra)
    digits.reverse()
    return bytes(digits)


class _Reader:
    def __init__(self, data):
        self.data = data  # a memoryview: what is taken is not copied
        self.at = 0

    def uint(self):
        value = 0
        while True:
            if self.at >= len(self.data):
                raise NotAligned("the .mpy ends inside a number")
            byte = self.data[self.at]
            self.at += 1
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                return value

    def take(self, n):
        if self.at + n > len(self.data):
            raise NotAligned("the .mpy ends %d B early" % (self.at + n - len(self.data)))
        chunk = self.data[self.at : self.at + n]
        self.at += n
        return chunk

    def since(self, start):
        return self.data[start : self.at]


class _Parts:
    """The laid-out file as the pieces it is made of (the file's own bytes as views of
    it): the chip never holds a second copy of a .mpy."""

    def __init__(self):
        self.parts = []
        self.length = 0

    def add(self, part):
        self.parts.append(part)
        self.length += len(part)


def align_mpy(data, placed=None, align=True):
    """A .mpy's bytes -> the same module with each native function's code on a word
    (counted from the file's start). A .mpy without native code comes back unchanged.
    `placed`, a list, gets (kind, offset) of every function's code in the result (with
    `align` False: where it is, for a comparison)."""
    data = bytes(data)
    return b"".join(bytes(part) for part in aligned_parts(data, placed, align))


def aligned_parts(data, placed=None, align=True):
    """align_mpy's result as a list of pieces (bytes, and views of `data`)."""
    reader = _Reader(memoryview(data))
    header = reader.take(4)
    if header[0] != 0x4D or header[1] != MPY_VERSION:  # b"M", the version
        raise NotAligned("not a version %d .mpy" % MPY_VERSION)
    if header[2] >> 2 == 0:  # no native architecture: bytecode only
        return [data]
    out = _Parts()
    out.add(header)
    out.add(encode_uint(reader.uint()))  # qstrs
    n_qstr = _last_uint(out)
    out.add(encode_uint(reader.uint()))  # objects
    n_obj = _last_uint(out)
    start = reader.at
    for _ in range(n_qstr):
        length = reader.uint()
        if not length & 1:  # not a static qstr: its text and a NUL follow
            reader.take((length >> 1) + 1)
    for _ in range(n_obj):
        _skip_obj(reader)
    out.add(reader.since(start))
    _copy_raw_code(reader, out, placed, align)
    if reader.at != len(data):
        raise NotAligned("%d B after the module's code" % (len(data) - reader.at))
    return out.parts


def _last_uint(out):
    return _Reader(out.parts[-1]).uint()


def _skip_obj(reader):
    kind = reader.take(1)[0]
    if kind <= OBJ_WITHOUT_DATA:
        return
    length = reader.uint()
    if kind == OBJ_TUPLE:
        for _ in range(length):
            _skip_obj(reader)
        return
    reader.take(length + (1 if kind in (OBJ_STR, OBJ_BYTES) else 0))  # str, bytes: a NUL


def _copy_raw_code(reader, out, placed, align):
    kind_len = reader.uint()
    kind = kind_len & 3
    code = reader.take(kind_len >> 3)
    extra = 0
    if kind != KIND_BYTECODE and align:
        plain = len(encode_uint(kind_len))
        extra = -(out.length + plain) % WORD
    out.add(encode_uint(kind_len, extra))
    if placed is not None:
        placed.append((kind, out.length))
    out.add(code)
    start = reader.at
    flags = 0
    if kind == KIND_NATIVE_PY:
        reader.uint()  # the prelude's offset
    elif kind in (KIND_VIPER, KIND_ASM):
        flags = reader.uint()
        if kind == KIND_ASM:
            reader.uint()  # its positional arguments
            reader.uint()  # its type signature
    if kind == KIND_VIPER:
        if flags & SCOPE_VIPERRELOC:
            raise NotAligned("viper code with relocations (a native module's)")
        rodata = reader.uint() if flags & SCOPE_VIPERRODATA else 0
        if flags & SCOPE_VIPERBSS:
            reader.uint()
        reader.take(rodata)
    out.add(reader.since(start))
    if kind_len & 4:  # children
        out.add(encode_uint(reader.uint()))
        for _ in range(_last_uint(out)):
            _copy_raw_code(reader, out, placed, align)


def laid_out(path, data):
    """A file's bytes as the image holds them, as a list of pieces: a .mpy aligned when
    it can be."""
    if path.endswith(".mpy"):
        try:
            return aligned_parts(data)
        except NotAligned:
            pass  # loaded as before: its machine code is copied into the heap
    return [data]
