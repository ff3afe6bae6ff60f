"""Shared test set-up: where things are, and the MicroPython unix port (from the project's venv).

The helpers the tests share live in tests/support/; the firmware (`goclockfw`) and the
host tool (`goclock`) are installed in the venv, so nothing patches sys.path.
"""

import os
import subprocess

import pytest

from goclock.unixport import micropython_binary, micropython_env

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(REPO, "firmware")
SCENARIOS = os.path.join(REPO, "tests", "scenarios")
TESTS = os.path.join(REPO, "tests")


@pytest.fixture(scope="session")
def micropython():
    return micropython_binary()


def run_micropython(binary, script, *args, cwd=None, timeout=60):
    """Run a script under MicroPython with the firmware and tests/ on its path."""
    return subprocess.run(
        [binary, script, *args],
        capture_output=True,
        cwd=cwd,
        timeout=timeout,
        env=micropython_env([TESTS]),
        check=False,
    )


@pytest.fixture
def line():
    """The real firmware session served on a pty in virtual time (support/clockline.py): the
    clock the host tool's tests talk to. A test module may define its own `line`."""
    from support.clockline import ClockLine

    clock_line = ClockLine()
    yield clock_line
    clock_line.close()
