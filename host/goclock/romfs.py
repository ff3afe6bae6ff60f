"""The ROMFS image of a deploy, laid out so that its .mpy machine code runs in place.

A plain rp2 image with tools/rp2/patches/0013 runs a .mpy's viper code straight from the
ROMFS partition when the code starts on a word (Thumb's literal loads count on one);
anywhere else the code is copied into the heap, some 14 KB for goclock's three viper
modules. mpremote's ROMFS writer places a file's bytes wherever the records before them
end, and mpy-cross places a function's code wherever the bytes before it end, so two
things are done here, neither changing what MicroPython reads:

- every file's bytes start on a word: they are laid at the image's top level, each after
  a padding record, and the directory tree points at them (the format's DATA_POINTER
  records, made by `VfsRomWriter.mkdata` and `mkfile(name, (size, offset))`); the
  image's own header is written 8 bytes long, so the top level starts on a word too;
- inside a .mpy, the length in front of each native function's code (an unsigned
  integer, 7 bits a byte, high byte first) is written with 0-3 leading 0x80 bytes, as
  many as put the code on a word: MicroPython reads each as a zero digit.

The partition itself starts on a flash sector (tools/rp2/build.py, ROMFS_BASE).
"""

WORD = 4

# .mpy version 6 (MicroPython 1.23-1.25): py/persistentcode.h, py/runtime0.h.
MPY_VERSION = 6
KIND_BYTECODE, KIND_NATIVE_PY, KIND_VIPER, KIND_ASM = range(4)
OBJ_STR, OBJ_BYTES, OBJ_TUPLE = 5, 6, 10
OBJ_WITHOUT_DATA = 4  # the function table, None, False, True, Ellipsis: a type byte alone
SCOPE_VIPERRELOC, SCOPE_VIPERRODATA, SCOPE_VIPERBSS = 0x10, 0x20, 0x40


class NotAligned(ValueError):
    """A .mpy this module cannot lay out (it is then left as it is: its code is copied)."""


def encode_uint(value, extra=0):
    """MicroPython's unsigned integer encoding, with `extra` leading zero digits."""
    digits = [value & 0x7F]
    value >>= 7
    while value:
        digits.append(0x80 | (value & 0x7F))
        value >>= 7
    digits += [0x80] * extra
    return bytes(reversed(digits))


class _Reader:
    def __init__(self, data):
        self.data = bytes(data)
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


def align_mpy(data, placed=None, align=True):
    """A .mpy's bytes -> the same module with each native function's code on a word
    (counted from the file's start). A .mpy without native code comes back unchanged.
    `placed`, a list, gets (kind, offset) of every function's code in the result (with
    `align` False: where it is, for a comparison)."""
    reader = _Reader(data)
    header = reader.take(4)
    if header[:2] != b"M" + bytes([MPY_VERSION]):
        raise NotAligned("not a version %d .mpy" % MPY_VERSION)
    out = bytearray(header)
    if header[2] >> 2 == 0:  # no native architecture: bytecode only
        return bytes(data)
    n_qstr = reader.uint()
    n_obj = reader.uint()
    out += encode_uint(n_qstr) + encode_uint(n_obj)
    for _ in range(n_qstr):
        start = reader.at
        length = reader.uint()
        if not length & 1:  # not a static qstr: its text and a NUL follow
            reader.take((length >> 1) + 1)
        out += data[start : reader.at]
    for _ in range(n_obj):
        start = reader.at
        _skip_obj(reader)
        out += data[start : reader.at]
    _copy_raw_code(reader, out, placed, align)
    if reader.at != len(reader.data):
        raise NotAligned("%d B after the module's code" % (len(reader.data) - reader.at))
    return bytes(out)


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
        extra = -(len(out) + plain) % WORD
    out += encode_uint(kind_len, extra)
    if placed is not None:
        placed.append((kind, len(out)))
    out += code
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
    out += reader.data[start : reader.at]
    if kind_len & 4:  # children
        n_children = reader.uint()
        out += encode_uint(n_children)
        for _ in range(n_children):
            _copy_raw_code(reader, out, placed, align)


def image(files):
    """[("a/b/c.mpy", bytes)] -> the ROMFS image (bytes): each file's bytes on a word,
    and each .mpy's machine code on a word."""
    writer = _writer_class()()
    placed = {}
    for path, data in sorted(files):
        if path.endswith(".mpy"):
            try:
                data = align_mpy(data)
            except NotAligned:
                pass  # loaded as before: its machine code is copied into the heap
        placed[path] = (len(data), writer.mkdata_on_word(data))
    tree = {}
    for path in placed:
        parts = path.split("/")
        node = tree
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = path
    _write_tree(writer, tree, placed)
    return writer.finalise()


def _writer_class():
    from mpremote.romfs import VfsRomWriter

    class WordRomWriter(VfsRomWriter):
        """mpremote's writer, with data records placed on a word and a header of 8 B."""

        HEADER_BYTES = 8  # the kind's 3 B and the length in 5

        def padding(self, size):
            """A padding record of exactly `size` bytes (0, or 2 and more)."""
            if size == 0:
                return b""
            return self._pack(self.ROMFS_RECORD_KIND_PADDING, bytes(size - 2))

        def mkdata_on_word(self, data):
            top = self._dir_stack[0][1]
            head = 1 + len(encode_uint(len(data)))  # the data record's kind and length
            gap = -(self.HEADER_BYTES + len(top) + head) % WORD
            self._extend(self.padding(_gap_of_at_least_2(gap)))
            return self.mkdata(data)

        def finalise(self):
            _, body = self._dir_stack.pop()
            body += self.padding(_gap_of_at_least_2(-(self.HEADER_BYTES + len(body)) % WORD))
            length = encode_uint(len(body))
            if len(length) > 5:
                raise ValueError("a ROMFS image of %d B" % len(body))
            return self.ROMFS_HEADER + encode_uint(len(body), 5 - len(length)) + bytes(body)

    return WordRomWriter


def _gap_of_at_least_2(gap):
    """A gap of 0-3 bytes made one a padding record can fill (it takes 2 B at least)."""
    return gap + WORD if gap == 1 else gap


def _write_tree(writer, node, placed):
    for name in sorted(node):
        child = node[name]
        if isinstance(child, dict):
            writer.opendir(name)
            _write_tree(writer, child, placed)
            writer.closedir()
        else:
            writer.mkfile(name, placed[child])
