"""goclockfw/romfs.py: the clock's own move of a /lib package into its ROMFS partition.

The image it streams is byte for byte the one the PC makes with mpremote's writer
(goclock/romfs.py) for the same package, and it reaches the flash with its first block
last: a write that stops anywhere before the end leaves that block erased, so no
half-written image is ever mounted. That a Pico does the move at power-up and then runs
the package from flash is tests/rp2/test_romfs.py's."""

import pytest

from conftest import run_micropython
from goclock import firmware, romfs
from goclockfw import romfs as fw_romfs
from goclockfw.inplace import BUILD

BLOCK = fw_romfs.BLOCK


class Flash(bytearray):
    """A partition as rp2.Flash offers it: erase a block (ioctl 6), program a whole block
    (writeblocks, bits only cleared, as NOR flash does), its bytes read through its buffer.
    `stop_after` writes, it fails like a power cut; `flaky` drops a bit in what it writes."""

    def __init__(self, blocks, stop_after=None, flaky=False):
        super().__init__(b"\xff" * blocks * BLOCK)
        self.blocks = blocks
        self.written = []
        self.stop_after = stop_after
        self.flaky = flaky

    def ioctl(self, op, arg):
        if op == 4:
            return self.blocks
        assert op == 6
        self[arg * BLOCK : (arg + 1) * BLOCK] = b"\xff" * BLOCK
        return 0

    def writeblocks(self, block, buf, offset):
        # programs whole pages, from a page's start (rp2.Flash with an offset: no erase)
        assert offset % fw_romfs.PAGE == 0 and len(buf) % fw_romfs.PAGE == 0
        assert 0 < len(buf) and offset + len(buf) <= BLOCK
        if self.stop_after is not None and len(self.written) == self.stop_after:
            raise OSError("power cut")
        at = block * BLOCK + offset
        for i, byte in enumerate(bytes(buf)):
            self[at + i] &= byte
        if self.flaky:
            self[at + 7] ^= 1
        self.written.append((block, offset))


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    """The firmware's /lib package as `goclock deploy --board pico` builds it."""
    plan = firmware.build("pico", str(tmp_path_factory.mktemp("build")))
    files, _rest = firmware.romfs_split(plan)
    out = []
    for local, remote in files:
        with open(local, "rb") as f:
            out.append((remote.lstrip("/"), f.read()))
    return sorted(out)


def streamed(package):
    contents = dict(package)

    def read(path):
        return fw_romfs.laid_out(path, contents[path])

    sizes = [(path, sum(map(len, read(path)))) for path, _ in package]
    return fw_romfs.image_chunks(sizes, read)


def test_the_clock_streams_the_image_the_pc_makes_with_mpremotes_writer(package):
    chunks = streamed(package)
    length = next(chunks)
    made = b"".join(chunks)
    assert made == romfs.image(package)
    assert length == len(made) and length % fw_romfs.WORD == 0
    assert any(path.endswith("/" + BUILD) for path, _ in package)


def test_the_image_reaches_the_flash_with_its_first_block_last(package):
    whole = romfs.image(package)
    flash = Flash(64)
    assert fw_romfs.write(flash, streamed(package)) == len(whole)
    assert bytes(flash[: len(whole)]) == whole
    blocks = (len(whole) + BLOCK - 1) // BLOCK
    # every block after the first, then the first's pages after its first, then the header
    assert flash.written == [(b, 0) for b in range(1, blocks)] + [(0, fw_romfs.PAGE), (0, 0)]


@pytest.mark.parametrize("stop_after", [0, 1, 5, 20, -2, -1])
def test_a_power_cut_in_the_middle_leaves_no_image_to_mount(package, stop_after):
    """Cut before a write: the first ones, or (counted from the end) the first block's
    pages after its first, or the header's page alone."""
    writes = (len(romfs.image(package)) + BLOCK - 1) // BLOCK + 1
    flash = Flash(64, stop_after=stop_after % writes)
    with pytest.raises(OSError):
        fw_romfs.write(flash, streamed(package))
    assert bytes(flash[: fw_romfs.PAGE]) == b"\xff" * fw_romfs.PAGE  # nothing is mounted
    # the next power-up writes it whole
    flash.stop_after = None
    flash.written.clear()
    fw_romfs.write(flash, streamed(package))
    assert bytes(flash).startswith(romfs.image(package))


def test_a_retired_image_keeps_every_byte_but_its_magic(package):
    """Run from the partition's older package, the clock cannot erase it: it programs
    the header's first byte to 0 (no erase), so nothing mounts it at the next boot while
    the code it runs meanwhile reads the same."""
    flash = Flash(64)
    fw_romfs.write(flash, streamed(package))
    before = bytes(flash)
    fw_romfs._retire(flash)
    after = bytes(flash)
    assert after[0] == 0 and before[0] == fw_romfs.ROMFS_HEADER[0]
    assert after[1:] == before[1:]


def test_a_block_that_does_not_read_back_is_refused_and_nothing_is_mounted(package):
    flash = Flash(64, flaky=True)
    with pytest.raises(ValueError, match="did not read back"):
        fw_romfs.write(flash, streamed(package))
    assert bytes(flash[:BLOCK]) == b"\xff" * BLOCK


def test_an_image_larger_than_the_partition_erases_nothing(package):
    flash = Flash(2)
    flash[:4] = b"keep"
    with pytest.raises(ValueError, match="larger than the ROMFS partition"):
        fw_romfs.write(flash, streamed(package))
    assert bytes(flash[:4]) == b"keep" and not flash.written


def test_a_file_that_changes_between_the_passes_is_refused(package):
    contents = dict(package)
    sizes = [(path, sum(map(len, fw_romfs.laid_out(path, data)))) for path, data in package]
    grown = fw_romfs.image_chunks(sizes, lambda path: [contents[path], b"!"])
    with pytest.raises(ValueError, match="changed while the image was made"):
        fw_romfs.write(Flash(64), grown)


MICROPYTHON_WRITE = """
import sys
from goclockfw import romfs

class Flash(bytearray):
    def ioctl(self, op, arg):
        if op == 4:
            return len(self) // romfs.BLOCK
        self[arg * romfs.BLOCK : (arg + 1) * romfs.BLOCK] = b"\\xff" * romfs.BLOCK
    def writeblocks(self, block, buf, offset):
        at = block * romfs.BLOCK + offset
        self[at : at + len(buf)] = buf

root = sys.argv[1]  # absolute: the paths below are the board's, less their leading "/"
paths = []
for line in open(root + "/paths.txt"):
    paths.append(root[1:] + "/" + line.strip())

# the move's own reads: a viper .mpy laid out whole, the rest streamed through a buffer
sizes = [(path, romfs._laid_size(path)) for path in paths]
flash = Flash(b"\\xff" * 64 * romfs.BLOCK)
length = romfs.write(flash, romfs.image_chunks(sizes, romfs._laid_file))
with open(root + "/made.img", "wb") as f:
    f.write(flash[:length])
"""


def test_micropython_itself_streams_the_same_image(package, tmp_path, micropython):
    """The module runs on MicroPython (the unix port): the same bytes as the PC's."""
    for path, data in package:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(data)
    (tmp_path / "paths.txt").write_text("".join(path + "\n" for path, _ in package))
    script = tmp_path / "write.py"
    script.write_text(MICROPYTHON_WRITE)
    result = run_micropython(micropython, str(script), str(tmp_path))
    assert result.returncode == 0, result.stderr.decode()
    at = str(tmp_path)[1:] + "/"
    assert (tmp_path / "made.img").read_bytes() == romfs.image(
        [(at + path, data) for path, data in package]
    )
