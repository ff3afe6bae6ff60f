"""The `goclock` command line: a table of commands, each with its own handler.

Errors meant for the user are raised as `GoclockError` and printed as one line in `main()`.
"""

import argparse
import sys


class GoclockError(Exception):
    """An error the user can act on; printed without a traceback, exit code 1."""


def _cmd_simulate(args):
    from . import simulate

    return simulate.run(args.scenario, args.engine)


def build_parser():
    parser = argparse.ArgumentParser(prog="goclock", description="goclock host tool")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sim = sub.add_parser("simulate", help="run a scenario through the clock core, print JSON Lines")
    sim.add_argument("scenario", help="scenario JSON file")
    sim.add_argument("--engine", choices=("cpython", "micropython"), default="cpython")
    sim.set_defaults(handler=_cmd_simulate)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        return args.handler(args) or 0
    except GoclockError as exc:
        print("goclock: %s" % exc, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
