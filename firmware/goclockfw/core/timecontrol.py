"""Time controls: the JSON form, its validation, and the per-side settings in ms.

The same JSON form is used by the simulator, the device config and the host
tool. Durations are given in seconds (int or float) and kept as integer
milliseconds from here on; nothing after parsing uses floats.

    {"type": "byoyomi", "main": 6900, "periods": 5, "period": 60}
    {"type": "canadian", "main": 3600, "moves": 15, "period": 600, "carry": false}
    {"type": "fischer", "main": 300, "increment": 5, "max": 600}
    {"type": "delay", "main": 300, "delay": 5, "mode": "bronstein"}
    {"type": "sudden_death", "main": 1800, "white": {"main": 600}}
    {"type": "hourglass", "main": 60}
    {"type": "untimed"}
    {"type": "ing", "main": 10800, "periods": 3, "period": 1200, "penalty": 2}

Optional on every type: "calls" (a call profile name, "cn" by default, "none"
for silence), "first" (the side that starts: "black", or "white" in a handicap
game), "late_limit" (seconds of lateness that lose the game, 900 by default),
and "black"/"white" objects overriding any duration or count for that side
(time odds).

Bounds. Every time value the clock ever holds must stay a small int on a
32-bit MicroPython port (31-bit signed: below 2**30) and every tick difference
must stay below half the tick period (2**29 ms). So a side can never hold more
than MAX_HOLD_MS (48 h, a third of 2**29): main time and every period together,
a Canadian block with what it carried, a Fischer ceiling (uncapped Fischer gets
MAX_HOLD_MS as its ceiling), and for the hourglass both sides together; counts,
increments, periods and the late limit stay within what a tournament could use.
Counters that are not time left (a move's time, a side's total, the game's)
stop at COUNTER_CAP_MS (2**28 ms, 74 h) instead of growing.
"""

SUDDEN_DEATH = "sudden_death"
BYOYOMI = "byoyomi"
CANADIAN = "canadian"
FISCHER = "fischer"
DELAY = "delay"
HOURGLASS = "hourglass"
UNTIMED = "untimed"
ING = "ing"

# Keys each type takes, beside the common ones. The first group is required.
_TYPE_KEYS = {
    SUDDEN_DEATH: (("main",), ()),
    BYOYOMI: (("main", "periods"), ("period",)),
    CANADIAN: (("main", "moves", "period"), ("carry",)),
    FISCHER: (("main", "increment"), ("max",)),
    DELAY: (("main", "delay"), ("mode",)),
    HOURGLASS: (("main",), ()),
    UNTIMED: ((), ()),
    ING: (("main", "periods", "period"), ("penalty",)),
}
# Keys that hold for the whole game: a side cannot override them.
_SHARED_KEYS = ("carry", "mode", "penalty")
_COMMON_KEYS = ("type", "calls", "first", "late_limit", "black", "white")
_DELAY_MODES = ("bronstein", "simple")

# ----- bounds (see the module docstring) --------------------------------------
_MAX_SECONDS = 172800  # 48 h: the longest single duration
MAX_HOLD_MS = 172800000  # 48 h: the most a side can ever hold (hourglass: both sides)
COUNTER_CAP_MS = 1 << 28  # a move's time, a side's total, the game's time stop here
MAX_PERIODS = 600  # byo-yomi or Ing periods (480 one-minute periods: an 8 h title game)
MAX_MOVES = 200  # moves of a Canadian block
MAX_STEP_MS = 3600000  # a Fischer increment or a delay: 1 h
MAX_PENALTY = 100  # points per Ing overtime period
MIN_PERIOD_MS = 1000  # any period or block
MIN_SPOKEN_PERIOD_MS = 10000  # a byo-yomi period with spoken calls (the count to ten)
MIN_LATE_MS = 5000  # the late limit
DEFAULT_PENALTY = 2  # Ing: 2 points per overtime period

# The sides' names, Black's first (its index is the side: 0 black, 1 white), as every
# JSON form of the project writes them; the other modules take them from here.
SIDE_NAMES = ("black", "white")

# Call profiles the core knows; core/callplan.py has the schedules.
CALL_PROFILES = ("cn", "jp", "en", "none")


class ConfigError(ValueError):
    """A time control that cannot be used; the message names the field."""


def seconds_to_ms(field, value):
    """A duration in seconds (int or float) as integer ms; ConfigError naming `field` if bad."""
    # bool is an int subclass in Python: reject it explicitly. NaN (which CPython's json
    # reads) equals nothing, itself included, and would pass the range checks below.
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise ConfigError("%s: must be a number of seconds, got %r" % (field, value))
    if value < 0:
        raise ConfigError("%s: must not be negative, got %r" % (field, value))
    if value > _MAX_SECONDS:
        raise ConfigError("%s: at most %d seconds, got %r" % (field, _MAX_SECONDS, value))
    if isinstance(value, int):
        return value * 1000
    return int(value * 1000 + 0.5)


def _count(field, value, minimum, maximum):
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError("%s: must be a whole number, got %r" % (field, value))
    if value < minimum or value > maximum:
        raise ConfigError("%s: must be from %d to %d, got %r" % (field, minimum, maximum, value))
    return value


def _ms_to_seconds(ms):
    return ms // 1000 if ms % 1000 == 0 else ms / 1000


class SideSettings:
    """One side's time allowance, all durations in integer ms."""

    _NAMES = ("main_ms", "periods", "period_ms", "moves", "increment_ms", "delay_ms", "max_ms")

    def __init__(self):
        self.main_ms = 0
        self.periods = 0
        self.period_ms = 0
        self.moves = 0
        self.increment_ms = 0
        self.delay_ms = 0
        self.max_ms = 0  # Fischer: the cap given ("max"), 0 when none
        self.ceiling_ms = MAX_HOLD_MS  # Fischer: the cap in force (max, else MAX_HOLD_MS)

    def copy(self):
        other = SideSettings()
        for name in self._NAMES:
            setattr(other, name, getattr(self, name))
        return other


def _apply(side, field, value, prefix):
    name = prefix + field
    if field == "main":
        side.main_ms = seconds_to_ms(name, value)
    elif field == "periods":
        side.periods = _count(name, value, 0, MAX_PERIODS)
    elif field == "period":
        side.period_ms = seconds_to_ms(name, value)
    elif field == "moves":
        side.moves = _count(name, value, 1, MAX_MOVES)
    elif field == "increment":
        side.increment_ms = _step(name, value)
    elif field == "delay":
        side.delay_ms = _step(name, value)
    elif field == "max":
        side.max_ms = seconds_to_ms(name, value)


def _step(name, value):
    ms = seconds_to_ms(name, value)
    if ms > MAX_STEP_MS:
        raise ConfigError("%s: at most %d seconds, got %r" % (name, MAX_STEP_MS // 1000, value))
    return ms


class TimeControl:
    """A validated time control; `sides[0]` is Black's allowance, `sides[1]` White's."""

    def __init__(self, kind):
        self.kind = kind
        self.calls = "cn"
        self.first = 0
        self.late_limit_ms = 900000
        self.carry = False
        self.delay_mode = "bronstein"
        self.penalty = DEFAULT_PENALTY
        self.sides = (SideSettings(), SideSettings())
        self._overrides = ({}, {})

    def to_json(self):
        """The normalised JSON form (seconds), which `parse` accepts again."""
        base = self.sides[0]
        out = {"type": self.kind}
        if self.kind != UNTIMED:
            out["main"] = _ms_to_seconds(base.main_ms)
        if self.kind == BYOYOMI or self.kind == ING:
            out["periods"] = base.periods
            # Kept with 0 periods too: `byo 1h+0x30s white.periods=3` needs it.
            if base.period_ms:
                out["period"] = _ms_to_seconds(base.period_ms)
            if self.kind == ING:
                out["penalty"] = self.penalty
        elif self.kind == CANADIAN:
            out["moves"] = base.moves
            out["period"] = _ms_to_seconds(base.period_ms)
            out["carry"] = self.carry
        elif self.kind == FISCHER:
            out["increment"] = _ms_to_seconds(base.increment_ms)
            if base.max_ms:
                out["max"] = _ms_to_seconds(base.max_ms)
        elif self.kind == DELAY:
            out["delay"] = _ms_to_seconds(base.delay_ms)
            out["mode"] = self.delay_mode
        out["calls"] = self.calls
        if self.first:
            out["first"] = "white"
        if self.late_limit_ms != 900000:
            out["late_limit"] = _ms_to_seconds(self.late_limit_ms)
        for i in (0, 1):
            if self._overrides[i]:
                out[SIDE_NAMES[i]] = dict(self._overrides[i])
        return out


def _check_keys(obj, allowed, prefix):
    for key in obj:
        if key not in allowed:
            raise ConfigError("%s%s: unknown key" % (prefix, key))


def parse(obj):
    """Validate a time-control JSON object and return a TimeControl.

    Raises ConfigError with a message that names the offending field.
    """
    if not isinstance(obj, dict):
        raise ConfigError("time control: must be a JSON object")
    kind = obj.get("type")
    if kind not in _TYPE_KEYS:
        raise ConfigError(
            "type: unknown time control %r (one of %s)" % (kind, ", ".join(sorted(_TYPE_KEYS)))
        )
    required, optional = _TYPE_KEYS[kind]
    _check_keys(obj, _COMMON_KEYS + required + optional, "")
    for key in required:
        if key not in obj:
            raise ConfigError("%s: missing (required for %s)" % (key, kind))
    tc = TimeControl(kind)
    base = tc.sides[0]
    for key in required + optional:
        if key in obj and key not in _SHARED_KEYS:
            _apply(base, key, obj[key], "")
    _parse_common(tc, obj)
    if kind == BYOYOMI and base.periods and "period" not in obj:
        raise ConfigError("period: missing (periods need a period length)")
    if kind == CANADIAN:
        carry = obj.get("carry", False)
        if not isinstance(carry, bool):
            raise ConfigError("carry: must be true or false, got %r" % (carry,))
        tc.carry = carry
    if kind == DELAY:
        mode = obj.get("mode", "bronstein")
        if mode not in _DELAY_MODES:
            raise ConfigError("mode: must be 'bronstein' or 'simple', got %r" % (mode,))
        tc.delay_mode = mode
    if kind == ING:
        tc.penalty = _count("penalty", obj.get("penalty", DEFAULT_PENALTY), 1, MAX_PENALTY)
    white = base.copy()
    tc.sides = (base, white)
    for i in (0, 1):
        override = obj.get(SIDE_NAMES[i])
        if override is None:
            continue
        prefix = SIDE_NAMES[i] + "."
        if not isinstance(override, dict):
            raise ConfigError("%s: must be an object of overrides" % SIDE_NAMES[i])
        _check_keys(override, required + optional, prefix)
        for key in override:
            if key in _SHARED_KEYS:
                raise ConfigError("%s%s: cannot differ between the sides" % (prefix, key))
            _apply(tc.sides[i], key, override[key], prefix)
        tc._overrides[i].update(override)
    for i in (0, 1):
        _check_side(tc, tc.sides[i], SIDE_NAMES[i] + "." if tc._overrides[i] else "")
    if kind == HOURGLASS and tc.sides[0].main_ms > MAX_HOLD_MS - tc.sides[1].main_ms:
        raise ConfigError(
            "main: the hourglass holds both sides' time, at most %d seconds together"
            % (MAX_HOLD_MS // 1000)
        )
    return tc


def _parse_common(tc, obj):
    calls = obj.get("calls", "cn")
    if calls not in CALL_PROFILES:
        raise ConfigError(
            "calls: unknown call profile %r (one of %s)" % (calls, ", ".join(CALL_PROFILES))
        )
    tc.calls = calls
    first = obj.get("first", "black")
    if first not in SIDE_NAMES:
        raise ConfigError("first: must be 'black' or 'white', got %r" % (first,))
    tc.first = SIDE_NAMES.index(first)
    if "late_limit" in obj:
        tc.late_limit_ms = seconds_to_ms("late_limit", obj["late_limit"])
        if tc.late_limit_ms < MIN_LATE_MS:
            raise ConfigError(
                "late_limit: at least %d seconds, got %r" % (MIN_LATE_MS // 1000, obj["late_limit"])
            )


def _check_side(tc, side, prefix):
    kind = tc.kind
    if kind == BYOYOMI:
        if side.periods:
            _check_period(tc, side.period_ms, prefix)
        elif side.main_ms <= 0:
            raise ConfigError("%smain: must be more than 0 when there are no periods" % prefix)
    elif kind == ING:
        if side.periods:
            _check_length(side.period_ms, prefix + "period")
    elif kind == CANADIAN:
        _check_length(side.period_ms, prefix + "period")
    if kind in (SUDDEN_DEATH, FISCHER, HOURGLASS, ING) and side.main_ms <= 0:
        raise ConfigError("%smain: must be more than 0" % prefix)
    if kind == DELAY and side.main_ms <= 0 and side.delay_ms <= 0:
        raise ConfigError(
            "%smain: must be more than 0 (or the delay, for a time per move)" % prefix
        )
    if kind == FISCHER:
        if side.max_ms:
            if side.max_ms < side.main_ms:
                raise ConfigError("%smax: must be at least the main time" % prefix)
            side.ceiling_ms = side.max_ms
        else:
            side.ceiling_ms = MAX_HOLD_MS
    field, over = hold_excess(tc, side, side.main_ms, side.periods)
    if over:
        raise ConfigError(
            "%s%s: a side can hold at most %d seconds in all (main time and overtime)"
            % (prefix, field, MAX_HOLD_MS // 1000)
        )


def hold_excess(tc, side, main_ms, periods):
    """(the field to blame, True) when a side with `main_ms` and `periods` could hold more
    than MAX_HOLD_MS, else (None, False). Written with divisions: nothing here becomes a
    long int, whatever the values given."""
    kind = tc.kind
    room = MAX_HOLD_MS - main_ms
    if room < 0:
        return "main", True
    if kind == BYOYOMI or kind == ING:
        if periods and side.period_ms > room // periods:
            return "periods", True
    elif kind == CANADIAN:
        if side.period_ms > room:
            return "period", True
    elif kind == DELAY:
        if side.delay_ms > room:
            return "delay", True
    elif kind == FISCHER:
        if main_ms > side.ceiling_ms:
            return "main", True
    return None, False


def _check_length(period_ms, name):
    if period_ms <= 0:
        raise ConfigError("%s: must be more than 0" % name)
    if period_ms < MIN_PERIOD_MS:
        raise ConfigError("%s: at least 1 second, got %d ms" % (name, period_ms))


def _check_period(tc, period_ms, prefix):
    _check_length(period_ms, prefix + "period")
    if tc.calls != "none":
        # Spoken calls name whole seconds and count the last ten of them.
        if period_ms % 1000:
            raise ConfigError(
                '%speriod: must be whole seconds with spoken calls (or "calls": "none")' % prefix
            )
        if period_ms < MIN_SPOKEN_PERIOD_MS:
            raise ConfigError(
                '%speriod: at least 10 s with spoken calls (or "calls": "none")' % prefix
            )
