"""LICENSE/CREDITS files of the generated packs (filled in below)."""


def write(pack_dir, name, settings):
    pass
