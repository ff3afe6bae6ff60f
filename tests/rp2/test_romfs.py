"""`goclock deploy --romfs` on the emulated Pico: the package's .mpy files in the plain
image's ROMFS partition (tools/rp2/romfs.py, the deploy's own image), main.py and the pin
map on the file system. MicroPython mounts the partition at /rom and runs the package
from there; its bytecode stays in flash, and the viper modules' machine code runs there
too (tools/rp2/patches/0013, goclock/romfs.py's layout). A plain deploy (the same files
in /lib) is moved there by the Pico itself at its first boot (goclockfw/inplace.py)."""

import pytest
from rp2_helpers import MOVED, boot, client, emu, figure, layout

from tools.rp2 import romfs

pytestmark = pytest.mark.timeout(900)

FLASH, RAM = 0x10000000, 0x20000000  # the RP2040's XIP flash and its SRAM


def booted(image, tmp_path, rom):
    files = layout.firmware_files()
    fs_files, data = romfs.layout(files) if rom else (files, None)
    pico, s = boot(image, fs_files, tmp_path, romfs=data)
    s.wait_ready(timeout=30)
    return pico, s, s.request("probe"), data


def test_the_package_runs_from_the_romfs_and_leaves_its_bytecode_in_flash(
    plain_image, tmp_path_factory
):
    pico, s, p, data = booted(plain_image, tmp_path_factory.mktemp("romfs"), True)
    figure("boot to first reply, .mpy files in ROMFS", "%.3f emulated s" % pico.now_s)
    assert p["app_file"] == "/rom/lib/goclockfw/app/session.mpy"
    assert not s.noise, s.noise  # no traceback, no REPL
    s.request(
        "config.set",
        config={"time_control": {"type": "byoyomi", "main": 60, "periods": 3, "period": 30}},
    )
    s.request("reset")
    assert s.request("press", side="white")["accepted"] is True
    s.run_for(0.5)
    assert s.request("press", side="black")["accepted"] is True
    assert s.request("status")["state"] == "running"
    in_rom = s.request("probe", code_at="goclockfw.jsontext_viper")["code_at"]
    assert "scan_flat" in in_rom
    assert all(FLASH <= at < RAM and at % 4 == 0 for at in in_rom.values()), in_rom
    figure("heap free after boot, .mpy files in ROMFS", "%d bytes" % p["mem_free"])
    figure("  the ROMFS image", "%d bytes" % len(data))


def test_a_plain_deploy_moves_itself_into_the_romfs_at_its_first_boot(
    plain_image, tmp_path_factory
):
    """The same files copied to /lib: the Pico writes the same image into its partition
    (goclockfw/inplace.py, romfs.py), soft-resets, and runs the package from there, in flash."""
    _, data = romfs.layout(layout.firmware_files())
    pico, s, p, _ = booted(plain_image, tmp_path_factory.mktemp("mpy"), False)
    assert s.noise == MOVED, s.noise
    assert p["app_file"] == "/rom/lib/goclockfw/app/session.mpy"
    written = pico.romfs_image()
    assert written[: len(data)] == data  # byte for byte the image `deploy --romfs` writes
    in_rom = s.request("probe", code_at="goclockfw.jsontext_viper")["code_at"]
    assert all(FLASH <= at < RAM and at % 4 == 0 for at in in_rom.values()), in_rom
    figure("heap free after boot, .mpy files in /lib, moved", "%d bytes" % p["mem_free"])
    figure("  first boot, the move included", "%.3f emulated s" % pico.now_s)
    erases = pico.flash.erases - pico.flash.fs_erases  # outside the file system: the move's
    programs = pico.flash.programs - pico.flash.fs_programs
    assert erases == (len(data) + 4095) // 4096 and programs == erases * 16, (erases, programs)
    figure("  the move's flash work", "%d sector erases, %d page programs" % (erases, programs))
    # A reboot from that flash finds the package in place: nothing is written again.
    pico2, s2 = boot(plain_image, None, None, fs=pico.fs_image(), romfs=written)
    s2.wait_ready(timeout=30)
    assert not s2.noise, s2.noise
    assert pico2.romfs_image() == written
    assert s2.request("probe")["app_file"] == "/rom/lib/goclockfw/app/session.mpy"
    # A later plain deploy (a new package in /lib) over it: the partition's package, which
    # runs then, retires the partition and restarts; from /lib the new one is moved in.
    newer = tmp_path_factory.mktemp("newer")
    files = []
    for local, remote in layout.firmware_files():
        if remote.endswith("/build.sha256"):
            local = str(newer / "build.sha256")
            with open(local, "w") as f:
                f.write("f" * 64 + "\n")
        files.append((local, remote))
    pico3, s3 = boot(plain_image, files, newer, romfs=written)
    s3.wait_ready(timeout=60)
    assert s3.noise == MOVED + MOVED, s3.noise
    assert s3.request("probe")["app_file"] == "/rom/lib/goclockfw/app/session.mpy"
    moved = pico3.romfs_image()
    assert moved != written and b"f" * 64 in moved and moved[:3] == written[:3]


def test_a_power_cut_before_the_header_is_written_is_moved_again_at_the_next_boot(
    plain_image, tmp_path_factory
):
    """The flash as a power cut leaves it right before the move's last page program (the
    image's header; everything else written and read back): MicroPython mounts nothing,
    the next boot imports from /lib and moves the package again, whole."""
    files = layout.firmware_files()
    _, data = romfs.layout(files)
    root = tmp_path_factory.mktemp("cut") / "fs"
    layout.lay_out(files + layout.probe_files(), str(root))
    pico = emu.Pico(plain_image, emu.make_fs(str(root)))
    cut = {}

    def before(command, offset):
        if command == 0x02 and offset == romfs.ROMFS_BASE and not cut:
            cut["flash"] = bytes(pico.mcu.flash)

    pico.flash.before = before
    client.Session(pico).wait_ready(timeout=60)
    flash = cut["flash"]
    partition = flash[romfs.ROMFS_BASE : romfs.ROMFS_BASE + romfs.ROMFS_BYTES]
    assert partition[:256] == b"\xff" * 256  # no header
    assert partition[256 : len(data)] == data[256:]  # the rest written
    pico2 = emu.Pico(plain_image, flash[emu.FS_START : emu.FLASH_SIZE], romfs=partition)
    s2 = client.Session(pico2)
    s2.wait_ready(timeout=60)
    assert s2.noise == MOVED, s2.noise
    assert s2.request("probe")["app_file"] == "/rom/lib/goclockfw/app/session.mpy"
    assert pico2.romfs_image()[: len(data)] == data
