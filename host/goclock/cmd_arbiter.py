"""Arbiter commands: `pause`, `resume`, `time set`, `reset`, and `press` (a virtual button)."""

from . import device, notation, ui
from .errors import GoclockError


def _show_state(args, reply, text):
    if args.json:
        ui.print_json(reply)
    else:
        print(text)
    return 0


def do_pause(args):
    with device.connect(args.port, args.timeout) as clock:
        reply = clock.request("pause")
    return _show_state(args, reply, "clock %s" % reply.get("state"))


def do_resume(args):
    with device.connect(args.port, args.timeout) as clock:
        reply = clock.request("resume")
    return _show_state(args, reply, "clock %s" % reply.get("state"))


def time_set_request(args):
    """The `time.set` arguments: CLOCK is the main time left; the options the overtime."""
    req = {"side": args.side}
    if args.clock is not None:
        req["main"] = notation.parse_duration(args.clock)
    if args.periods is not None:
        req["periods"] = args.periods
    if args.period is not None:
        req["period"] = notation.parse_duration(args.period)
    if args.moves is not None:
        req["moves"] = args.moves
    if len(req) == 1:
        raise GoclockError(
            "say what to set: goclock time set %s 25:00 [--periods N] [--period 30s] [--moves N]"
            % args.side
        )
    for key in ("periods", "moves"):
        if req.get(key) is not None and req[key] < 0:
            raise GoclockError("--%s cannot be negative" % key)
    return req


def do_time_set(args):
    req = time_set_request(args)
    with device.connect(args.port, args.timeout) as clock:
        reply = clock.request("time.set", **req)
    return _show_state(args, reply, "%s now: %s" % (args.side, ui.side_text(reply)))


def do_reset(args):
    with device.connect(args.port, args.timeout) as clock:
        req = {}
        if args.preset is not None:
            req["preset"] = _preset_index(clock, args.preset)
        reply = clock.request("reset", **req)
    tc = reply.get("time_control")
    text = "new game ready (%s)" % (notation.format(tc) if tc else "?")
    return _show_state(args, reply, text)


def _preset_index(clock, preset):
    """A preset given by its number (from 1, as the clock announces it) or its name."""
    if preset.isdigit():
        return int(preset)
    names = [p.get("name", "") for p in clock.request("presets.get")["presets"]]
    for i, name in enumerate(names, 1):
        if name.lower() == preset.lower():
            return i
    raise GoclockError(
        "the clock has no preset %r (it has: %s)" % (preset, ", ".join(names) or "none")
    )


def do_press(args):
    with device.connect(args.port, args.timeout) as clock:
        reply = clock.request("press", side=args.side)
    if reply.get("accepted"):
        text = "%s pressed" % args.side
    else:
        text = "%s press ignored: %s" % (args.side, reply.get("reason", "?"))
    return _show_state(args, reply, text)
