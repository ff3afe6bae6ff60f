"""The littlefs caches of one page (tools/rp2/patches/0011): a flash laid out with stock
MicroPython's caches (1 KB, so a file of up to 512 B, a block's eighth, is kept inline in
its folder's metadata, as tools/rp2/emu.py's littlefs-python settings make it) reads back
whole on the images built here, and files written, grown and shrunk across the new inline
limit (256 B) read back too; and an inline file longer than the new cache at its
metadata block's end, which stock littlefs refuses to read that way (the patch mends it)."""

import random

import pytest
from rp2_helpers import emu

pytestmark = pytest.mark.timeout(600)

# The checksum both sides compute: the chip runs this text, and so does the test.
DIGEST = """
def digest(b):
    h = 0
    for x in b:
        h = (h * 31 + x) & 0xFFFFFF
    return h
"""
_defined = {}
exec(DIGEST, _defined)
digest = _defined["digest"]  # the same function here

SIZES = (1, 100, 255, 256, 257, 300, 511, 512, 513, 1000, 4000, 9000)

MAIN = (
    DIGEST
    + """
def show(tag, path):
    with open(path, "rb") as f:
        b = f.read()
    print("%s %s %d %d" % (tag, path, len(b), digest(b)))

for n in SIZES:
    show("OLD", "/d/f%d" % n)
with open("/d/f300", "ab") as f:  # an inline file grown past the new limit
    f.write(bytes(range(200)))
show("GROWN", "/d/f300")
with open("/d/f511", "wb") as f:  # rewritten shorter: inline again
    f.write(b"x" * 200)
show("SHRUNK", "/d/f511")
with open("/d/new", "wb") as f:
    for i in range(5):
        f.write(bytes((i * 7 + j) & 0xFF for j in range(150)))
show("NEW", "/d/new")
print("DONE")
"""
)


def test_files_laid_out_with_stock_caches_read_back_whole(plain_image):
    rng = random.Random(11)
    files = {"/d/f%d" % n: bytes(rng.randrange(256) for _ in range(n)) for n in SIZES}
    files["/main.py"] = ("SIZES = %r\n" % (SIZES,) + MAIN).encode()
    pico = emu.Pico(plain_image, emu.make_fs(files=files))
    text = pico.text_until(("DONE", "Traceback"))
    assert "DONE" in text, text[-2000:]
    got = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0] in ("OLD", "GROWN", "SHRUNK", "NEW"):
            got[(parts[0], parts[1])] = (int(parts[2]), int(parts[3]))
    for n in SIZES:
        b = files["/d/f%d" % n]
        assert got[("OLD", "/d/f%d" % n)] == (len(b), digest(b)), n
    grown = files["/d/f300"] + bytes(range(200))
    assert got[("GROWN", "/d/f300")] == (len(grown), digest(grown))
    assert got[("SHRUNK", "/d/f511")] == (200, digest(b"x" * 200))
    new = b"".join(bytes((i * 7 + j) & 0xFF for j in range(150)) for i in range(5))
    assert got[("NEW", "/d/new")] == (len(new), digest(new))


# ----- an inline file longer than the cache, at its metadata block's end -----------------

READ_ALL = (
    DIGEST
    + """
for path in PATHS:
    try:
        with open(path, "rb") as f:
            b = f.read()
        print("READ %s %d %d" % (path, len(b), digest(b)))
    except OSError as e:
        print("FAILED %s %r" % (path, e))
print("DONE")
"""
)


def _stock_littlefs_refuses(image, files):
    """The paths stock littlefs (littlefs-python, with the images' one-page caches) cannot
    read back from `image`: its slice of an inline file's data past the first cache window
    read the attribute's whole size from there, past the metadata block's end."""
    from littlefs import LittleFS
    from littlefs.context import UserContext

    ctx = UserContext(buffsize=emu.FS_BYTES)
    ctx.buffer[:] = image
    fs = LittleFS(context=ctx, mount=True, **dict(emu.LFS_CONFIG, cache_size=256))
    refused = []
    for path in sorted(files):
        try:
            with fs.open(path, "rb") as f:
                if f.read() != files[path]:
                    refused.append(path)
        except Exception:  # littlefs-python raises LittleFSError (LFS_ERR_CORRUPT)
            refused.append(path)
    return refused


def _layout_at_a_block_end():
    """Files of 257-512 B (inline at stock caches, longer than one page), the first of a
    few seeded layouts where one of them lies so near its metadata block's end that stock
    littlefs refuses it: what a board file 14 bytes longer did to the probe's 333-byte
    stackpaint.mpy (the clock never came up)."""
    for count in (8, 10, 12, 14):
        for seed in range(16):
            rng = random.Random(seed)
            files = {
                "/e/f%02d" % i: bytes(rng.randrange(256) for _ in range(rng.randrange(257, 513)))
                for i in range(count)
            }
            main = ("PATHS = %r\n" % (sorted(files),) + READ_ALL).encode()
            image = emu.make_fs(files=dict(files, **{"/main.py": main}))
            if _stock_littlefs_refuses(image, files):
                return files, image
    raise AssertionError("no layout puts an inline file at a block's end: the test checks nothing")


def test_an_inline_file_at_its_block_s_end_reads_back_whole(plain_image):
    files, image = _layout_at_a_block_end()
    pico = emu.Pico(plain_image, image)
    text = pico.text_until(("DONE", "Traceback"))
    assert "DONE" in text, text[-2000:]
    for path, data in files.items():
        assert "READ %s %d %d" % (path, len(data), digest(data)) in text, (path, text[-2000:])
