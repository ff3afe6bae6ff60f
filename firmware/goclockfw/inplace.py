"""At power-up, the package where it runs best: a package copied to /lib goes into the
RP2040's ROMFS partition first, where it runs from flash (romfs.py does the move).

`start` is the first thing boot.py's `run` does. It reads two small files, the deploy's
hash of the package in /lib and the one in the partition, and imports romfs.py only when
they differ: a boot that moves nothing holds nothing of the move.

Nothing is done when the partition already holds /lib's package (the same build.sha256,
the deploy's hash of the package), when /lib's package has no build.sha256 (copied by
hand), on a board without a ROMFS partition (the stock RPI_PICO image), off the RP2040, or
when the image would not fit. Then the package runs from /lib, as before.
"""

import sys

LIB = "/lib/goclockfw"
BUILD = "build.sha256"  # in the package: the deploy's hash of its files


def read_file(path):
    """A file's bytes, or None when it cannot be read."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def _segment():
    """The ROMFS partition's block device, or None (no partition, not an RP2040)."""
    if sys.platform != "rp2":
        return None  # the ESP32's partitions write differently: not tried
    try:
        import vfs

        segment = vfs.rom_ioctl(2, 0)
    except (ImportError, AttributeError, OSError):
        return None
    return None if isinstance(segment, int) else segment


def start():
    """When /lib holds a package that the partition does not, move it there and
    soft-reset the board (this does not return). Run from /lib (nothing in the partition
    yet, or nothing mountable), the move is made now; run from the partition's older
    package, which cannot be erased under it, the partition is retired first
    (romfs._retire) and the move made at the next boot, from /lib. Returns, having done
    nothing, in every other case (the module's docstring)."""
    want = read_file(LIB + "/" + BUILD)
    if want is None or want == read_file("/rom" + LIB + "/" + BUILD):
        return
    segment = _segment()
    in_rom = __file__.startswith("/rom/")
    if segment is None or not (in_rom or __file__.startswith("/lib/")):
        return  # no partition; or frozen: the image's package comes first, /lib never runs
    import machine

    from goclockfw import romfs

    if in_rom:
        romfs._retire(segment)
        machine.soft_reset()
    try:
        romfs.move(segment)
    except (ValueError, OSError) as e:
        print("goclock: the package stays in /lib:", e)
        return
    machine.soft_reset()
