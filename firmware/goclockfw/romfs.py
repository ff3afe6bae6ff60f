"""The ROMFS image of the package, streamed into the board's partition (the move).

A .mpy file in /lib is loaded into the heap when it is imported: its bytecode, names and
constants, some 121 KB for the modules a running clock holds on an RP2040. From the ROMFS
partition (MicroPython 1.25 mounts it at /rom, ahead of /lib on sys.path) the same file
runs from flash. `goclock deploy --romfs` writes the partition from the PC. A package
copied to /lib (a plain `goclock deploy`) is moved there by the clock itself at its next
power-up (inplace.py decides, `move` here does it).

The image is laid out as the PC lays it out (host goclock/romfs.py makes the same bytes
with mpremote's writer; tests/test_firmware_romfs.py compares them): each file's bytes on a
word, and each .mpy's machine code on a word, so that tools/rp2/patches/0013 runs it in
place. It is written with the page holding its header last, each block read back and
compared, and the board is soft-reset to mount it. A power cut before that page leaves
the header erased: MicroPython mounts nothing, the package is imported from /lib, and
the next power-up starts again.

The .mpy layout is mpylayout.py's, which the PC's writer uses too: one copy of the format.
"""

from goclockfw.inplace import LIB, read_file
from goclockfw.mpylayout import WORD, encode_uint, laid_out

BLOCK = 4096  # the RP2040's flash sector: erased and written a block at a time
PAGE = 256  # the flash's page: the least it programs

# The ROMFS format (MicroPython's extmod/vfs_rom.c; mpremote's romfs.py writes it).
ROMFS_HEADER = b"\xd2\xcd\x31"
HEADER_BYTES = 8  # the header's 3 B and the body's length in 5: the body starts on a word
KIND_PADDING, KIND_DATA, KIND_POINTER, KIND_DIRECTORY, KIND_FILE = 1, 2, 3, 4, 5


# --- the image, as a stream ------------------------------------------------------------


def _length(parts):
    return sum(len(part) for part in parts)


def _record(kind, payload):
    return encode_uint(kind) + encode_uint(len(payload)) + payload


def _padding(size):
    """A padding record of exactly `size` bytes (0, or 2 and more)."""
    return _record(KIND_PADDING, bytes(size - 2)) if size else b""


def fill_gap(gap):
    """A gap of 0-3 bytes made one a padding record can fill (it takes 2 B at least)."""
    return gap + WORD if gap == 1 else gap


def _data_gap(top, size):
    """Before a data record of `size` bytes at `top` in the body: the padding that puts
    its bytes on a word, and the record's kind and length (its head)."""
    head = 1 + len(encode_uint(size))
    return fill_gap(-(HEADER_BYTES + top + head) % WORD), head


def _tree(sizes):
    """[(path, size)], sorted -> the directory records, each file pointing at its data,
    and the body's length before them."""
    top = 0
    root = {}
    for path, size in sizes:
        gap, head = _data_gap(top, size)
        top += gap + head
        node = root
        parts = path.split("/")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = (size, top)
        top += size
    return _records(root), top


def _records(node):
    out = bytearray()
    for name in sorted(node):
        child = node[name]
        named = encode_uint(len(name)) + name.encode()
        if isinstance(child, dict):
            out += _record(KIND_DIRECTORY, named + _records(child))
        else:
            pointer = encode_uint(child[0]) + encode_uint(child[1])
            out += _record(KIND_FILE, named + _record(KIND_POINTER, pointer))
    return bytes(out)


def image_chunks(sizes, read):
    """The ROMFS image's bytes, in order, as chunks: `sizes` is [(path, laid-out size)]
    sorted by path, `read(path)` a file's laid-out bytes as an iterable of pieces
    (laid_out's list, or a file streamed through a buffer the next piece may reuse: each
    is taken before the next is asked for). The files are read one at a time, when their
    turn comes: the image is never whole in RAM. Yields the image's length first (an
    int). ValueError when a file's bytes are not its size (it changed meanwhile)."""
    tree, top = _tree(sizes)
    body = top + len(tree)
    body += fill_gap(-(HEADER_BYTES + body) % WORD)
    length = encode_uint(body)
    if len(length) > 5:
        raise ValueError("a ROMFS image of %d B" % body)
    yield HEADER_BYTES + body
    yield ROMFS_HEADER + encode_uint(body, 5 - len(length))
    at = 0
    for path, size in sizes:
        gap, head = _data_gap(at, size)
        yield _padding(gap) + encode_uint(KIND_DATA) + encode_uint(size)
        got = 0
        for part in read(path):
            got += len(part)
            yield part
        if got != size:  # (before the header's page: nothing is mounted)
            raise ValueError("%s changed while the image was made" % path)
        at += gap + head + size
    yield tree
    yield _padding(body - at - len(tree))


# --- the clock's own install -----------------------------------------------------------


def package_paths(top=LIB):
    """Every file under `top`, as the image names it ("lib/goclockfw/..."), sorted."""
    import os

    out = []
    for entry in os.ilistdir(top):
        path = top + "/" + entry[0]
        if entry[1] & 0x4000:  # a directory
            out.extend(package_paths(path))
        else:
            out.append(path[1:])
    out.sort()
    return out


def write(segment, chunks):
    """Write the image from `chunks` (image_chunks) to `segment`, a block device of the
    partition (rp2.Flash: ioctl 6 erases a block, writeblocks(block, buf, offset)
    programs pages from `offset` on, and its buffer reads it). The first page, which
    holds the image's header, is written last, once the rest reads back as written. Returns the image's length; ValueError when it does not fit or
    does not read back."""
    length = next(chunks)
    blocks = (length + BLOCK - 1) // BLOCK
    if blocks > segment.ioctl(4, 0):  # the partition's block count
        raise ValueError("the image (%d B) is larger than the ROMFS partition" % length)
    for block in range(blocks):
        segment.ioctl(6, block)
    buf = bytearray(BLOCK)
    first = None
    block = fill = 0
    for chunk in chunks:
        view = memoryview(chunk)
        while len(view):
            n = min(len(view), BLOCK - fill)
            buf[fill : fill + n] = view[:n]
            fill += n
            view = view[n:]
            if fill == BLOCK:
                first = _put(segment, block, buf, first)
                block += 1
                fill = 0
    if fill:
        for i in range(fill, BLOCK):
            buf[i] = 0
        first = _put(segment, block, buf, first)
    # The first block's pages after its first, then the first page, with the header: a
    # flash programs a block page by page, first page first, and a cut between them would
    # leave a header in front of missing bytes.
    view = memoryview(first)
    segment.writeblocks(0, view[PAGE:], PAGE)
    segment.writeblocks(0, view[:PAGE], 0)
    if not _reads_back(segment, 0, first):
        segment.ioctl(6, 0)
        raise ValueError("the ROMFS partition's first block did not read back")
    return length


def _put(segment, block, buf, first):
    if block == 0:
        return bytes(buf)  # held back: an image without it is never mounted
    segment.writeblocks(block, buf, 0)
    if not _reads_back(segment, block, buf):
        raise ValueError("block %d of the ROMFS partition did not read back" % block)
    return first


def _reads_back(segment, block, data):
    """Whether the flash holds `data` at `block` (compared by hash: no 4 KB copy)."""
    from hashlib import sha256

    view = memoryview(segment)[block * BLOCK : (block + 1) * BLOCK]
    return sha256(view).digest() == sha256(data).digest()


def _native(path):
    """Whether a file is a .mpy with machine code (laid out anew; the rest is copied as it
    is): only its header is read."""
    if not path.endswith(".mpy"):
        return False
    with open("/" + path, "rb") as f:
        header = f.read(4)
    return len(header) == 4 and header[2] >> 2 != 0


def _laid_file(path):
    """A file's bytes as the image holds them: a .mpy with machine code read whole and
    laid out, anything else streamed through one small buffer (a whole file needs a free
    run of the heap that long, which a heap full of imported modules may not have)."""
    if _native(path):
        return laid_out(path, read_file("/" + path))
    return _streamed("/" + path, bytearray(512))


def _streamed(path, buf):
    with open(path, "rb") as f:
        while True:
            n = f.readinto(buf)
            if not n:
                return
            yield memoryview(buf)[:n]


def _laid_size(path):
    """A file's size in the image: its own, but for a .mpy with machine code, which is
    laid out to know it."""
    import os

    if _native(path):
        return _length(_laid_file(path))
    return os.stat("/" + path)[6]


def _retire(segment):
    """Make the partition's image unmountable without erasing anything: its header's first
    byte programmed to 0 (flash programming only clears bits, so every other byte, code
    this package runs from included, reads as before). The next boot imports from /lib."""
    page = bytearray(memoryview(segment)[:PAGE])
    page[0] = 0
    segment.writeblocks(0, page, 0)


def move(segment):
    """Write /lib's package into the partition (`segment`) as its image; the caller
    soft-resets after. ValueError or OSError when it cannot (the package then runs from
    /lib: the partition's header is erased, so nothing half written is mounted)."""
    import gc

    import vfs

    gc.collect()  # what the boot left: a native file is read whole
    sizes = [(path, _laid_size(path)) for path in package_paths()]

    try:
        vfs.umount("/rom")  # nothing of it is in use: the package runs from /lib
    except OSError:
        pass  # nothing mounted
    write(segment, image_chunks(sizes, _laid_file))
