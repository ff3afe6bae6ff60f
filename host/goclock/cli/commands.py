"""Every `goclock` command in one table: its name, its handler, its help and its options.

A `Command` names its handler as "module:function" in this package (device, config,
arbiter, logs, deploy, voice, scenario); the module is imported only when the command
runs. A `Group` is a command with subcommands (`goclock logs pull`). `arg(...)` is one
option or argument, with argparse's own keywords; `one_of(...)` options that exclude each
other. Device commands take --port and --timeout (and --json, unless json=False);
`negative=True` lets a duration like "-5m" through to the notation, which says what is
wrong with it. Values whose range is known here are checked by argparse itself.
"""

import argparse
from typing import NamedTuple

from .. import SIDES, resources

PROFILES = ("cn", "jp", "en")


def arg(*flags, **options):
    """One argparse argument: its flags (or name) and its keywords."""
    return ("arg", flags, options)


def one_of(*args):
    """Arguments of which at most one may be given."""
    return ("one_of", args)


def ranged(lo, hi):
    """An argparse type: an integer from lo to hi (hi None: no upper bound)."""

    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError("%r is not a whole number" % text) from None
        if value < lo or (hi is not None and value > hi):
            bound = "from %d to %d" % (lo, hi) if hi is not None else "%d or more" % lo
            raise argparse.ArgumentTypeError("%s, got %d" % (bound, value))
        return value

    return parse


class Command(NamedTuple):
    name: str
    handler: str  # "module:function" in goclock.cli
    help: str
    args: tuple = ()
    json: bool = True  # offers --json
    device: bool = True  # talks to a clock: --port, --timeout
    negative: bool = False  # "-5m" is a value, not an option
    described: bool = True  # its help text is also its --help description


class Group(NamedTuple):
    name: str
    help: str
    commands: tuple
    handler: str = None  # run when no subcommand is given (`goclock hall`)
    args: tuple = ()  # that handler's options


SIDE = arg("side", choices=SIDES)
PACK = arg("dir", help="a pack folder, or the name of a shipped pack (zh, ja, en)")
PACK_PROFILE = arg("--profile", choices=PROFILES, help="call profile (default: the manifest's)")
LOG = arg("game", help="a pulled log file, or a game number on the clock")
FORCE_LOG = arg(
    "--force",
    action="store_true",
    help="go on with a log that does not verify (its bad records left out, marked so)",
)


def hall_connect(sub=False):
    """The hall's broker options: on `goclock hall` itself, and again on each of its
    subcommands (there with defaults suppressed, so a value given before the subcommand
    is not overwritten by the subcommand's default)."""

    def d(value):
        return argparse.SUPPRESS if sub else value

    return (
        arg("--hall", default=d(None), help="the hall's name (its topics: goclock/v1/HALL/...)"),
        arg("--broker", default=d("127.0.0.1:1883"), help="the MQTT broker HOST[:PORT]"),
        arg("--user", default=d(None), help="the hall's broker account"),
        arg(
            "--password-file",
            default=d(None),
            metavar="FILE",
            help="its password (or $GOCLOCK_MQTT_PASSWORD)",
        ),
        arg("--tls", action="store_true", default=d(False), help="TLS (the system's CAs)"),
        arg("--tls-ca", default=d(None), metavar="FILE", help="TLS, trusting this CA"),
        arg(
            "--folder",
            default=d(None),
            metavar="DIR",
            help="the hall's folder: collected logs, assignments (default ./hall-HALL)",
        ),
        arg(
            "--connect-timeout",
            type=float,
            default=d(20.0),
            help="seconds to wait for the broker at the start (default 20)",
        ),
    )


HALL_COMMANDS = (
    Command(
        "assign",
        "hall:do_hall_assign",
        "send each table its pairing from an OpenGotha tournament file",
        (
            arg("file", help="the tournament, as OpenGotha saves it (XML)"),
            arg("--round", type=ranged(1, None), required=True, help="the round to assign"),
            arg(
                "--clock-name",
                default="table-{table}",
                help="the clock of each table (default table-{table})",
            ),
            arg("--reply-timeout", type=float, default=5.0, help="seconds per clock (default 5)"),
        )
        + hall_connect(sub=True),
        json=False,
        device=False,
    ),
    Command(
        "result",
        "hall:do_hall_result",
        "enter a table's result at the hall (any SGF RE: B+R, W+T, B+3.5, 0, Void, ?)",
        (
            arg("table", type=ranged(1, None), help="the table"),
            arg("result", help="the result, as SGF RE"),
            arg("--round", type=ranged(1, None), required=True, help="the round"),
        )
        + hall_connect(sub=True),
        json=False,
        device=False,
    ),
    Command(
        "results",
        "hall:do_hall_results",
        "the round's results: OpenGotha XML (games only), EGF .h9, CSV",
        (
            arg("--round", type=ranged(1, None), required=True, help="the round"),
            arg("--out", metavar="DIR", help="where to write them (default: the hall's folder)"),
        )
        + hall_connect(sub=True),
        json=False,
        device=False,
    ),
    Command(
        "setup",
        "hall:do_hall_setup",
        "write a Mosquitto config, ACL and hashed passwords for the hall",
        (
            arg("--clocks", metavar="NAMES", help="the clocks' names, comma-separated"),
            arg("--tables", type=ranged(1, 10000), help="clocks table-1 ... table-N"),
            arg("--out", metavar="DIR", help="where (default: the hall's folder's broker/)"),
            arg("--port", type=ranged(1, 65535), default=1883, help="MQTT (default 1883)"),
            arg("--ws-port", type=ranged(1, 65535), default=9001, help="WebSocket (default 9001)"),
            arg("--bind", default="0.0.0.0", help="the address to listen on (default all)"),
            arg("--spectators", action="store_true", help="anonymous read-only: state, event"),
            arg("--tls-cert", metavar="FILE", help="the broker's certificate (PEM): TLS"),
            arg("--tls-key", metavar="FILE", help="its private key (PEM)"),
            arg(
                "--log-refused",
                action="store_true",
                help="log each refused message (Mosquitto's debug log: every message)",
            ),
        )
        + hall_connect(sub=True),
        json=False,
        device=False,
    ),
)

NOTATION_HELP = (
    "time control, like: cn 2h/5 | byo 1h+5x30s | sd 30m | can 1h+15/10m [carry] | "
    "fischer 5m+3s [max 10m] | bronstein 5m+3s | delay 5m+3s | hourglass 5m | untimed | "
    "ing 3h+3x20m | time_settings 1800 600 25 | kgs-time_settings byoyomi 1800 30 5; "
    "options (also after --file, --from-sgf, --from-ogs, --preset): white=10m calls=none "
    "first=white"
)

COMMANDS = (
    Command("ports", "device:do_ports", "list serial ports and which answer as a goclock"),
    Command("info", "device:do_info", "firmware version, board, free flash and RAM, battery"),
    Command("status", "device:do_status", "both clocks, whose turn, overtime left"),
    Command(
        "watch",
        "device:do_watch",
        "follow the clock live, each call as it is spoken (Ctrl-C leaves)",
        (arg("--seconds", type=float, default=None, help="stop after this many seconds"),),
    ),
    Group(
        "config",
        "the clock's stored settings",
        (
            Command("show", "config:do_config_show", "print the clock's config"),
            Command(
                "set",
                "config:do_config_set",
                "set the time control and other settings",
                (
                    arg("notation", nargs="*", help=NOTATION_HELP),
                    arg("--file", help="a JSON file: a time control, or config fields"),
                    arg(
                        "--from-sgf",
                        metavar="SGF",
                        help="the time control of an SGF game record (TM/OT, Fox TC/TT, LC/LT)",
                    ),
                    arg(
                        "--from-ogs",
                        metavar="JSON",
                        help="an OGS time-control object (or a game holding one)",
                    ),
                    arg("--preset", help="the time control of a preset (goclock presets list)"),
                    arg("--volume", type=ranged(0, 10), help="0 (silent) to 10"),
                    arg("--voice", help="voice pack, e.g. zh"),
                    arg("--left-button", choices=SIDES, help="whose button is the left one"),
                    arg("--event", help="the game's details, for the next game's record: event"),
                    arg("--round", type=ranged(1, 9999), help="the round (from 1)"),
                    arg("--table", type=ranged(1, 9999), help="the table (from 1)"),
                    arg("--black", metavar="NAME", help="Black's name"),
                    arg("--white", metavar="NAME", help="White's name"),
                    arg("--handicap", type=ranged(0, 9), help="handicap stones (0 to 9)"),
                    arg(
                        "--network",
                        metavar="FILE",
                        help="a JSON file: the network object (Wi-Fi, broker, hall: docs/hall.md)",
                    ),
                    arg("--dry-run", action="store_true", help="check and print, send nothing"),
                ),
                negative=True,
            ),
        ),
    ),
    Group(
        "presets",
        "named time controls: built-in ones and your own",
        (
            Command(
                "list",
                "config:do_presets_list",
                "built-in and your presets (--device: those on the clock)",
                (
                    arg(
                        "--device",
                        action="store_true",
                        help="list the presets stored on the clock",
                    ),
                ),
            ),
            Command(
                "add",
                "config:do_presets_add",
                "save a preset of your own",
                (
                    arg("name"),
                    arg("notation", nargs="+"),
                    arg("--about", help="a note shown in the list"),
                    arg(
                        "--force",
                        action="store_true",
                        help="replace a built-in preset of that name",
                    ),
                ),
                json=False,
                device=False,
                negative=True,
            ),
            Command(
                "remove",
                "config:do_presets_remove",
                "delete one of your presets",
                (arg("name"),),
                json=False,
                device=False,
            ),
            Command(
                "push",
                "config:do_presets_push",
                "store presets on the clock (default: yours, or the built-ins), replacing "
                "its own after saying which",
                (
                    arg("names", nargs="*", help="presets to push, in order (at most 10)"),
                    arg("--yes", action="store_true", help="replace without asking (scripts)"),
                ),
            ),
        ),
    ),
    Command("pause", "arbiter:do_pause", "stop both clocks"),
    Command("resume", "arbiter:do_resume", "restart the clock that was running"),
    Command(
        "reset",
        "arbiter:do_reset",
        "end the game and load the configured time control",
        (
            arg(
                "--preset",
                help="load a preset from the clock instead (its number from 1, or its name)",
            ),
            arg(
                "--yes",
                action="store_true",
                help="end a game in progress without asking (scripts)",
            ),
        ),
    ),
    Command("press", "arbiter:do_press", "press a player's button (demos, tests)", (SIDE,)),
    Command(
        "late",
        "arbiter:do_late",
        "mark a player absent at the start: their clock runs until they arrive (art. 22)",
        (SIDE,),
    ),
    Command(
        "arrive",
        "arbiter:do_arrive",
        "a late player arrives: charged twice the lateness in all",
        (SIDE,),
    ),
    Group(
        "time",
        "arbiter adjustment of a player's time (only while paused)",
        (
            Command(
                "set",
                "arbiter:do_time_set",
                "set a side's time, e.g. `time set black 25:00 --periods 3`",
                (
                    SIDE,
                    arg("clock", nargs="?", help="main time left: 25:00, 1:30:00, 25m"),
                    arg(
                        "--periods",
                        type=ranged(0, None),
                        help="byo-yomi periods left",
                    ),
                    arg("--period", help="time left in the current period or block: 30s"),
                    arg(
                        "--moves",
                        type=ranged(0, None),
                        help="moves left in the current Canadian block",
                    ),
                ),
                negative=True,
            ),
        ),
    ),
    Group(
        "logs",
        "game logs: list, pull and verify, export",
        (
            Command("list", "logs:do_list", "the game logs on the clock"),
            Command(
                "pull",
                "logs:do_pull",
                "copy game logs to DIR and verify them (resumes a cut pull)",
                (
                    arg(
                        "game",
                        nargs="?",
                        type=int,
                        help="game number (default: the last game)",
                    ),
                    arg("--all", action="store_true", help="every game on the clock"),
                    arg("-o", "--output", default=".", help="directory (default: here)"),
                ),
            ),
            Command(
                "verify",
                "logs:do_verify",
                "check pulled logs: the checksum chain, the moves, the times",
                (arg("files", nargs="+", metavar="FILE", help="pulled log files"),),
                device=False,
            ),
            Command(
                "export",
                "logs:do_export",
                "a game log as JSON or CSV: every record, the arbiter's actions, the totals",
                (
                    LOG,
                    arg("--format", choices=("json", "csv"), default="json"),
                    arg("-o", "--output", help="file (default: standard output)"),
                    FORCE_LOG,
                ),
            ),
            Command(
                "sgf",
                "logs:do_sgf",
                "the times as SGF (BL/WL, OB/OW, TM/OT, the arbiter's actions as comments), "
                "merged into a game record or on their own",
                (
                    LOG,
                    arg(
                        "--merge",
                        metavar="SGF",
                        help="the game record to add times to (default: an SGF of the times alone)",
                    ),
                    arg(
                        "-o",
                        "--output",
                        default="-",
                        help="the timed SGF to write (default or -: standard output)",
                    ),
                    FORCE_LOG,
                ),
                json=False,
            ),
            Command(
                "report",
                "logs:do_report",
                "time per move, the arbiter's actions and what explains the time left",
                (
                    LOG,
                    arg("--plot", metavar="PNG", help="also draw a chart into this image file"),
                    FORCE_LOG,
                ),
            ),
            Command(
                "clear",
                "logs:do_clear",
                "delete finished games from the clock (only those pulled, and after asking)",
                (
                    arg(
                        "game",
                        nargs="?",
                        type=int,
                        help="one game (default: every finished game)",
                    ),
                    arg("--yes", action="store_true", help="delete without asking (scripts)"),
                    arg(
                        "--force",
                        action="store_true",
                        help="delete games never pulled to this computer too",
                    ),
                ),
                json=False,
            ),
        ),
    ),
    Command(
        "deploy",
        "deploy:do_deploy",
        "compile the firmware and copy it to a board",
        (
            arg("--board", choices=resources.board_names, required=True),
            arg(
                "--force",
                action="store_true",
                help="deploy even while a game runs (it is lost!)",
            ),
            arg("--voice", default="zh", help="voice pack to copy (default zh; 'none' for none)"),
            arg(
                "--dry-run",
                action="store_true",
                help="build, list what would be copied, copy nothing",
            ),
            arg(
                "--no-mip",
                action="store_true",
                help="do not install the display driver (ssd1306) with mip: offline, or "
                "installed by hand (mpremote mip install ssd1306)",
            ),
            arg(
                "--romfs",
                action="store_true",
                help="the package to the board's ROMFS partition (run from flash, not loaded "
                "into the heap); the board's MicroPython must have one (goclock's rp2 image)",
            ),
        ),
        json=False,
    ),
    Group(
        "voice",
        "voice packs: what to record, converting it, checking a pack, pushing one to the clock",
        (
            Command(
                "phrases",
                "voice:do_voice_phrases",
                "what to record for a pack: each file, its phrase, how long it may last",
                (
                    one_of(
                        arg("--profile", choices=PROFILES, help="call profile (default cn)"),
                        arg("--like", metavar="PACK", help="the profile of this pack (zh, ja, en)"),
                    ),
                ),
                device=False,
            ),
            Command(
                "convert",
                "voice:do_voice_convert",
                "turn a folder of recordings (any WAV, one per phrase) into a pack the clock plays",
                (
                    arg(
                        "src",
                        help="the folder of recordings, named as the clips (count_1.wav, ...)",
                    ),
                    arg("out", help="the pack folder to write"),
                    one_of(
                        arg(
                            "--profile",
                            choices=PROFILES,
                            help="the call profile, whose phrases are needed "
                            "(default: guessed from the names)",
                        ),
                        arg(
                            "--like",
                            metavar="PACK",
                            help="the phrases of this pack (zh, ja, en, or a pack folder)",
                        ),
                    ),
                    one_of(
                        arg(
                            "--target-lufs",
                            type=float,
                            metavar="LUFS",
                            help="the loudness every clip is brought to "
                            "(default -16, BS.1770 integrated)",
                        ),
                        arg(
                            "--gain",
                            type=float,
                            metavar="DB",
                            help="instead, the same fixed gain for every clip (levels as recorded)",
                        ),
                    ),
                    arg("--force", action="store_true", help="replace the pack already in OUT"),
                ),
                device=False,
            ),
            Command(
                "check",
                "voice:do_voice_check",
                "report missing phrases, bad formats, clips too long",
                (PACK, PACK_PROFILE),
                device=False,
            ),
            Command(
                "push",
                "voice:do_voice_push",
                "upload a voice pack to the clock",
                (PACK, PACK_PROFILE),
                json=False,
            ),
        ),
    ),
    Command(
        "bridge",
        "bridge:do_bridge",
        "share the clock's line: commands at once, web pages (--web), the hall (--hall)",
        (
            arg("--web", action="store_true", help="serve a WebSocket for web pages"),
            arg("--web-host", default="127.0.0.1", help="its address (default: loopback)"),
            arg(
                "--web-port",
                type=ranged(0, 65535),
                default=0,
                help="its port (default: a free one)",
            ),
            arg(
                "--origin",
                action="append",
                metavar="URL",
                help="a web page origin allowed to connect, e.g. http://127.0.0.1:8000 "
                "(repeatable)",
            ),
            arg(
                "--web-password-file",
                metavar="FILE",
                help="the password a page needs beyond loopback (or $GOCLOCK_BRIDGE_PASSWORD)",
            ),
            arg("--hall", help="publish this clock to a hall over MQTT (the hall's name)"),
            arg("--clock", help="the clock's name in the hall, e.g. table-12"),
            arg("--broker", default="127.0.0.1:1883", help="the MQTT broker HOST[:PORT]"),
            arg("--mqtt-user", help="the clock's broker account"),
            arg(
                "--mqtt-password-file",
                metavar="FILE",
                help="its password (or $GOCLOCK_MQTT_PASSWORD)",
            ),
            arg(
                "--state-dir",
                metavar="DIR",
                help="where the log cursor is kept (default: ~/.config/goclock/bridge)",
            ),
            arg("-v", "--verbose", action="store_true", help="log every line"),
        ),
        json=False,
    ),
    Command(
        "result",
        "hall:do_result",
        "a game's result, written into its log (any SGF RE: B+R, W+T, B+3.5, 0, Void, ?)",
        (
            arg("game", type=ranged(1, None), help="the game's number on the clock"),
            arg("result", help="the result, as SGF RE"),
        ),
    ),
    Group(
        "hall",
        "the tournament hall over MQTT: every clock live, every log collected (docs/hall.md)",
        HALL_COMMANDS,
        handler="hall:do_hall",
        args=hall_connect(),
    ),
    Command(
        "web",
        "web:do_web",
        "the web app at http://127.0.0.1:PORT/, the clock (goclock --port PATH web) bridged "
        "to its pages",
        (
            arg(
                "--port",
                dest="web_port",
                type=ranged(0, 65535),
                default=8000,
                help="the web server's port (default 8000; 0: a free one)",
            ),
            arg("--sim", action="store_true", help="bridge a simulated clock (unix port)"),
            arg("--flash", metavar="DIR", help="the simulated clock's flash folder"),
            arg("--dist", metavar="DIR", help="the built app (default: web/dist)"),
        ),
        json=False,
        device=False,
    ),
    Command(
        "simulate",
        "scenario:do_simulate",
        "run a scenario through the clock core, print JSON Lines",
        (
            arg("scenario", help="scenario JSON file"),
            arg("--engine", choices=("cpython", "micropython"), default="cpython"),
        ),
        json=False,
        device=False,
        described=False,
    ),
)
