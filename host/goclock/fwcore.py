"""The firmware's own modules, used by the host tool so there is one source of truth.

Time controls are validated by `firmware/timecontrol.py` (the same code the clock runs) and
game logs are verified by `firmware/gamelog.py`. Both are plain Python that runs on CPython
too. They are found in the repository next to the host package, or where
`$GOCLOCK_FIRMWARE` points.
"""

import importlib
import os
import sys

from . import paths
from .errors import GoclockError, NotationError


def firmware_dir():
    env = os.environ.get("GOCLOCK_FIRMWARE")
    return os.path.abspath(env) if env else paths.firmware_dir()


def load(name):
    """Import firmware module `name` (e.g. "timecontrol")."""
    path = firmware_dir()
    if not os.path.isfile(os.path.join(path, name + ".py")):
        raise GoclockError(
            "cannot find the firmware's %s.py in %s: run goclock from the goclock repository "
            "(pip install -e host) or set GOCLOCK_FIRMWARE to its firmware directory" % (name, path)
        )
    # Appended, not prepended: firmware module names must never shadow the standard library.
    if path not in sys.path:
        sys.path.append(path)
    return importlib.import_module(name)


def validate_time_control(obj):
    """The normalised JSON of a time control, or NotationError with the core's message."""
    timecontrol = load("timecontrol")
    try:
        return timecontrol.parse(obj).to_json()
    except timecontrol.ConfigError as exc:
        raise NotationError("bad time control: %s" % exc) from None
