"""`goclock deploy --romfs` on the emulated Pico: the package's .mpy files in the plain
image's ROMFS partition (tools/rp2/romfs.py, the deploy's own image), main.py and the pin
map on the file system. MicroPython mounts the partition at /rom and runs the package
from there; its bytecode stays in flash, so the heap keeps what the .mpy layout (the same
files in /lib) loads into it. Both boot here, from the same files, on the same image. The viper modules' machine code runs in flash too
from the ROMFS (tools/rp2/patches/0013, goclock/romfs.py's layout), from the heap in /lib."""

import pytest
from rp2_helpers import boot, figure, layout

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
    _, s2, p2, _ = booted(plain_image, tmp_path_factory.mktemp("mpy"), False)
    assert p2["app_file"] == "/lib/goclockfw/app/session.mpy"
    in_lib = s2.request("probe", code_at="goclockfw.jsontext_viper")["code_at"]
    assert "scan_flat" in in_rom and in_rom.keys() == in_lib.keys()
    assert all(FLASH <= at < RAM and at % 4 == 0 for at in in_rom.values()), in_rom
    assert all(at >= RAM for at in in_lib.values()), in_lib
    gained = p["mem_free"] - p2["mem_free"]
    figure("heap free after boot, .mpy files in ROMFS", "%d bytes" % p["mem_free"])
    figure("  the same files in /lib (the .mpy layout)", "%d bytes" % p2["mem_free"])
    figure("  the ROMFS image", "%d bytes" % len(data))
    # Most of the bytecode stays in flash: the heap keeps well over a third of the image
    # (what is still made in RAM: raw code and constant tables, qstr entries, viper code).
    assert gained > len(data) // 3, (gained, len(data))
