"""tests/rp2: the firmware on the real MicroPython rp2 port, on an emulated Pico (rp2040py).

These tests need the Pico images of tools/rp2/build.py and take minutes, so plain
`pytest tests` (`make test`) leaves them out: they run when tests/rp2 (or a file in it) is
named on the command line, as `make test-rp2` does, or with GOCLOCK_RP2=1.

The images come from GOCLOCK_RP2_IMAGE / GOCLOCK_RP2_FROZEN_IMAGE (set by `make
test-rp2`), else from build.py's cache (built when missing). Every wait is in emulated
time: a slow machine makes the run slower, never different. The figures the tests measure
(heap, boot time) are printed at the end of the run.
"""

import os
import sys
from pathlib import Path

import pytest
from rp2_helpers import FIGURES, REPO

HERE = Path(__file__).resolve().parent


def pytest_plugin_registered(plugin, manager):
    # pytest imports each conftest.py outside a package as the module "conftest", in place
    # of the one before; tests/*.py import helpers from tests/conftest.py by that name, and
    # this directory is visited before them: give the name back.
    if plugin is sys.modules.get("conftest") and getattr(plugin, "__file__", None) == __file__:
        parent = manager.get_plugin(str(HERE.parent / "conftest.py"))
        if parent is not None:
            sys.modules["conftest"] = parent


def _asked_for(config):
    if os.environ.get("GOCLOCK_RP2") == "1":
        return True
    for arg in config.args:
        path = Path(arg.split("::")[0]).resolve()
        if path == HERE or HERE in path.parents:
            return True
    return False


def pytest_ignore_collect(collection_path, config):
    if not _asked_for(config):
        return True
    return None


def pytest_terminal_summary(terminalreporter):
    if FIGURES:
        terminalreporter.section("rp2 figures (emulated Pico, MicroPython 1.25)")
        for what, value in FIGURES:
            terminalreporter.write_line("%-58s %s" % (what, value))


@pytest.fixture(scope="session")
def plain_image():
    from tools.rp2 import build

    return os.environ.get("GOCLOCK_RP2_IMAGE") or build.build()


@pytest.fixture(scope="session")
def frozen_image():
    from tools.rp2 import build

    return os.environ.get("GOCLOCK_RP2_FROZEN_IMAGE") or build.build(
        str(REPO / "boards" / "manifest.py")
    )
