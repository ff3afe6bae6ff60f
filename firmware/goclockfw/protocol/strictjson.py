"""A strict JSON reader for request lines: RFC 8259 in strict UTF-8, the same on every engine.

MicroPython's `json.loads` accepts what is not JSON (`{"cmd":"pause"]`, trailing commas,
`01`, raw control characters in strings) and its `bytes.decode` lets overlong and surrogate
UTF-8 through, so a request could mean one thing to the clock and another to the host that
wrote it. This module parses the bytes itself (its strings: jsonstring.py) and refuses,
with `JSONError` (a ValueError):

- anything outside RFC 8259's grammar: trailing commas, mismatched brackets, leading zeros,
  `NaN`/`Infinity`, single quotes, comments, a BOM, data after the value;
- bytes that are not well-formed UTF-8 (Unicode table 3-7: no overlong forms, no
  surrogates, nothing above U+10FFFF, no cut sequences), and a `\\u` escape of a lone
  surrogate;
- control characters (below 0x20) inside strings: they must be escaped;
- an object with the same key twice (RFC 8259 leaves its meaning open: we refuse it);
- numbers whose text is over MAX_NUMBER characters or whose value is not a finite double
  (RFC 8259 lets a reader limit the range), and nesting deeper than MAX_DEPTH.

The parser keeps its own stack of open containers instead of recursing, so a line of
brackets cannot exhaust MicroPython's small C stack; what it allocates is bounded by the
line (requests are at most 1024 bytes): the values themselves, and one bytearray for a
string only when the string has escapes. The helpers return a value and leave the index
after it in jsonstring.END[0] (no tuple per value), a short integer is read digit by
digit (no text of its own), and the stacks are kept between calls: a request such as
{"id": 7, "cmd": "press", "side": "black"} allocates its dict and little else. `loads` returns what `json.loads` would for the
same valid text: dicts, lists, str, int, float, True, False, None.
"""

from goclockfw.protocol.jsonstring import END, JSONError, string

__all__ = ["JSONError", "MAX_DEPTH", "MAX_NUMBER", "loads"]

MAX_DEPTH = 16  # open objects and arrays at once; a request needs 5 at most
MAX_NUMBER = 32  # characters of one number's text

_SPACE = b" \t\n\r"
_STACK = []  # loads' stacks, kept between calls (emptied when a call starts)
_KEYS = []


def _ws(data, i, n):
    while i < n and data[i] in _SPACE:
        i += 1
    return i


def _digits(data, i, n):
    while i < n and 0x30 <= data[i] <= 0x39:
        i += 1
    return i


def _number(data, i, n):
    """The number starting at i (int or float); END[0] is the index after it."""
    start = i
    if data[i] == 0x2D:  # -
        i += 1
    if i < n and data[i] == 0x30:
        i += 1  # a leading 0 stands alone: "01" ends the number after the 0
    elif i < n and 0x31 <= data[i] <= 0x39:
        i = _digits(data, i, n)
    else:
        raise JSONError("bad number", start)
    is_float = False
    if i < n and data[i] == 0x2E:  # .
        j = _digits(data, i + 1, n)
        if j == i + 1:
            raise JSONError("bad number", start)
        i = j
        is_float = True
    if i < n and (data[i] == 0x65 or data[i] == 0x45):  # e E
        i += 1
        if i < n and (data[i] == 0x2B or data[i] == 0x2D):
            i += 1
        j = _digits(data, i, n)
        if j == i:
            raise JSONError("bad number", start)
        i = j
        is_float = True
    if i - start > MAX_NUMBER:
        raise JSONError("number too long", start)
    END[0] = i
    if not is_float and i - start <= 9:  # a small int (30 bits and less): no text needed
        k = start + 1 if data[start] == 0x2D else start
        v = 0
        while k < i:
            v = v * 10 + data[k] - 0x30
            k += 1
        return -v if data[start] == 0x2D else v
    text = str(data[start:i], "ascii")
    if not is_float:
        return int(text)
    v = float(text)
    if v - v != 0.0:  # inf (of a double, or of a single-precision MCU float)
        raise JSONError("number out of range", start)
    return v


def _literal(data, i, n):
    for word, value in ((b"true", True), (b"false", False), (b"null", None)):
        if data[i : i + len(word)] == word:
            END[0] = i + len(word)
            return value
    raise JSONError("unexpected byte", i)


def _key(data, i, n, obj):
    """An object's key at i, then its colon -> key; END[0] is the index of the value."""
    if i >= n or data[i] != 0x22:
        raise JSONError("expected a string key", i)
    key = string(data, i, n)
    if key in obj:
        raise JSONError("duplicate key", i)
    i = END[0]
    while i < n and data[i] in _SPACE:
        i += 1
    if i >= n or data[i] != 0x3A:
        raise JSONError("expected ':'", i)
    i += 1
    while i < n and data[i] in _SPACE:
        i += 1
    END[0] = i
    return key


def loads(data, max_depth=MAX_DEPTH):
    """The value of one JSON text (bytes); JSONError when it is not strict JSON."""
    if isinstance(data, str):
        data = data.encode()
    elif not isinstance(data, (bytes, bytearray)):
        data = bytes(data)
    n = len(data)
    stack = _STACK  # the open containers, innermost last
    keys = _KEYS  # the pending key of each open container (None for arrays)
    while stack:  # what a refused text left
        stack.pop()
    while keys:
        keys.pop()
    key = None  # the pending key of the innermost open object
    root = None
    i = _ws(data, 0, n)
    while True:
        # A value starts at i.
        if i >= n:
            raise JSONError("expected a value", i)
        c = data[i]
        opened = c == 0x7B or c == 0x5B  # { [
        if opened:
            if len(stack) >= max_depth:
                raise JSONError("nested too deep", i)
            value = {} if c == 0x7B else []
            i += 1
        elif c == 0x22:
            value = string(data, i, n)
            i = END[0]
        elif c == 0x2D or 0x30 <= c <= 0x39:
            value = _number(data, i, n)
            i = END[0]
        else:
            value = _literal(data, i, n)
            i = END[0]
        if not stack:
            root = value
        elif key is None:
            stack[-1].append(value)
        else:
            stack[-1][key] = value
        if opened:
            stack.append(value)
            keys.append(key)
            key = None
            i = _ws(data, i, n)
            if i < n and data[i] == (0x7D if c == 0x7B else 0x5D):
                stack.pop()
                key = keys.pop()
                i += 1
            elif c == 0x7B:
                key = _key(data, i, n, value)
                i = END[0]
                continue
            else:
                continue
        # After a value: a comma, or the close of its container (then of the outer ones).
        while True:
            while i < n and data[i] in _SPACE:  # (inline: a call costs more than the loop)
                i += 1
            if not stack:
                if i != n:
                    raise JSONError("unexpected data after the value", i)
                return root
            top = stack[-1]
            is_obj = key is not None
            c = data[i] if i < n else -1
            if c == 0x2C:  # ,
                i += 1
                while i < n and data[i] in _SPACE:
                    i += 1
                if is_obj:
                    key = _key(data, i, n, top)
                    i = END[0]
                break
            if c == (0x7D if is_obj else 0x5D):
                stack.pop()
                key = keys.pop()
                i += 1
                continue
            raise JSONError("expected ',' or '%s'" % ("}" if is_obj else "]"), i)
