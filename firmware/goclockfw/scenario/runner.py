"""Run a scenario through the clock core and write what happens as JSON Lines.

    micropython scenario/runner.py SCENARIO.json    (the MicroPython unix port; - reads
                                                 the scenario from standard input)
    goclock simulate SCENARIO.json              (CPython, through the host tool)

A scenario is {"time_control": {...}, "events": [{"t": ms, "do": ..., ...}],
"until": ms}. Virtual time jumps from deadline to deadline: every line carries
the exact millisecond of what it reports. Without "until" the game is played to
its end: the final line comes when a side has lost (or at the last event, when
no clock runs after it or the game is untimed, which never ends by itself). Each line is an event in the one
format of goclockfw/events.py (the protocol's event lines and the game log's
records are the same objects), byte-identical on CPython and MicroPython.

An optional "tick_offset" starts the clock's tick counter there instead of at
0 (e.g. just before the 2**30 wrap): the output must not change.
"""

import json
import sys

from goclockfw.core import gameclock, timecontrol
from goclockfw.core.gameclock import RUNNING
from goclockfw.core.ticks import TICKS_PERIOD, ticks_add, ticks_diff
from goclockfw.core.timecontrol import UNTIMED
from goclockfw.events import EventWriter

ACTIONS = ("start", "press", "pause", "resume", "adjust", "timeout_pass", "late", "arrive")
_SIDE_OF = {name: i for i, name in enumerate(gameclock.SIDE_NAMES)}
_SCENARIO_KEYS = ("time_control", "events", "until", "tick_offset")
_EVENT_KEYS = ("t", "do", "side", "main", "periods", "period", "moves")


class ScenarioError(ValueError):
    """A scenario file that cannot be run; the message names the field."""


def _int_ms(field, v):
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise ScenarioError("%s: must be a whole number of ms >= 0, got %r" % (field, v))
    return v


def check_scenario(obj):
    """Validate a scenario; returns (TimeControl, events, until or None, tick_offset)."""
    if not isinstance(obj, dict):
        raise ScenarioError("scenario: must be a JSON object")
    for key in obj:
        if key not in _SCENARIO_KEYS:
            raise ScenarioError("%s: unknown key" % key)
    if "time_control" not in obj:
        raise ScenarioError("time_control: missing")
    if not isinstance(obj["time_control"], dict):
        raise ScenarioError(
            'time_control: must be a JSON object like {"type": "byoyomi", "main": 600, '
            '"periods": 3, "period": 30} (goclock simulate also reads a notation: "byo '
            '10m+3x30s")'
        )
    try:
        tc = timecontrol.parse(obj["time_control"])
    except timecontrol.ConfigError as exc:
        raise ScenarioError("time_control.%s" % exc) from None
    events = obj.get("events", [])
    if not isinstance(events, list):
        raise ScenarioError("events: must be a list")
    last = 0
    for i, ev in enumerate(events):
        where = "events[%d]" % i
        if not isinstance(ev, dict):
            raise ScenarioError("%s: must be an object" % where)
        for key in ev:
            if key not in _EVENT_KEYS:
                raise ScenarioError("%s.%s: unknown key" % (where, key))
        t = _int_ms(where + ".t", ev.get("t"))
        if t < last:
            raise ScenarioError("%s.t: events must be in time order" % where)
        last = t
        if ev.get("do") not in ACTIONS:
            raise ScenarioError("%s.do: must be one of %s" % (where, ", ".join(ACTIONS)))
        side = ev.get("side")
        if side is not None and side not in _SIDE_OF:
            raise ScenarioError("%s.side: must be black or white" % where)
        if side is None and ev["do"] in ("press", "adjust", "late", "arrive"):
            raise ScenarioError("%s.side: missing" % where)
        _check_values(ev, where)
    until = _int_ms("until", obj["until"]) if "until" in obj else None
    if until is not None and until < last:
        raise ScenarioError("until: before the last event")
    offset = _int_ms("tick_offset", obj.get("tick_offset", 0)) % TICKS_PERIOD
    return tc, events, until, offset


def _check_values(ev, where):
    # The adjust values' types and units; whether the clock takes them is its own call.
    for key in ("main", "period"):
        if ev.get(key) is not None:
            try:
                timecontrol.seconds_to_ms(key, ev[key])
            except timecontrol.ConfigError as exc:
                raise ScenarioError("%s.%s" % (where, exc)) from None
    for key in ("periods", "moves"):
        v = ev.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
            raise ScenarioError("%s.%s: must be a whole number, got %r" % (where, key, v))


class _Printer:
    """Turns the clock's listener calls into output lines (goclockfw/events.py's format)."""

    def __init__(self, write, base_tick):
        self.write = write
        self.base_tick = base_tick
        self.ref_t = 0  # scenario time of the event being handled
        self.clock = None
        self.events = EventWriter()

    def t_of(self, tick):
        return self.ref_t + ticks_diff(tick, ticks_add(self.base_tick, self.ref_t))

    def line(self, data):
        self.write(bytes(data).decode() + "\n")

    def on_clock(self, kind, side, tick, value):
        w = self.events
        w.clock_event(self.clock, kind, side, self.t_of(tick), tick, value)
        self.line(w.line)


def _seconds_ms(ev, key):
    v = ev.get(key)
    return None if v is None else timecontrol.seconds_to_ms(key, v)


def _apply(clock, ev, tick):
    do = ev["do"]
    side = _SIDE_OF.get(ev.get("side"))
    if do == "start":
        return clock.start(tick, side)
    if do == "press":
        return clock.press(tick, side)
    if do == "pause":
        return clock.pause(tick)
    if do == "resume":
        return clock.resume(tick)
    if do == "timeout_pass":
        return clock.timeout_pass(tick)
    if do == "late":
        return clock.late(tick, side)
    if do == "arrive":
        return clock.arrive(tick, side)
    clock.advance(tick)
    try:
        clock.adjust(
            side,
            main_ms=_seconds_ms(ev, "main"),
            periods=ev.get("periods"),
            period_ms=_seconds_ms(ev, "period"),
            moves=ev.get("moves"),
            now=tick,
        )
    except gameclock.ClockError as exc:
        clock.reason = str(exc)
        return False
    return True


def _play_out(clock, printer, base_tick, t):
    """No "until": run from deadline to deadline until a side loses; the time it ends.

    An untimed clock never ends (its hourly rebases would run for ever), and a clock that
    does not run has nothing to wait for: both stop at the last event, `t`."""
    if clock.tc.kind == UNTIMED:
        return t
    while clock.state == RUNNING:
        tick = clock.next_deadline()
        if tick is None:
            break
        t += ticks_diff(tick, ticks_add(base_tick, t))
        printer.ref_t = t
        clock.advance(tick)
    return t


def run(obj, write):
    """Run a scenario object, writing each output line with `write(str)`."""
    tc, events, until, base_tick = check_scenario(obj)
    printer = _Printer(write, base_tick)
    clock = gameclock.GameClock(tc, printer)
    printer.clock = clock
    for ev in events:
        t = ev["t"]
        printer.ref_t = t
        tick = ticks_add(base_tick, t)
        if not _apply(clock, ev, tick):
            side = _SIDE_OF.get(ev.get("side"), -1)
            extra = (("do", ev["do"]),)
            printer.events.event("ignored", t, side, clock.reason, extra)
            printer.line(printer.events.line)
    if until is None:
        until = _play_out(clock, printer, base_tick, events[-1]["t"] if events else 0)
    printer.ref_t = until
    end_tick = ticks_add(base_tick, until)
    clock.advance(end_tick)
    w = printer.events
    w.begin("final", until)
    w.status("black", clock.side_status(0, end_tick))
    w.status("white", clock.side_status(1, end_tick))
    w.end()
    printer.line(w.line)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: scenario/runner.py SCENARIO.json\n")
        return 2
    try:
        if argv[1] == "-":
            obj = json.loads(sys.stdin.read())
        else:
            with open(argv[1]) as f:
                obj = json.loads(f.read())
    except OSError as exc:
        sys.stderr.write("simulate: cannot read %s: %s\n" % (argv[1], exc))
        return 2
    except ValueError as exc:
        sys.stderr.write("simulate: %s is not valid JSON: %s\n" % (argv[1], exc))
        return 2
    try:
        run(obj, sys.stdout.write)
    except ScenarioError as exc:
        sys.stderr.write("simulate: %s\n" % exc)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
