"""Running driver scripts under the MicroPython unix port for the storage and protocol tests.

A driver is a small MicroPython program (a string in the test) that imports the
firmware package and tests/support (both on MICROPYPATH) and prints JSON lines for the
test to read.
"""

import json
import os
import subprocess

from conftest import TESTS
from goclock.unixport import micropython_env

ENV = micropython_env([TESTS])


def driver_path(tmp_path, code, name="driver.py"):
    path = os.path.join(str(tmp_path), name)
    with open(path, "w", encoding="utf-8") as f:
        f.write(code)
    return path


def run_mpy(micropython, tmp_path, code, *args, timeout=60, name="driver.py"):
    """Run `code` under MicroPython; returns (returncode, stdout lines, stderr text)."""
    path = driver_path(tmp_path, code, name)
    proc = subprocess.run(
        # A bigger heap than the port's default: drivers hold whole flash images.
        [micropython, "-X", "heapsize=48M", path, *[str(a) for a in args]],
        capture_output=True,
        timeout=timeout,
        env=ENV,
        check=False,
    )
    lines = proc.stdout.decode("utf-8", "replace").splitlines()
    return proc.returncode, lines, proc.stderr.decode("utf-8", "replace")


def run_mpy_json(micropython, tmp_path, code, *args, timeout=60):
    """Run a driver that must succeed; its stdout lines parsed as JSON."""
    rc, lines, err = run_mpy(micropython, tmp_path, code, *args, timeout=timeout)
    assert rc == 0, "MicroPython driver failed:\n" + err + "\n".join(lines[-20:])
    return [json.loads(ln) for ln in lines if ln.strip()]
