"""The `goclock` command line: the parser made from the table of commands (commands.py).

Handlers live in this package's command-group modules (device, config, arbiter, logs,
deploy, voice, scenario) and are imported only when their command runs, so `goclock
simulate` needs neither pyserial nor rich at import time. Errors meant for the user are
raised as `GoclockError` and printed as one line in `main()`, with the error's exit code
(errors.py: 1 device or I/O, 2 bad usage or input, 3 no clock found; argparse's own errors
are 2).
"""

import argparse
import importlib
import os
import re
import sys

from .. import __version__
from ..errors import EXIT_STATUSES, GoclockError
from .commands import COMMANDS, Group

__all__ = ["GoclockError", "build_parser", "main"]


def _handler(spec):
    """'module:function' -> a handler importing the module when called."""
    module, func = spec.split(":")

    def run(args):
        return getattr(importlib.import_module("." + module, __package__), func)(args)

    return run


def _json_flag(parser):
    parser.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="print JSON for scripts"
    )


def _device_options(parser, json_flag):
    # SUPPRESS keeps a subcommand's absent option from hiding the same option given before it.
    parser.add_argument(
        "--port", "-p", default=argparse.SUPPRESS, help="device path or pyserial URL"
    )
    parser.add_argument(
        "--timeout", type=float, default=argparse.SUPPRESS, help="seconds to wait for a reply"
    )
    if json_flag:
        _json_flag(parser)


def _add_argument(parser, entry):
    kind = entry[0]
    if kind == "one_of":
        group = parser.add_mutually_exclusive_group()
        for arg in entry[1]:
            _add_argument(group, arg)
        return
    _kind, flags, options = entry
    if callable(options.get("choices")):  # known only once installed: the board files
        options = dict(options, choices=options["choices"]())
    parser.add_argument(*flags, **options)


def _add_command(sub, command):
    if isinstance(command, Group):
        p = sub.add_parser(command.name, help=command.help, description=command.help)
        if command.handler:  # the group does something by itself too
            for entry in command.args:
                _add_argument(p, entry)
            p.set_defaults(handler=_handler(command.handler))
        group = p.add_subparsers(dest=command.name + "_command", metavar="COMMAND")
        for child in command.commands:
            _add_command(group, child)
        return
    described = {"description": command.help} if command.described else {}
    p = sub.add_parser(command.name, help=command.help, **described)
    if command.device:
        _device_options(p, command.json)
    elif command.json:
        _json_flag(p)
    if command.negative:
        # argparse reads "-5m" as an unknown option; let the notation say what is wrong with it.
        p._negative_number_matcher = re.compile(r"^-\d")
    for entry in command.args:
        _add_argument(p, entry)
    p.set_defaults(handler=_handler(command.handler))


class _Parser(argparse.ArgumentParser):
    """argparse, but a mistake on the command line is one line like every other error
    (`goclock: argument --periods: 0 or more, got -2 (goclock time set --help)`), not
    its usage block; subcommand parsers are made of this class too."""

    def error(self, message):
        self.exit(2, "goclock: %s (see %s --help)\n" % (message, self.prog))


def build_parser():
    parser = _Parser(
        prog="goclock",
        description="goclock host tool: configure, watch and arbitrate a goclock; pull, verify "
        "and export game logs. The clock is found by itself, or give --port (or $GOCLOCK_PORT).",
        epilog=EXIT_STATUSES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version="goclock " + __version__)
    parser.add_argument(
        "--port",
        "-p",
        default=None,
        help="device path or pyserial URL (default: $GOCLOCK_PORT, or the one goclock found)",
    )
    parser.add_argument(
        "--timeout", type=float, default=None, help="seconds to wait for each reply (default 3)"
    )
    parser.add_argument(
        "--json", action="store_true", help="print JSON for scripts (read commands)"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        _add_command(sub, command)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        # `goclock logs` alone: the help of that group, not of everything.
        chosen = [a for a in (argv if argv is not None else sys.argv[1:]) if not a.startswith("-")]
        if chosen:
            parser.parse_args(chosen[:1] + ["--help"])
        parser.print_help()
        return 2
    try:
        return args.handler(args) or 0
    except GoclockError as exc:
        print("goclock: %s" % exc, file=sys.stderr)
        return getattr(exc, "exit_code", 1)
    except KeyboardInterrupt:
        print("goclock: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # `goclock logs export 3 | head`: the reader left; nothing to report.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
