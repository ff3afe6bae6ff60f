"""The exports of the logs page, made by the host tool itself: `goclock logs export` (JSON,
CSV) and `goclock logs sgf` run on the log the page pulled, so what the page downloads is
the command's output byte for byte, by construction.

Each export runs the command in a process of its own (the command writes its warnings on
standard error, which a thread of this server must not share), on files in a temporary
folder that is removed afterwards.
"""

import base64
import os
import subprocess
import sys
import tempfile

FORMATS = ("json", "csv", "sgf")
MAX_BYTES = 8 << 20  # a game log is tens of KB; an SGF less


def _goclock(*argv):
    return subprocess.run(
        [sys.executable, "-m", "goclock.cli", *argv],
        capture_output=True,
        timeout=60,
        check=False,
    )


def export(fmt, log, sgf=None, force=False):
    """{"ok": true, "data": base64, "warnings": [...]} or {"ok": false, "error": "..."}."""
    if fmt not in FORMATS:
        return {"ok": False, "error": "no such export: %r (json, csv, sgf)" % fmt}
    with tempfile.TemporaryDirectory(prefix="goclock-web-") as folder:
        log_path = os.path.join(folder, "game.log")
        with open(log_path, "wb") as f:
            f.write(log)
        out = os.path.join(folder, "out")
        more = ["--force"] if force else []
        if fmt == "sgf":
            argv = ["logs", "sgf", log_path, "-o", out] + more
            if sgf is not None:
                sgf_path = os.path.join(folder, "game.sgf")
                with open(sgf_path, "wb") as f:
                    f.write(sgf)
                argv += ["--merge", sgf_path]
        else:
            argv = ["logs", "export", log_path, "--format", fmt, "-o", out] + more
        done = _goclock(*argv)
        lines = done.stderr.decode("utf-8", "replace").splitlines()
        said = [x[len("goclock: ") :] for x in lines if x.startswith("goclock: ")]
        if done.returncode != 0:
            return {"ok": False, "error": said[-1] if said else "goclock failed"}
        with open(out, "rb") as f:
            data = f.read()
    warnings = [x[len("warning: ") :] for x in said if x.startswith("warning: ")]
    return {"ok": True, "data": base64.b64encode(data).decode(), "warnings": warnings}
