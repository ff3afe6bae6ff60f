"""The firmware's own checks, used by the host tool so there is one source of truth.

Time controls are validated by the firmware's `goclockfw.core.timecontrol` (the same code
the clock runs), installed beside this package; it is plain Python that runs on CPython too.
"""

from goclockfw.core import timecontrol

from ..errors import NotationError


def validate_time_control(obj):
    """The normalised JSON of a time control, or NotationError with the core's message."""
    try:
        return timecontrol.parse(obj).to_json()
    except timecontrol.ConfigError as exc:
        raise NotationError("bad time control: %s" % exc) from None
