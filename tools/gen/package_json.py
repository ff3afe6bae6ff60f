#!/usr/bin/env python3
"""Write package.json, so that `mpremote mip install` can put the firmware on a board.

    python -m tools.gen.package_json          # rewrites package.json at the top

mip installs into the board's /lib: the package's modules, the same set `goclock deploy`
copies and boards/manifest.py freezes (the desktop board and the scenario runner stay on
the PC), as source (mip's own .mpy compilation applies only to micropython-lib's index).
URLs are relative to package.json, which mpremote resolves both for a checkout
(`mpremote mip install ./package.json`) and for a repository host
(`mpremote mip install github:<owner>/<repo>`). /main.py and /board.json are not part of a
package (mip writes below /lib): copy those two as the README says. tests/test_packaging.py
checks that the committed file is what this script writes.
"""

import json
import os
import sys

from .. import ROOT


def package_json():
    from goclock import firmware
    from goclockfw import VERSION

    rels = set()
    for family in firmware.ARCH:
        rels.update(rel for _src, rel in firmware.package_files(family))
    urls = [["goclockfw/" + rel, "firmware/goclockfw/" + rel] for rel in sorted(rels)]
    return {"urls": urls, "deps": [], "version": VERSION}


def text():
    """The JSON, one file to a line (a diff then shows which modules came or went)."""
    pkg = package_json()
    urls = ",\n".join("    " + json.dumps(u) for u in pkg["urls"])
    return '{\n  "urls": [\n%s\n  ],\n  "deps": [],\n  "version": %s\n}\n' % (
        urls,
        json.dumps(pkg["version"]),
    )


def main():
    with open(os.path.join(ROOT, "package.json"), "w", encoding="utf-8") as f:
        f.write(text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
