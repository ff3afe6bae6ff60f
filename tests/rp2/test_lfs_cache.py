"""The littlefs caches of one page (tools/rp2/patches/0011): a flash laid out with stock
MicroPython's caches (1 KB, so a file of up to 512 B, a block's eighth, is kept inline in
its folder's metadata, as tools/rp2/emu.py's littlefs-python settings make it) reads back
whole on the images built here, and files written, grown and shrunk across the new inline
limit (256 B) read back too."""

import random

import pytest
from rp2_helpers import emu

pytestmark = pytest.mark.timeout(600)

SIZES = (1, 100, 255, 256, 257, 300, 511, 512, 513, 1000, 4000, 9000)

MAIN = """
def digest(b):
    h = 0
    for x in b:
        h = (h * 31 + x) & 0xFFFFFF
    return h

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


def digest(b):
    h = 0
    for x in b:
        h = (h * 31 + x) & 0xFFFFFF
    return h


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
