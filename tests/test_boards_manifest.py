"""boards/manifest.py (freezing the firmware into a MicroPython build) lists every module a board runs."""

import os

from conftest import FIRMWARE, REPO
from goclock.deploy import DESKTOP_ONLY


def test_manifest_freezes_every_board_module():
    frozen = []
    included = []
    env = {
        "include": included.append,
        "module": lambda name, base_path=".": frozen.append((name, base_path)),
    }
    with open(os.path.join(REPO, "boards", "manifest.py"), encoding="utf-8") as f:
        exec(compile(f.read(), "manifest.py", "exec"), env)
    board_modules = sorted(
        n
        for n in os.listdir(FIRMWARE)
        if n.endswith(".py") and n not in DESKTOP_ONLY + ("main.py",)
    )
    assert sorted(name for name, _ in frozen) == board_modules
    assert all(base == "../firmware" for _, base in frozen)
    assert included == ["$(PORT_DIR)/boards/manifest.py"]
