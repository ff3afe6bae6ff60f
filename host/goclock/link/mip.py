"""The display's driver onto a board: micropython-lib's `ssd1306`, installed by mip through
mpremote (`mpremote connect PORT mip install ssd1306`).

The firmware draws on an SSD1306 through micropython-lib's driver (goclockfw/board/mcu.py
imports `ssd1306`); without it a board with a display runs blind, saying so in its
notices. mip fetches the package from micropython.org's index on this computer and writes
it to the board's /lib, compiled for its MicroPython: it needs the network, so when it
cannot be had the deploy goes on and says how to install the driver later.
"""

import os
import shutil
import subprocess
import sys

DRIVER = "ssd1306"
TIMEOUT_S = 180  # a slow link and a slow board: mip writes a few KB through the raw REPL


def mpremote_binary():
    """mpremote beside this Python (the project's .venv, a pipx venv), or on PATH; None."""
    here = os.path.join(os.path.dirname(sys.executable), "mpremote")
    return here if os.path.exists(here) else shutil.which("mpremote")


def later(port):
    """The command that installs the driver by hand."""
    return "mpremote connect %s mip install %s" % (port, DRIVER)


def install(port, binary=None, run=subprocess.run):
    """Install the driver on the board at `port`: (True, None), or (False, why not)."""
    binary = binary or mpremote_binary()
    if not binary:
        return False, "mpremote is not installed (pip install mpremote)"
    try:
        proc = run(
            [binary, "connect", port, "mip", "install", DRIVER],
            capture_output=True,
            text=True,
            timeout=TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return False, "mip gave no answer in %d s" % TIMEOUT_S
    except OSError as exc:
        return False, "mpremote could not be run: %s" % (exc.strerror or exc)
    if proc.returncode == 0:
        return True, None
    # mpremote prints its error last on stderr ("mpremote: <why>"), progress on stdout.
    for text in (proc.stderr, proc.stdout):
        said = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
        if said:
            return False, said[-1].removeprefix("mpremote: ")
    return False, "mpremote failed (exit status %d)" % proc.returncode
