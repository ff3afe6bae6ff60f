"""The pieces of tools/rp2 that need no emulated chip: UF2, layout, storage image, build key."""

import os

import pytest
from rp2_helpers import REPO, emu, layout
from rp2040py.device.load_flash import decode_block

from tools.rp2 import build, uf2


def test_uf2_blocks_carry_the_binary_at_flash_addresses():
    data = bytes(range(256)) * 3 + b"\x01\x02"  # 770 bytes: 4 blocks, the last padded
    out = uf2.bin_to_uf2(data)
    assert len(out) == 4 * 512
    blocks = [decode_block(out[i : i + 512]) for i in range(0, len(out), 512)]
    assert [b.flash_address for b in blocks] == [0x10000000 + 256 * i for i in range(4)]
    assert b"".join(b.payload for b in blocks)[: len(data)] == data
    assert out[28:32] == (0xE48BFF56).to_bytes(4, "little")  # the RP2040 family id


def test_firmware_files_are_what_deploy_copies_to_a_pico():
    dests = [d for _s, d in layout.firmware_files()]
    assert "/main.py" in dests and "/lib/goclockfw/app/session.mpy" in dests
    assert "/lib/goclockfw/board/rp2board.mpy" in dests
    assert not [d for d in dests if "/desktop/" in d or "/scenario/" in d or "esp32board" in d]
    # .mpy files, and the package's hash (which a Pico compares with its ROMFS partition's)
    lib = [d for d in dests if d.startswith("/lib/")]
    assert [d for d in lib if not d.endswith(".mpy")] == ["/lib/goclockfw/build.sha256"]
    assert [d for _s, d in layout.frozen_firmware_files()] == ["/main.py"]


def test_lay_out_copies_the_deploy_and_adds_board_and_voice(tmp_path):
    written = layout.lay_out(layout.firmware_files(), str(tmp_path / "fs"), voice="zh")
    assert "/board.json" in written and "/lib/goclockfw/app/session.mpy" in written
    with open(tmp_path / "fs" / "lib" / "goclockfw" / "app" / "session.mpy", "rb") as f:
        assert f.read(2) == b"M\x06"  # a .mpy, version 6
    with open(tmp_path / "fs" / "board.json") as f, open(REPO / "boards" / "pico.json") as g:
        assert f.read() == g.read()
    # The voice as `goclock voice push` leaves it: its clips in one file, then the manifest.
    assert [w for w in written if w.startswith("/sounds/")] == [
        "/sounds/zh/clips.bin",
        "/sounds/zh/manifest.json",
    ]
    clips = (tmp_path / "fs" / "sounds" / "zh" / "clips.bin").read_bytes()
    with open(REPO / "sounds" / "zh" / "count_1.wav", "rb") as f:
        assert f.read() in clips


def test_storage_image_round_trip_with_the_picos_geometry():
    image = emu.make_fs(files={"/main.py": b"print(1)\n", "/sounds/zh/a.wav": b"RIFF"})
    assert len(image) == 1408 * 1024 == emu.FS_BLOCKS * emu.FS_BLOCK
    assert emu.FS_START == 0xA0000
    assert emu.read_fs(image) == {"/main.py": b"print(1)\n", "/sounds/zh/a.wav": b"RIFF"}


def test_the_build_key_follows_the_frozen_files(tmp_path):
    # The manifest is evaluated by MicroPython's manifestfile.py from the prepared tree,
    # which exists once an image was built (make test-rp2 builds them first).
    tree = os.path.join(build.cache_dir(), "src-" + build.tree_key())
    if not os.path.exists(os.path.join(tree, ".done")):
        pytest.skip("no prepared source tree in the cache: run python -m tools.rp2.build")
    mod = tmp_path / "m.py"
    mod.write_text("x = 1\n")
    manifest = tmp_path / "manifest.py"
    manifest.write_text('module("m.py")\n')
    k1 = build.image_key("t", tree, str(manifest))
    assert k1 == build.image_key("t", tree, str(manifest))
    mod.write_text("x = 2\n")
    assert build.image_key("t", tree, str(manifest)) != k1
