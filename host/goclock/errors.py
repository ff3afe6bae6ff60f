"""The errors the host tool reports to its user.

Every error a user can act on (no device, a busy port, a timeout, a refused request, bad
notation) is a `GoclockError`; `cli.main()` prints it as one line and exits non-zero.
Anything else is a bug and keeps its traceback.
"""


class GoclockError(Exception):
    """An error the user can act on; printed without a traceback, exit code 1."""

    exit_code = 1


class TransportError(GoclockError):
    """The serial line could not be opened, or it went away (cable pulled, device reset)."""

    exit_code = 3


class DeviceTimeout(GoclockError):
    """The device did not answer in time."""

    exit_code = 4


class ProtocolError(GoclockError):
    """The device answered something that is not the goclock protocol."""

    exit_code = 5


class DeviceError(GoclockError):
    """The device understood the request and refused it (`"ok": false`)."""

    exit_code = 6

    def __init__(self, cmd, message):
        super().__init__("the clock refused %s: %s" % (cmd, message))
        self.cmd = cmd
        self.reason = message


class UsageError(GoclockError):
    """The command line asks for something that cannot be: a bad value, an unknown name."""

    exit_code = 2


class NotationError(UsageError):
    """A time control written by the user could not be read or is not valid."""
