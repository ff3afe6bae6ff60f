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

The .mpy layout is the firmware's own (goclockfw/mpylayout.py), which a board uses to make
the same image itself from a package copied to /lib; this writer is mpremote's, so the
two are checked against each other (tests/test_firmware_romfs.py).
"""

from goclockfw.mpylayout import (  # noqa: F401 (the layout, used here and by the tests)
    KIND_BYTECODE,
    KIND_VIPER,
    WORD,
    NotAligned,
    align_mpy,
    encode_uint,
    laid_out,
)
from goclockfw.romfs import HEADER_BYTES, fill_gap


def image(files):
    """[("a/b/c.mpy", bytes)] -> the ROMFS image (bytes): each file's bytes on a word,
    and each .mpy's machine code on a word."""
    writer = _writer_class()()
    placed = {}
    for path, data in sorted(files):
        data = b"".join(bytes(part) for part in laid_out(path, data))
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

        def padding(self, size):
            """A padding record of exactly `size` bytes (0, or 2 and more)."""
            if size == 0:
                return b""
            return self._pack(self.ROMFS_RECORD_KIND_PADDING, bytes(size - 2))

        def mkdata_on_word(self, data):
            top = self._dir_stack[0][1]
            head = 1 + len(encode_uint(len(data)))  # the data record's kind and length
            gap = -(HEADER_BYTES + len(top) + head) % WORD
            self._extend(self.padding(fill_gap(gap)))
            return self.mkdata(data)

        def finalise(self):
            _, body = self._dir_stack.pop()
            body += self.padding(fill_gap(-(HEADER_BYTES + len(body)) % WORD))
            length = encode_uint(len(body))
            if len(length) > 5:
                raise ValueError("a ROMFS image of %d B" % len(body))
            return self.ROMFS_HEADER + encode_uint(len(body), 5 - len(length)) + bytes(body)

    return WordRomWriter


def _write_tree(writer, node, placed):
    for name in sorted(node):
        child = node[name]
        if isinstance(child, dict):
            writer.opendir(name)
            _write_tree(writer, child, placed)
            writer.closedir()
        else:
            writer.mkfile(name, placed[child])
