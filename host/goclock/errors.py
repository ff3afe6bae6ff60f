"""The errors the host tool reports to its user, and the exit status of each.

Every error a user can act on is a `GoclockError`; `cli.main()` prints it as one line and
exits with its `exit_code`. Anything else is a bug and keeps its traceback. The statuses
(EXIT_STATUSES, shown by `goclock --help` and in the README):

    0  done
    1  device or I/O error: the clock did not answer, answered nonsense, failed, or the
       line dropped; a file could not be written
    2  bad usage or input: a wrong option or value, an unknown name or game, a file that is
       missing or not valid (a log that fails verification), a request the clock refused
    3  no clock found: no goclock among the serial ports, or no such port

A plain GoclockError is the second kind: most errors the tool raises are about what it was
given, so that is the default, and the device and I/O errors say otherwise by their class.
"""

EXIT_OK = 0
EXIT_IO = 1
EXIT_USAGE = 2
EXIT_NO_CLOCK = 3

EXIT_STATUSES = """exit status:
  0  done
  1  device or I/O error: the clock did not answer, answered nonsense, failed, or the
     line dropped; a file could not be written
  2  bad usage or input: a wrong option or value, an unknown name or game, a file that
     is missing or not valid (a log that fails verification), a request the clock refused
  3  no clock found: no goclock among the serial ports, or no such port"""


class GoclockError(Exception):
    """An error the user can act on; printed without a traceback. Bad usage or input."""

    exit_code = EXIT_USAGE


class UsageError(GoclockError):
    """The command line asks for something that cannot be: a bad value, an unknown name."""

    exit_code = EXIT_USAGE


class NotationError(UsageError):
    """A time control written by the user could not be read or is not valid."""


class DeviceIOError(GoclockError):
    """The clock, its serial line or a file failed: trying again may work."""

    exit_code = EXIT_IO


class TransportError(DeviceIOError):
    """The serial line could not be opened, or it went away (cable pulled, device reset)."""


class NoClockError(TransportError):
    """There is no clock to talk to: none among the ports, or the port given does not exist."""

    exit_code = EXIT_NO_CLOCK


class Interrupted(GoclockError):
    """Ctrl-C, with what was kept and how to go on (a pull's `.part`)."""

    exit_code = 130  # as the shell reports a program stopped by SIGINT


class DeviceTimeout(DeviceIOError):
    """The device did not answer in time."""


class ProtocolError(DeviceIOError):
    """The device answered something that is not the goclock protocol (or another version)."""


# Refusals that are the clock failing, not the request being wrong (docs/protocol.md).
_DEVICE_FAULTS = ("storage error", "internal error", "out of memory")


class DeviceError(GoclockError):
    """The device understood the request and refused it (`"ok": false`).

    A refusal says the request was wrong for the clock (a value, its state): bad input,
    unless the clock itself failed (a flash write, an internal error): a device error.
    Its message is in the words of the command typed (link/refusals.py): "the clock is
    running: pause it first", not the protocol's "config.set: a clock is running ...";
    `cmd` and `reason` keep the protocol's.
    """

    def __init__(self, cmd, message):
        from .link.refusals import in_words  # the user's words, not the protocol's

        super().__init__(in_words(cmd, message))
        self.cmd = cmd
        self.reason = message
        if str(message).startswith(_DEVICE_FAULTS):
            self.exit_code = EXIT_IO
