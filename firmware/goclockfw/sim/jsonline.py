"""JSON Lines with a fixed key order and raw UTF-8, the same on every interpreter.

MicroPython's dicts do not keep insertion order and its `json.dumps` spaces
differently from CPython's, so lines that must be byte-identical on both (the
simulator's output) are written here from (key, value) pairs, in the order given.
(The serial protocol needs no such care: its lines are read as JSON, not as text.)
"""


class Raw:
    """Text that is already JSON (a nested object built with `obj`)."""

    def __init__(self, text):
        self.text = text


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def quote(text):
    """A JSON string literal; non-ASCII characters are kept as they are."""
    out = []
    for ch in text:
        esc = _ESCAPES.get(ch)
        if esc is not None:
            out.append(esc)
        elif ord(ch) < 0x20:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def value(v):
    """One JSON value: Raw, bool, None, int or str (all the simulator writes)."""
    if isinstance(v, Raw):
        return v.text
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return "null"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):
        return quote(v)
    raise TypeError("jsonline cannot write %r" % (v,))


def obj(pairs):
    """A JSON object from (key, value) pairs, keys in the order given."""
    return "{" + ", ".join([quote(k) + ": " + value(v) for k, v in pairs]) + "}"
