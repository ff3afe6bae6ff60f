"""`goclock config show|set` and `goclock presets ...`: the clock's settings and time controls."""

import json
import sys

from rich.table import Table

from .. import ui
from ..errors import GoclockError, NotationError, UsageError
from ..link import discovery
from ..timecontrol import notation, ogs, presets, sgfroot


def _tc_text(tc):
    try:
        return notation.format(tc)
    except (KeyError, TypeError, ValueError):
        return json.dumps(tc, ensure_ascii=False)


def do_config_show(args):
    with discovery.connect(args.port, args.timeout) as clock:
        cfg = clock.request("config.get")["config"]
    if args.json:
        ui.print_json(cfg)
        return 0
    rows = []
    for key in sorted(cfg):
        value = cfg[key]
        if key == "time_control":
            value = _tc_text(value)
        elif isinstance(value, (dict, list)):
            value = json.dumps(value, ensure_ascii=False)
        rows.append((key, value))
    ui.console().print(ui.kv_table(rows, title="clock config"))
    return 0


def _load_json_file(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as exc:
        raise GoclockError("cannot read %s: %s" % (path, exc.strerror or exc)) from None
    except ValueError as exc:
        raise NotationError("%s is not valid JSON: %s" % (path, exc)) from None


def _given_time_control(args, notes):
    """The time control from --file, --from-sgf, --from-ogs or --preset (unchecked), a
    config object from --file, or (None, None)."""
    if args.from_sgf:
        raw, said = sgfroot.read_sgf(args.from_sgf)
        notes.extend(said)
        return raw, None
    if getattr(args, "from_ogs", None):
        return ogs.read_file(args.from_ogs), None
    if args.preset:
        return presets.find(args.preset)["time_control"], None
    if args.file:
        data = _load_json_file(args.file)
        if not isinstance(data, dict):
            raise NotationError("%s must hold a JSON object" % args.file)
        if "type" in data:  # a bare time control
            return data, None
        return data.get("time_control"), data  # a config object
    return None, None


def config_from_args(args, notes=None):
    """The `config.set` object the arguments ask for (validated time control).

    A notation made of options only (`calls=none white=10m first=white`) modifies the time
    control given another way: `--from-sgf game.sgf calls=none`. What a source left
    unsaid and had to assume is appended to `notes`.
    """
    notes = [] if notes is None else notes
    cfg = {}
    options = args.notation and notation.is_options_only(args.notation)
    sources = [
        bool(args.notation) and not options,
        bool(args.file),
        bool(args.from_sgf),
        bool(getattr(args, "from_ogs", None)),
        bool(args.preset),
    ]
    if sum(sources) > 1:
        raise NotationError(
            "give the time control one way: notation, --file, --from-sgf, --from-ogs or "
            "--preset (options like calls=none may follow any of them)"
        )
    if args.notation and not options:
        cfg["time_control"] = notation.parse(args.notation)
    else:
        tc, config_obj = _given_time_control(args, notes)
        if config_obj is not None:
            cfg.update(config_obj)
        if tc is not None:
            cfg["time_control"] = notation.apply_options(tc, args.notation or "")
        elif options:
            raise NotationError(
                "%s: options need a time control to apply to (a notation, --file, --from-sgf, "
                "--from-ogs or --preset)" % " ".join(args.notation)
            )
    if args.volume is not None:
        if not 0 <= args.volume <= 10:
            raise GoclockError("volume: from 0 (silent) to 10, got %d" % args.volume)
        cfg["volume"] = args.volume
    if args.voice:
        cfg["voice"] = args.voice
    if args.left_button:
        cfg["buttons"] = {"left": args.left_button}
    details = {k: getattr(args, k, None) for k in GAME_DETAILS}
    details = {k: (None if v == "" else v) for k, v in details.items() if v is not None}
    if details:
        cfg["game_info"] = details
    if getattr(args, "network", None):
        network = _load_json_file(args.network)
        if not isinstance(network, dict):
            raise NotationError("%s must hold a JSON object: the network object" % args.network)
        cfg["network"] = network
    if not cfg:
        raise GoclockError(
            "nothing to set: give a time control (like %s), --file, --from-sgf, --from-ogs, "
            "--preset, --volume, --voice, --left-button, the game's details (--event, --round, "
            "--table, --black, --white, --handicap) or --network" % notation.EXAMPLES.split(",")[0]
        )
    return cfg


# The config's game_info fields (docs/protocol.md, Config), set by options of the same name.
GAME_DETAILS = ("event", "round", "table", "black", "white", "handicap")


def _with_stored_details(clock, cfg):
    """`--round 4` changes the round only: the clock replaces game_info as a whole, so the
    fields not given are the ones it holds."""
    if "game_info" in cfg:
        stored = clock.request("config.get")["config"].get("game_info") or {}
        cfg["game_info"] = dict(stored, **cfg["game_info"])
    return cfg


def do_config_set(args):
    notes = []
    cfg = config_from_args(args, notes)
    for note in notes:
        print("goclock: note: %s" % note, file=sys.stderr)
    if args.dry_run:
        if args.json:
            ui.print_json(_hidden(cfg))
        else:
            print(_summary(cfg))
        return 0
    with discovery.connect(args.port, args.timeout) as clock:
        stored = clock.request("config.set", config=_with_stored_details(clock, cfg))["config"]
    if args.json:
        ui.print_json(stored)
    else:
        print("clock config set: %s" % _summary(cfg))
        if "time_control" in cfg:
            print("the new time control starts with the next game (goclock reset)")
    return 0


def _hidden(value):
    """`value` with every password shown as *** (secrets are never echoed)."""
    if isinstance(value, dict):
        return {k: ("***" if k == "password" else _hidden(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_hidden(v) for v in value]
    return value


def _summary(cfg):
    parts = []
    for key in sorted(cfg):
        value = (
            _tc_text(cfg[key])
            if key == "time_control"
            else json.dumps(_hidden(cfg[key]), ensure_ascii=False)
        )
        parts.append("%s %s" % (key.replace("_", " "), value))
    return "; ".join(parts)


def do_presets_list(args):
    if args.device:
        with discovery.connect(args.port, args.timeout) as clock:
            data = clock.request("presets.get")["presets"]
        # Numbered from 1, as the clock announces them ("预设1", "预设2" ...).
        cols = ("#", "name", "time control")
        rows = [
            (str(i), p.get("name"), _tc_text(p.get("time_control", {})))
            for i, p in enumerate(data, 1)
        ]
    else:
        data = presets.all_presets()
        cols = ("name", "time control", "about", "")
        rows = [
            (p["name"], _tc_text(p["time_control"]), p.get("about", ""), p["origin"]) for p in data
        ]
    if args.json:
        ui.print_json(data)
        return 0
    table = Table(show_header=True, header_style="bold")
    for col in cols:
        table.add_column(col)
    for row in rows:
        table.add_row(*row)
    ui.console().print(table)
    return 0


def do_presets_add(args):
    entry = presets.add(args.name, args.notation, args.about or "", force=args.force)
    print("preset %s: %s (saved in %s)" % (entry["name"], entry["notation"], presets.home()))
    return 0


def do_presets_remove(args):
    presets.remove(args.name)
    print("preset %s removed" % args.name)
    return 0


def do_presets_push(args, ask=None):
    """Store presets on the clock, saying what they replace; asks first (--yes in scripts)."""
    items = presets.for_clock(args.names)
    with discovery.connect(args.port, args.timeout) as clock:
        old = clock.request("presets.get")["presets"]
        if _preset_list(old) == _preset_list(items):
            print(
                "the clock has %s already: nothing to replace"
                % ("this preset" if len(items) == 1 else "these %d presets" % len(items))
            )
            return 0
        if not args.yes:
            _confirm_presets(old, items, ask or ui.confirm)
        stored = clock.request("presets.set", presets=items)["presets"]
    if args.json:
        ui.print_json(stored)
        return 0
    for i, p in enumerate(stored, 1):
        print("%d  %s  %s" % (i, p.get("name"), _tc_text(p.get("time_control", {}))))
    print("%s on the clock" % ui.plural(len(stored), "preset"))
    return 0


def _preset_list(items):
    return [(p.get("name"), _tc_text(p.get("time_control", {}))) for p in items]


def _confirm_presets(old, new, ask):
    """Show the presets the clock has and what replaces them; UsageError unless confirmed."""

    def listing(items):
        return "; ".join("%d %s (%s)" % (i, n, tc) for i, (n, tc) in enumerate(items, 1))

    print("the clock's %s: %s" % (ui.plural(len(old), "preset"), listing(_preset_list(old))))
    print("to be replaced by %s: %s" % (len(new), listing(_preset_list(new))))
    what = "the clock's %s with %s" % (
        ui.plural(len(old), "preset"),
        "this one" if len(new) == 1 else "these %d" % len(new),
    )
    answer = ask("Replace %s?" % what)
    if answer is None:
        raise UsageError(
            "pushing would replace %s: run goclock presets push --yes from a script" % what
        )
    if not answer:
        raise UsageError("nothing pushed: the clock keeps its presets")
