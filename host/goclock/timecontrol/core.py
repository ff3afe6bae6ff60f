"""The firmware's own checks, used by the host tool so there is one source of truth.

Time controls are validated by the firmware's `goclockfw.core.timecontrol` (the same code
the clock runs), installed beside this package; it is plain Python that runs on CPython too.
"""

from goclockfw.core import timecontrol

from ..errors import NotationError
from ..words import seconds_in_words


def validate_time_control(obj):
    """The normalised JSON of a time control, or NotationError with the core's message."""
    try:
        return timecontrol.parse(obj).to_json()
    except timecontrol.ConfigError as exc:
        # The core counts seconds; a limit of hours reads as hours ("at most 48:00:00 (48 h)").
        raise NotationError("bad time control: %s" % seconds_in_words(str(exc))) from None
