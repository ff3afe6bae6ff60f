"""`goclock simulate`: run a scenario through the firmware's clock core.

The same core runs either here, in CPython, or in the MicroPython unix port
(`--engine micropython`); both print byte-identical JSON Lines. The scenario is read
here for both: its `time_control` may be a notation (`"byo 10m+3x30s"`), which becomes
the JSON the core takes before either engine sees it (the runner on the unix port gets
the scenario on its standard input).
"""

import json
import os
import subprocess
import sys

from .. import resources
from ..errors import GoclockError, NotationError
from ..timecontrol import notation
from ..unixport import micropython_binary, micropython_env


def load(scenario_path):
    """The scenario object of a file, its notation (if any) turned into the JSON."""
    try:
        with open(scenario_path, encoding="utf-8") as f:
            obj = json.load(f)
    except OSError as exc:
        raise GoclockError("cannot read %s: %s" % (scenario_path, exc.strerror)) from None
    except ValueError as exc:
        raise GoclockError("%s is not valid JSON: %s" % (scenario_path, exc)) from None
    if isinstance(obj, dict) and isinstance(obj.get("time_control"), str):
        try:
            obj = dict(obj, time_control=notation.parse(obj["time_control"]))
        except NotationError as exc:
            raise GoclockError("simulate: time_control: %s" % exc) from None
    return obj


def run(scenario_path, engine="cpython", out=None):
    """Print the scenario's JSON Lines on `out` (bytes stream); returns the exit code."""
    out = out or sys.stdout.buffer
    obj = load(scenario_path)
    if engine == "micropython":
        script = os.path.join(resources.firmware_dir(), "scenario", "runner.py")
        proc = subprocess.run(
            [micropython_binary(), script, "-"],
            input=json.dumps(obj).encode("utf-8"),
            capture_output=True,
            check=False,
            env=micropython_env(),
        )
        out.write(proc.stdout)
        out.flush()
        if proc.returncode:
            raise GoclockError(
                proc.stderr.decode("utf-8", "replace").strip() or "micropython failed"
            )
        return 0
    from goclockfw.scenario import runner as core  # the firmware's scenario runner, here

    try:
        core.run(obj, lambda line: out.write(line.encode("utf-8")))
    except core.ScenarioError as exc:
        raise GoclockError("simulate: %s" % exc) from None
    out.flush()
    return 0


def do_simulate(args):
    return run(args.scenario, args.engine)
