"""The JSON type of every field of `config.set` and `presets.set`, checked before anything reads it.

The validators behind these commands (storage/configcheck.py, core/timecontrol.py) judge
values and ranges with messages of their own, but they were written for a config the clock
stored itself: handed a list where a name belongs they can fail with a TypeError (a list
cannot be looked up in a table of time-control types), which the protocol would report as
`internal error`. So every field they read is checked here for its JSON type first, with a
message that names it the way they do (`time_control.type: must be a string, not an
array`). Fields this table does not know are left to the validators, which refuse them
by name; values and ranges are theirs too.

The tables are tuples of (field, shape), not dicts: MicroPython's dicts keep no order, and a
request with two wrong fields must get the same message on every engine.
"""

from goclockfw.protocol.reqargs import RequestError, is_int

NUMBER = "a number"
STRING = "a string"
BOOL = "true or false"
OBJECT = "an object"

# What one side's overrides may hold (time odds), and what a time control holds.
_SIDE = (
    ("main", NUMBER),
    ("periods", NUMBER),
    ("period", NUMBER),
    ("moves", NUMBER),
    ("increment", NUMBER),
    ("delay", NUMBER),
    ("carry", BOOL),
    ("mode", STRING),
)
TIME_CONTROL = (
    (("type", STRING),)
    + _SIDE
    + (
        ("calls", STRING),
        ("first", STRING),
        ("late_limit", NUMBER),
        ("black", _SIDE),
        ("white", _SIDE),
    )
)
CONFIG = (
    ("time_control", TIME_CONTROL),
    ("buttons", (("left", STRING),)),
    ("volume", NUMBER),
    ("voice", STRING),
    ("battery_low_mv", NUMBER),
)
PRESET = (("name", STRING), ("time_control", TIME_CONTROL))


def kind(v):
    """The JSON kind of a value, as the messages name it."""
    if v is None:
        return "null"
    if v is True or v is False:
        return "true or false"
    if is_int(v) or isinstance(v, float):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    return "an object"


def check(value, shape, path):
    """Raise RequestError naming `path` unless `value` has `shape`: a kind, or a table of
    fields for an object."""
    fields = shape if isinstance(shape, tuple) else None
    want = OBJECT if fields else shape
    got = kind(value)
    if got != want:
        raise RequestError("%s: must be %s, not %s" % (path, want, got))
    if fields:
        check_fields(value, fields, path + ".")


def check_fields(obj, fields, prefix=""):
    """Each field of the table that `obj` has, in the table's order."""
    for key, sub in fields:
        if key in obj:
            check(obj[key], sub, prefix + key)


def check_config(cfg):
    """The fields of a `config.set` object (already known to be an object)."""
    check_fields(cfg, CONFIG)


def check_presets(presets):
    """A `presets.set` list: each entry an object whose known fields have their types."""
    if not isinstance(presets, list):
        raise RequestError("'presets' must be an array, not %s" % kind(presets))
    for i, p in enumerate(presets):
        check(p, PRESET, "presets[%d]" % i)
