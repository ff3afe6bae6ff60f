"""boards/manifest.py (freezing the firmware into a MicroPython build) freezes exactly what
`goclock deploy` copies to a board: the goclockfw package without its desktop-only parts."""

import os

from conftest import REPO
from goclock import firmware as deploy


def test_manifest_freezes_the_board_package(monkeypatch):
    frozen = []
    included = []
    env = {
        "include": included.append,
        "package": lambda name, files=None, base_path=".": frozen.append((name, files, base_path)),
    }
    monkeypatch.chdir(os.path.join(REPO, "boards"))  # makemanifest runs it from its folder
    with open("manifest.py", encoding="utf-8") as f:
        exec(compile(f.read(), "manifest.py", "exec"), env)
    assert included == ["$(PORT_DIR)/boards/manifest.py"]
    [(name, files, base)] = frozen
    assert name == "goclockfw" and base == os.path.join(REPO, "firmware")
    # One manifest serves both families: it freezes both board modules.
    deployed = set(rel for _, rel in deploy.package_files("rp2"))
    deployed |= set(rel for _, rel in deploy.package_files("esp32"))
    assert sorted(f.replace(os.sep, "/") for f in files) == sorted(deployed)
    assert not any(f.startswith(("desktop", "scenario", "browser")) for f in files)
