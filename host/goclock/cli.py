"""The `goclock` command line: a table of commands, each with its own handler.

Handlers live in the `cmd_*` modules and are imported only when their command runs, so
`goclock simulate` needs neither pyserial nor rich at import time. Errors meant for the user
are raised as `GoclockError` and printed as one line in `main()`, with the error's exit code
(errors.py: 1 device or I/O, 2 bad usage or input, 3 no clock found; argparse's own errors
are 2). Values whose range is known here are checked by argparse itself.
"""

import argparse
import importlib
import os
import re
import sys

from . import SIDES, __version__, resources
from .errors import EXIT_STATUSES, GoclockError

__all__ = ["GoclockError", "build_parser", "main"]


def _cmd_simulate(args):
    from . import simulate

    return simulate.run(args.scenario, args.engine)


def _ranged(lo, hi, what):
    """An argparse type: an integer from lo to hi (hi None: no upper bound)."""

    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError("%r is not a whole number" % text) from None
        if value < lo or (hi is not None and value > hi):
            bound = "from %d to %d" % (lo, hi) if hi is not None else "%d or more" % lo
            raise argparse.ArgumentTypeError("%s: %s, got %d" % (what, bound, value))
        return value

    return parse


def _handler(spec):
    """'module:function' -> a handler importing the module when called."""
    module, func = spec.split(":")

    def run(args):
        return getattr(importlib.import_module("." + module, __package__), func)(args)

    return run


def _common(parser, json_flag=True):
    # SUPPRESS keeps a subcommand's absent option from hiding the same option given before it.
    parser.add_argument(
        "--port", "-p", default=argparse.SUPPRESS, help="device path or pyserial URL"
    )
    parser.add_argument(
        "--timeout", type=float, default=argparse.SUPPRESS, help="seconds to wait for a reply"
    )
    if json_flag:
        parser.add_argument(
            "--json", action="store_true", default=argparse.SUPPRESS, help="print JSON for scripts"
        )


def _add(sub, name, spec, help_text, json_flag=True, device=True):
    p = sub.add_parser(name, help=help_text, description=help_text)
    if device:
        _common(p, json_flag)
    elif json_flag:
        p.add_argument(
            "--json", action="store_true", default=argparse.SUPPRESS, help="print JSON for scripts"
        )
    p.set_defaults(handler=_handler(spec) if isinstance(spec, str) else spec)
    return p


def _durations_may_be_negative(parser):
    # argparse reads "-5m" as an unknown option; let the notation say what is wrong with it.
    parser._negative_number_matcher = re.compile(r"^-\d")


def _group(sub, name, help_text):
    p = sub.add_parser(name, help=help_text, description=help_text)
    return p.add_subparsers(dest=name + "_command", metavar="COMMAND")


def build_parser():
    parser = argparse.ArgumentParser(
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

    _add(sub, "ports", "cmd_device:do_ports", "list serial ports and which answer as a goclock")
    _add(sub, "info", "cmd_device:do_info", "firmware version, board, free flash and RAM, battery")
    _add(sub, "status", "cmd_device:do_status", "both clocks, whose turn, overtime left")
    p = _add(
        sub,
        "watch",
        "cmd_device:do_watch",
        "follow the clock live, each call as it is spoken (Ctrl-C leaves)",
    )
    p.add_argument("--seconds", type=float, default=None, help="stop after this many seconds")

    cfg = _group(sub, "config", "the clock's stored settings")
    _add(cfg, "show", "cmd_config:do_config_show", "print the clock's config")
    p = _add(cfg, "set", "cmd_config:do_config_set", "set the time control and other settings")
    _durations_may_be_negative(p)
    p.add_argument(
        "notation",
        nargs="*",
        help="time control, like: cn 2h/5 | byo 1h+5x30s | sd 30m | can 1h+15/10m [carry] | "
        "fischer 5m+3s [max 10m] | bronstein 5m+3s | delay 5m+3s | hourglass 5m | untimed | "
        "ing 3h+3x20m | time_settings 1800 600 25 | kgs-time_settings byoyomi 1800 30 5; "
        "options (also after --file, --from-sgf, --from-ogs, --preset): white=10m calls=none "
        "first=white",
    )
    p.add_argument("--file", help="a JSON file: a time control, or config fields")
    p.add_argument(
        "--from-sgf",
        metavar="SGF",
        help="the time control of an SGF game record (TM/OT, Fox TC/TT, LC/LT)",
    )
    p.add_argument(
        "--from-ogs", metavar="JSON", help="an OGS time-control object (or a game holding one)"
    )
    p.add_argument("--preset", help="the time control of a preset (goclock presets list)")
    p.add_argument("--volume", type=_ranged(0, 10, "volume"), help="0 (silent) to 10")
    p.add_argument("--voice", help="voice pack, e.g. zh")
    p.add_argument("--left-button", choices=SIDES, help="whose button is the left one")
    p.add_argument("--dry-run", action="store_true", help="check and print, send nothing")

    pre = _group(sub, "presets", "named time controls: built-in ones and your own")
    p = _add(
        pre,
        "list",
        "cmd_config:do_presets_list",
        "built-in and your presets (--device: those on the clock)",
    )
    p.add_argument("--device", action="store_true", help="list the presets stored on the clock")
    p = _add(
        pre,
        "add",
        "cmd_config:do_presets_add",
        "save a preset of your own",
        json_flag=False,
        device=False,
    )
    _durations_may_be_negative(p)
    p.add_argument("name")
    p.add_argument("notation", nargs="+")
    p.add_argument("--about", help="a note shown in the list")
    p.add_argument("--force", action="store_true", help="replace a built-in preset of that name")
    p = _add(
        pre,
        "remove",
        "cmd_config:do_presets_remove",
        "delete one of your presets",
        json_flag=False,
        device=False,
    )
    p.add_argument("name")
    p = _add(
        pre,
        "push",
        "cmd_config:do_presets_push",
        "store presets on the clock (default: yours, or the built-ins)",
    )
    p.add_argument("names", nargs="*", help="presets to push, in order (at most 10)")

    _add(sub, "pause", "cmd_arbiter:do_pause", "stop both clocks")
    _add(sub, "resume", "cmd_arbiter:do_resume", "restart the clock that was running")
    p = _add(
        sub, "reset", "cmd_arbiter:do_reset", "end the game and load the configured time control"
    )
    p.add_argument(
        "--preset", help="load a preset from the clock instead (its number from 1, or its name)"
    )
    p.add_argument(
        "--yes", action="store_true", help="end a game in progress without asking (scripts)"
    )
    p = _add(sub, "press", "cmd_arbiter:do_press", "press a player's button (demos, tests)")
    p.add_argument("side", choices=SIDES)
    p = _add(
        sub,
        "late",
        "cmd_arbiter:do_late",
        "mark a player absent at the start: their clock runs until they arrive (art. 22)",
    )
    p.add_argument("side", choices=SIDES)
    p = _add(
        sub,
        "arrive",
        "cmd_arbiter:do_arrive",
        "a late player arrives: charged twice the lateness in all",
    )
    p.add_argument("side", choices=SIDES)
    tim = _group(sub, "time", "arbiter adjustment of a player's time (only while paused)")
    p = _add(
        tim,
        "set",
        "cmd_arbiter:do_time_set",
        "set a side's time, e.g. `time set black 25:00 --periods 3`",
    )
    p.add_argument("side", choices=SIDES)
    p.add_argument("clock", nargs="?", help="main time left: 25:00, 1:30:00, 25m")
    p.add_argument("--periods", type=_ranged(0, None, "--periods"), help="byo-yomi periods left")
    p.add_argument("--period", help="time left in the current period or block: 30s")
    p.add_argument(
        "--moves", type=_ranged(0, None, "--moves"), help="moves left in the current Canadian block"
    )

    logs = _group(sub, "logs", "game logs: list, pull and verify, export")
    _add(logs, "list", "cmd_logs:do_list", "the game logs on the clock")
    p = _add(
        logs,
        "pull",
        "cmd_logs:do_pull",
        "copy game logs to DIR and verify them (resumes a cut pull)",
    )
    p.add_argument("game", nargs="?", type=int, help="game number (default: the last game)")
    p.add_argument("--all", action="store_true", help="every game on the clock")
    p.add_argument("-o", "--output", default=".", help="directory (default: here)")
    p = _add(
        logs, "verify", "cmd_logs:do_verify", "check a pulled log's checksum chain", device=False
    )
    p.add_argument("game", help="a pulled log file")
    p = _add(logs, "export", "cmd_logs:do_export", "a game log as JSON or CSV")
    p.add_argument("game", help="a pulled log file, or a game number on the clock")
    p.add_argument("--format", choices=("json", "csv"), default="json")
    p.add_argument("-o", "--output", help="file (default: standard output)")
    p = _add(
        logs,
        "sgf",
        "cmd_logs:do_sgf",
        "write the times into an SGF game record (BL/WL, OB/OW, TM/OT)",
        json_flag=False,
    )
    p.add_argument("game", help="a pulled log file, or a game number on the clock")
    p.add_argument("--merge", required=True, metavar="SGF", help="the game record to add times to")
    p.add_argument("-o", "--output", required=True, help="the timed SGF to write")
    p = _add(
        logs, "report", "cmd_logs:do_report", "time used per move, in the terminal or as a chart"
    )
    p.add_argument("game", help="a pulled log file, or a game number on the clock")
    p.add_argument("--plot", metavar="PNG", help="also draw a chart into this image file")
    p = _add(
        logs, "clear", "cmd_logs:do_clear", "delete finished games from the clock", json_flag=False
    )
    p.add_argument("game", nargs="?", type=int, help="one game (default: every finished game)")

    p = _add(
        sub,
        "deploy",
        "cmd_deploy:do_deploy",
        "compile the firmware and copy it to a board",
        json_flag=False,
    )
    p.add_argument("--board", choices=resources.board_names(), required=True)
    p.add_argument(
        "--force", action="store_true", help="deploy even while a game runs (it is lost!)"
    )
    p.add_argument("--voice", default="zh", help="voice pack to copy (default zh; 'none' for none)")
    p.add_argument(
        "--dry-run", action="store_true", help="build, list what would be copied, copy nothing"
    )

    voice = _group(
        sub,
        "voice",
        "voice packs: what to record, converting it, checking a pack, pushing one to the clock",
    )
    p = _add(
        voice,
        "phrases",
        "cmd_deploy:do_voice_phrases",
        "what to record for a pack: each file, its phrase, how long it may last",
        device=False,
    )
    which = p.add_mutually_exclusive_group()
    which.add_argument("--profile", choices=("cn", "jp", "en"), help="call profile (default cn)")
    which.add_argument("--like", metavar="PACK", help="the profile of this pack (zh, ja, en)")
    p = _add(
        voice,
        "convert",
        "cmd_deploy:do_voice_convert",
        "turn a folder of recordings (any WAV, one per phrase) into a pack the clock plays",
        device=False,
    )
    p.add_argument("src", help="the folder of recordings, named as the clips (count_1.wav, ...)")
    p.add_argument("out", help="the pack folder to write")
    which = p.add_mutually_exclusive_group()
    which.add_argument(
        "--profile",
        choices=("cn", "jp", "en"),
        help="the call profile, whose phrases are needed (default: guessed from the names)",
    )
    which.add_argument(
        "--like", metavar="PACK", help="the phrases of this pack (zh, ja, en, or a pack folder)"
    )
    level = p.add_mutually_exclusive_group()
    level.add_argument(
        "--target-lufs",
        type=float,
        metavar="LUFS",
        help="the loudness every clip is brought to (default -16, BS.1770 integrated)",
    )
    level.add_argument(
        "--gain",
        type=float,
        metavar="DB",
        help="instead, the same fixed gain for every clip (levels as recorded)",
    )
    p.add_argument("--force", action="store_true", help="replace the pack already in OUT")
    p = _add(
        voice,
        "check",
        "cmd_deploy:do_voice_check",
        "report missing phrases, bad formats, clips too long",
        device=False,
    )
    p.add_argument("dir", help="a pack folder, or the name of a shipped pack (zh, ja, en)")
    p.add_argument(
        "--profile", choices=("cn", "jp", "en"), help="call profile (default: the manifest's)"
    )
    p = _add(
        voice,
        "push",
        "cmd_deploy:do_voice_push",
        "upload a voice pack to the clock",
        json_flag=False,
    )
    p.add_argument("dir", help="a pack folder, or the name of a shipped pack (zh, ja, en)")
    p.add_argument(
        "--profile", choices=("cn", "jp", "en"), help="call profile (default: the manifest's)"
    )

    sim = sub.add_parser("simulate", help="run a scenario through the clock core, print JSON Lines")
    sim.add_argument("scenario", help="scenario JSON file")
    sim.add_argument("--engine", choices=("cpython", "micropython"), default="cpython")
    sim.set_defaults(handler=_cmd_simulate)
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


if __name__ == "__main__":
    sys.exit(main())
