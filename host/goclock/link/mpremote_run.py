"""mpremote run as a command of its own (`mpremote connect PORT ...`), for what it does
better than a copy through the REPL: mip's installs, ROMFS writes. It opens the port
itself, so it runs before the deploy's own link does (link/board.py).
"""

import os
import shutil
import subprocess
import sys


def mpremote_binary():
    """mpremote beside this Python (the project's .venv, a pipx venv), or on PATH; None."""
    here = os.path.join(os.path.dirname(sys.executable), "mpremote")
    return here if os.path.exists(here) else shutil.which("mpremote")


def run_mpremote(port, words, timeout_s, binary, run=subprocess.run):
    """`mpremote connect PORT <words>` with the mpremote at `binary` (None: none was
    found): (True, None), or (False, why not) in one line."""
    if not binary:
        return False, "mpremote is not installed (pip install mpremote)"
    try:
        proc = run(
            [binary, "connect", port, *words],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return False, "mpremote %s gave no answer in %d s" % (" ".join(words[:2]), timeout_s)
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
