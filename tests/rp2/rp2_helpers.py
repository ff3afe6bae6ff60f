"""What the tests/rp2 modules share: booting an emulated Pico, and the figures they report.

The figures (heap, boot time) are collected here and printed by conftest.py at the end of
the run, whatever pytest's capture setting.
"""

from pathlib import Path

from tools.rp2 import client, emu, layout

REPO = Path(__file__).resolve().parent.parent.parent

FIGURES = []  # (what, value)

# What a plain deploy's first boot prints: its package moved from /lib into the ROMFS
# partition (goclockfw/inplace.py), the board soft-reset to mount it. Nothing else may be.
MOVED = ["MPY: soft reboot"]


def figure(what, value):
    FIGURES.append((what, value))


def boot(image, files, tmp_path, fs=None, romfs=None):
    """A Pico booting `image` from storage laid out with `files` (and the probe), or from
    `fs` (an earlier run's storage: a reboot), with `romfs` in its ROMFS partition (the
    plain image's: tools/rp2/romfs.py); returns (pico, session)."""
    if fs is None:
        root = Path(tmp_path) / "fs"
        layout.lay_out(files + layout.probe_files(), str(root))
        fs = emu.make_fs(str(root))
    pico = emu.Pico(image, fs, romfs=romfs)
    return pico, client.Session(pico)
