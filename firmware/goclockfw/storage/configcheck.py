"""The config's and the presets' checks and defaults: every field named when refused.

    {"time_control": {...}, "buttons": {"left": "black"}, "volume": 7,
     "voice": "zh", "battery_low_mv": 3500, "game_info": {...}, "network": null}

`validate_config` checks a whole config (time control through `timecontrol.parse`;
`game_info` and `network` through storage/netconfig.py) and fills missing fields with
defaults; `validate_presets` a preset list; their ConfigError messages name the field.
`field` and `preset` check one stored field or preset (storage/configstore.py's load,
which falls back to the default of each one that fails).

Used while the config is read at boot and by `config.set` and `presets.set`, not while a
clock runs: the session lets it go after them (goclockfw/modules.py). The factory presets
are the host tool's built-ins too (host/goclock/timecontrol/presets.py reads them here).
"""

from goclockfw.core.timecontrol import SIDE_NAMES, ConfigError, parse
from goclockfw.storage.netconfig import game_info_field, network_field

MAX_PRESETS = 10
MAX_NAME = 32


def _raw_defaults():
    return {
        # Chinese national events: 2 h in all, the last 5 minutes as byo-yomi.
        "time_control": {"type": "byoyomi", "main": 6900, "periods": 5, "period": 60},
        # The left button (facing the display) is Black's; see README.
        "buttons": {"left": "black"},
        "volume": 7,
        "voice": "zh",
        "battery_low_mv": 3500,
        # The game's details (storage/netconfig.py): written into its first record.
        "game_info": None,
        # No network: the clock imports nothing of goclockfw.net (docs/hall.md).
        "network": None,
    }


def default_config():
    """The defaults, normalised (as config.get shows them)."""
    return validate_config({})


def default_presets():
    return validate_presets(_raw_presets())


def _raw_presets():
    # The factory presets, and the host tool's built-ins (host/goclock/timecontrol/
    # presets.py reads them from here: one list). Short names: the clock announces presets
    # by number.
    def p(name, tc):
        return {"name": name, "time_control": tc}

    return [
        p("cn-national", {"type": "byoyomi", "main": 6900, "periods": 5, "period": 60}),
        p("cn-local", {"type": "byoyomi", "main": 3540, "periods": 1, "period": 60}),
        p("fast", {"type": "byoyomi", "main": 1800, "periods": 3, "period": 30}),
        p("rapid", {"type": "byoyomi", "main": 600, "periods": 3, "period": 30}),
        p("blitz", {"type": "byoyomi", "main": 0, "periods": 5, "period": 10}),
        p("sd-1h", {"type": "sudden_death", "main": 3600}),
        p(
            "cn-moves",
            {"type": "canadian", "main": 3600, "moves": 15, "period": 600, "carry": True},
        ),
        p("canadian", {"type": "canadian", "main": 3600, "moves": 25, "period": 300}),
        p("fischer", {"type": "fischer", "main": 1200, "increment": 10}),
        p("ing", {"type": "ing", "main": 10800, "periods": 3, "period": 1200, "penalty": 2}),
    ]


def _int_field(name, v, lo, hi):
    if isinstance(v, bool) or not isinstance(v, int):
        raise ConfigError("%s: must be a whole number, got %r" % (name, v))
    if v < lo or v > hi:
        raise ConfigError("%s: must be from %d to %d, got %r" % (name, lo, hi, v))
    return v


def _time_control(name, v):
    if not isinstance(v, dict):
        raise ConfigError("%s: must be a JSON object" % name)
    try:
        return parse(v).to_json()
    except ConfigError as e:
        raise ConfigError("%s.%s" % (name, e)) from None


def _buttons(name, v):
    if not isinstance(v, dict):
        raise ConfigError('%s: must be an object like {"left": "black"}' % name)
    for k in v:
        if k != "left":
            raise ConfigError("%s.%s: unknown key (only 'left')" % (name, k))
    left = v.get("left", "black")
    if left not in SIDE_NAMES:
        raise ConfigError("%s.left: must be 'black' or 'white', got %r" % (name, left))
    return {"left": left}


def _voice(name, v):
    if not isinstance(v, str) or not 0 < len(v) <= 16:
        raise ConfigError("%s: must be a voice pack name of 1 to 16 characters" % name)
    for ch in v:
        if not ("a" <= ch <= "z" or "0" <= ch <= "9" or ch in "_-"):
            raise ConfigError("%s: only a-z, 0-9, '_' and '-' allowed, got %r" % (name, v))
    return v


# field -> checker(name, value) returning the normalised value; checked in
# _ORDER so CPython and MicroPython (whose dicts keep no order) name the same
# first bad field
_ORDER = ("time_control", "buttons", "volume", "voice", "battery_low_mv", "game_info", "network")
_FIELDS = {
    "time_control": _time_control,
    "buttons": _buttons,
    "volume": lambda n, v: _int_field(n, v, 0, 10),
    "voice": _voice,
    "battery_low_mv": lambda n, v: _int_field(n, v, 0, 20000),  # 0: no warning
    "game_info": game_info_field,
    "network": network_field,
}


def field(name, v):
    """The config field `name` normalised; ConfigError when it is bad or unknown."""
    check = _FIELDS.get(name)
    if check is None:
        raise ConfigError("%s: unknown config field" % (name,))
    return check(name, v)


def validate_config(obj):
    """A complete, normalised config from `obj`; missing fields get defaults.

    Raises ConfigError naming the first bad field.
    """
    if not isinstance(obj, dict):
        raise ConfigError("config: must be a JSON object")
    for k in sorted(obj):
        if k not in _FIELDS:
            raise ConfigError("%s: unknown config field" % (k,))
    out = _raw_defaults()
    for k in obj:
        out[k] = obj[k]
    for k in _ORDER:
        out[k] = _FIELDS[k](k, out[k])
    return out


def preset(i, p):
    name = "presets[%d]" % i
    if not isinstance(p, dict):
        raise ConfigError('%s: must be an object {"name", "time_control"}' % name)
    for k in p:
        if k not in ("name", "time_control"):
            raise ConfigError("%s.%s: unknown key" % (name, k))
    n = p.get("name")
    if not isinstance(n, str) or not 0 < len(n) <= MAX_NAME:
        raise ConfigError("%s.name: must be text of 1 to %d characters" % (name, MAX_NAME))
    if "time_control" not in p:
        raise ConfigError("%s.time_control: missing" % name)
    return {"name": n, "time_control": _time_control(name + ".time_control", p["time_control"])}


def validate_presets(obj):
    """A normalised preset list; raises ConfigError naming the bad entry."""
    if not isinstance(obj, list):
        raise ConfigError("presets: must be a list")
    if len(obj) > MAX_PRESETS:
        raise ConfigError("presets: at most %d, got %d" % (MAX_PRESETS, len(obj)))
    return [preset(i, p) for i, p in enumerate(obj)]
