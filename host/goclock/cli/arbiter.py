"""Arbiter commands: `pause`, `resume`, `time set`, `reset`, `late`, `arrive`, and `press`
(a virtual button).

Nothing ends a game by accident: `reset` of a game in progress (running or paused) asks in a
terminal, and in a script needs `--yes`; without a terminal to ask it refuses (exit 2). The
clock itself refuses to reset while a clock runs.
"""

from .. import ui
from ..errors import UsageError
from ..link import discovery
from ..link.refusals import in_words
from ..timecontrol import notation


def _show_state(args, reply, text):
    if args.json:
        ui.print_json(reply)
    else:
        print(text)
    return 0


def do_pause(args):
    with discovery.connect(args.port, args.timeout) as clock:
        reply = clock.request("pause")
    return _show_state(args, reply, "clock %s" % reply.get("state"))


def do_resume(args):
    with discovery.connect(args.port, args.timeout) as clock:
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
        raise UsageError(
            "say what to set: goclock time set %s 25:00 [--periods N] [--period 30s] [--moves N]"
            % args.side
        )
    for key in ("periods", "moves"):
        if req.get(key) is not None and req[key] < 0:
            raise UsageError("--%s cannot be negative" % key)
    return req


def do_time_set(args):
    req = time_set_request(args)
    with discovery.connect(args.port, args.timeout) as clock:
        reply = clock.request("time.set", **req)
    return _show_state(args, reply, "%s now: %s" % (args.side, ui.side_text(reply)))


def do_reset(args, ask=None):
    with discovery.connect(args.port, args.timeout) as clock:
        req = {}
        if args.preset is not None:
            req["preset"] = _preset_index(clock, args.preset)
        if not args.yes:
            _confirm_end(clock.request("status"), ask or ui.confirm)
        reply = clock.request("reset", **req)
    tc = reply.get("time_control")
    text = "new game ready (%s)" % (notation.format(tc) if tc else "?")
    return _show_state(args, reply, text)


def _confirm_end(st, ask):
    """Ask before a game in progress is ended; raise UsageError when not confirmed."""
    state = st.get("state")
    if state not in ("running", "paused"):
        return  # nothing played yet, or the game is over: nothing is lost
    moves = st.get("moves", 0)
    what = "the game in progress (%s, %s)" % (state, ui.plural(moves, "move"))
    answer = ask("End %s and start a new one?" % what)
    if answer is None:
        raise UsageError(
            "%s would end: run goclock reset --yes to reset from a script"
            % (what[0].upper() + what[1:])
        )
    if not answer:
        raise UsageError("reset cancelled: %s goes on" % what)


def _preset_index(clock, preset):
    """A preset given by its number (from 1, as the clock announces it) or its name."""
    if preset.isdigit():
        return int(preset)
    names = [p.get("name", "") for p in clock.request("presets.get")["presets"]]
    for i, name in enumerate(names, 1):
        if name.lower() == preset.lower():
            return i
    raise UsageError(
        "the clock has no preset %r (it has: %s)" % (preset, ", ".join(names) or "none")
    )


def do_press(args):
    with discovery.connect(args.port, args.timeout) as clock:
        reply = clock.request("press", side=args.side)
    if reply.get("accepted"):
        text = "%s pressed" % args.side
    else:  # as a player's button: an ignored press is an answer, not an error
        text = "%s press ignored: %s" % (args.side, reply.get("reason", "?"))
    return _show_state(args, reply, text)


def _side_request(args, cmd, done):
    """late, arrive: the clock answers accepted or not; a refusal is an error here."""
    with discovery.connect(args.port, args.timeout) as clock:
        reply = clock.request(cmd, side=args.side)
    if not reply.get("accepted"):
        raise _side_refused(cmd, args.side, reply)
    return _show_state(args, reply, "%s %s" % (args.side, done))


def _side_refused(cmd, side, reply):
    """A late or an arrive the clock did not accept, said in the user's words: bad input."""
    return UsageError(in_words(cmd, reply.get("reason") or "no reason given", side=side))


def do_late(args):
    return _side_request(args, "late", "marked late: their clock runs until they arrive")


def do_arrive(args):
    """The late side arrives; says what was charged (the reply's charged_ms and late_ms)."""
    with discovery.connect(args.port, args.timeout) as clock:
        reply = clock.request("arrive", side=args.side)
        if not reply.get("accepted"):
            raise _side_refused("arrive", args.side, reply)
        left = clock.request("status").get(args.side)
    return _show_state(args, reply, arrival_text(args.side, reply, left))


def arrival_text(side, reply, left):
    """What an arrival cost, in words: the rules charge twice the lateness in all; what the
    side's clock ran while it was away counts toward that, the rest comes off main time."""
    late, charged = reply.get("late_ms"), reply.get("charged_ms")
    if not isinstance(late, int) or not isinstance(charged, int):
        return "%s arrived: charged for the lateness (goclock status)" % side
    text = "%s arrived %s late: twice that, %s, is charged in all; %s came off main time now" % (
        side,
        ui.time_used(late),
        ui.time_used(2 * late),
        ui.time_used(charged),
    )
    if isinstance(left, dict):
        if left.get("main_ms") == 0 and charged > 0:
            text += ", all the main time there was"
        text += " (now %s)" % ui.side_text(left).strip()
    return text
