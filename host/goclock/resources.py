"""What the host tool ships with, found through one lookup: the firmware package, the board
files and the voice packs.

The firmware (`goclockfw`) is a package installed beside this one, so its modules are
imported like any other and its sources are where it was imported from. The board files
(`boards/*.json`) and the voice packs (`sounds/<pack>/`) are package data of `goclock`
(in the repository `host/goclock/data/` links to them), read through importlib.resources:
the same from a checkout, an editable install, a wheel or pipx.
"""

import importlib.resources
import os

import goclockfw


def firmware_dir():
    """The directory of the firmware package `goclockfw` (its .py sources)."""
    return os.path.dirname(os.path.abspath(goclockfw.__file__))


def _data(*parts):
    path = importlib.resources.files("goclock").joinpath("data", *parts)
    return str(path)


def board_names():
    """Every board the firmware knows: the stems of the shipped boards/*.json, sorted."""
    folder = _data("boards")
    return sorted(n[:-5] for n in os.listdir(folder) if n.endswith(".json"))


def board_file(name):
    """The pin map of board `name` (boards/<name>.json), or None."""
    path = _data("boards", name + ".json")
    return path if os.path.isfile(path) else None


def voice_pack_dir():
    """The folder of the shipped voice packs (sounds/)."""
    return _data("sounds")


def voice_packs():
    """The names of the shipped voice packs."""
    folder = _data("sounds")
    return sorted(n for n in os.listdir(folder) if os.path.isdir(os.path.join(folder, n)))


def voice_pack(name):
    """The folder of shipped voice pack `name`, or None."""
    path = _data("sounds", name)
    return path if os.path.isdir(path) else None
