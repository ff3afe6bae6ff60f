"""The firmware's .mpy files in the plain image's ROMFS partition, as `goclock deploy
--romfs` lays them out (host/goclock/firmware.py: romfs_split, romfs_image).

MicroPython 1.25 mounts a ROMFS partition at /rom when it boots (py/runtime.c) and puts
/rom and /rom/lib on sys.path, ahead of /lib. A .mpy imported from there is not loaded
into the heap: its bytecode and the text of its names stay in flash and run in place
(py/persistentcode.c reads them with mp_reader_try_read_rom; a name becomes a qstr that
points into flash), and with patches 0013 and 0015 its viper code and its str constants
too. What is still made in RAM: each function's raw code and constant table, and the
qstr pool's entries. The stock RPI_PICO image has no partition (MICROPY_HW_ROMFS_BYTES
0): goclock's plain image has one (build.py, ROMFS_BYTES). The same files copied to /lib
(a plain deploy) are moved into it by the Pico itself at its first boot
(goclockfw/romfs.py), into this same image.

    files, rom = layout(firmware_files)   # the file system's files, the ROMFS image
"""

from goclock import firmware as deploy

from .build import ROMFS_BASE, ROMFS_BYTES

__all__ = ["ROMFS_BASE", "ROMFS_BYTES", "layout"]


def layout(files):
    """A deploy's [(local, board path)] -> (the file system's part, the ROMFS image)."""
    rom, rest = deploy.romfs_split(files)
    data = deploy.romfs_image(rom)
    if len(data) > ROMFS_BYTES:
        raise ValueError("the ROMFS image is %d B, the partition %d B" % (len(data), ROMFS_BYTES))
    return rest, data
