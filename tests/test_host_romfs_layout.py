"""goclock/romfs.py: a deploy's ROMFS image with each file's bytes and each native
function's machine code on a word (what tools/rp2/patches/0013 needs to run viper code in
place). Checked here: every native function's code of the firmware's viper modules lands
on a word, nothing else moves, and MicroPython itself (the unix port, whose VfsRom mounts
an image from a buffer) reads the image and runs the padded viper code it holds. That the
code then runs from flash on the chip is tests/rp2/test_romfs.py's."""

import os
import subprocess

import pytest

from conftest import run_micropython
from goclock import firmware, romfs
from goclockfw.mpylayout import _Reader

FIRMWARE = os.path.join(os.path.dirname(__file__), "..", "firmware")
VIPER_MODULES = (
    "goclockfw/jsontext_viper.py",
    "goclockfw/bytesops_viper.py",
    "goclockfw/audio/adpcm_viper.py",
)


def compiled(tmp_path, source, arch):
    out = tmp_path / (os.path.basename(source)[:-3] + "." + arch + ".mpy")
    subprocess.run(
        [firmware.mpy_cross_binary(), "-march=" + arch, "-o", str(out), source],
        check=True,
        capture_output=True,
    )
    return out.read_bytes()


@pytest.mark.parametrize("module", VIPER_MODULES)
def test_every_native_function_of_the_firmware_lands_on_a_word(tmp_path, module):
    plain = compiled(tmp_path, os.path.join(FIRMWARE, module), "armv6m")
    placed = []
    aligned = romfs.align_mpy(plain, placed)
    kinds = [kind for kind, _ in placed]
    assert romfs.KIND_VIPER in kinds  # the module's viper functions were found
    natives = [at for kind, at in placed if kind != romfs.KIND_BYTECODE]
    assert all(at % romfs.WORD == 0 for at in natives), natives
    # Without the padding several would not be: the layout is what moved them.
    before = []
    romfs.align_mpy(plain, before, align=False)
    assert any(at % romfs.WORD for kind, at in before if kind != romfs.KIND_BYTECODE)
    # Nothing but the zero digits changed: the same module, read again, pads nothing more.
    again = []
    assert romfs.align_mpy(aligned, again) == aligned and again == placed
    assert len(aligned) - len(plain) <= 3 * len(natives)


def test_a_bytecode_module_is_left_as_it_is(tmp_path):
    plain = compiled(tmp_path, os.path.join(FIRMWARE, "goclockfw/core/sidetime.py"), "armv6m")
    assert romfs.align_mpy(plain) == plain


def test_a_number_written_longer_reads_the_same():
    for value in (0, 5, 127, 128, 300, 16384, 1 << 20):
        for extra in range(4):
            data = romfs.encode_uint(value, extra)
            assert len(data) == len(romfs.encode_uint(value)) + extra
            reader = _Reader(data)
            assert reader.uint() == value and reader.at == len(data)


def test_a_truncated_or_foreign_file_is_refused_not_misread(tmp_path):
    plain = compiled(tmp_path, os.path.join(FIRMWARE, VIPER_MODULES[1]), "armv6m")
    with pytest.raises(romfs.NotAligned):
        romfs.align_mpy(plain[:-5])
    with pytest.raises(romfs.NotAligned):
        romfs.align_mpy(b"MPY?" + plain[4:])
    with pytest.raises(romfs.NotAligned):
        romfs.align_mpy(plain + b"\0")


def test_each_file_of_an_image_starts_on_a_word(tmp_path):
    files = [
        ("lib/goclockfw/%s.mpy" % name, compiled(tmp_path, os.path.join(FIRMWARE, src), "armv6m"))
        for name, src in (
            ("jsontext_viper", VIPER_MODULES[0]),
            ("bytesops_viper", VIPER_MODULES[1]),
            ("clock", "goclockfw/core/sidetime.py"),
        )
    ]
    files.append(("lib/goclockfw/odd.txt", b"x" * 7))
    image = romfs.image(files)
    assert image.startswith(b"\xd2\xcd\x31") and len(image) % romfs.WORD == 0
    for path, data in files:
        laid = romfs.align_mpy(data) if path.endswith(".mpy") else data
        at = image.find(laid)
        assert at > 0 and at % romfs.WORD == 0, (path, at)


MOUNT_AND_RUN = """
import sys, vfs
data = open(sys.argv[1], "rb").read()
vfs.mount(vfs.VfsRom(data), "/rom")
sys.path.insert(0, "/rom/lib")
print(sorted(vfs.VfsRom(data).ilistdir("/lib")))
import vipermod
buf = bytearray(4)
print(vipermod.fill(buf, 4, 7), list(buf), vipermod.twice(21), vipermod.plain(2))
print(open("/rom/lib/notes.txt").read())
"""

VIPER_SOURCE = """
import micropython

@micropython.viper
def fill(buf: ptr8, n: int, v: int) -> int:
    for i in range(n):
        buf[i] = v + i
    return n

@micropython.viper
def twice(x: int) -> int:
    return x * 2

def plain(x):
    return [x] * 3
"""


def test_micropython_mounts_the_image_and_runs_its_padded_viper_code(micropython, tmp_path):
    source = tmp_path / "vipermod.py"
    source.write_text(VIPER_SOURCE)
    mpy = compiled(tmp_path, str(source), "x64")  # the unix port's own machine code
    placed = []
    laid = romfs.align_mpy(mpy, placed)
    assert laid != mpy  # the image below holds viper code the layout padded
    assert all(at % romfs.WORD == 0 for kind, at in placed if kind != romfs.KIND_BYTECODE)
    image = tmp_path / "rom.img"
    image.write_bytes(romfs.image([("lib/vipermod.mpy", mpy), ("lib/notes.txt", b"kept\n")]))
    script = tmp_path / "mount.py"
    script.write_text(MOUNT_AND_RUN)
    result = run_micropython(micropython, str(script), str(image))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.decode().splitlines()
    assert "'notes.txt'" in lines[0] and "'vipermod.mpy'" in lines[0]
    assert lines[1] == "4 [7, 8, 9, 10] 42 [2, 2, 2]"
    assert lines[2] == "kept"
