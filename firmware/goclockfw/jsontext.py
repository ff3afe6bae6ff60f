"""JSON text in preallocated buffers: the hot paths' integers, checksums, templates, requests.

A press on an RP2040 has about 3 ms of CPU for everything it does; in bytecode a decimal
integer written digit by digit costs ~0.2 ms, a request read byte by byte ~2 ms. So the
byte work is done here, on buffers allocated once, by viper code (jsontext_viper.py) on
the chips and by plain Python (jsontext_py.py) on CPython and in the browser's
MicroPython, picked by goclockfw/native.py: the same results, tested on both.

    put_int(buf, at, v) -> end          v in decimal at buf[at:]; the index after it
    put_hex32(buf, at, src) -> end      src[0:4] (a little-endian 32-bit value) as 8
                                        lowercase hex digits, most significant first
    render(buf, at, tpl, tn, ints, strs) -> end
                                        tpl[0:tn] copied, each marker byte replaced: INT
                                        by the next int of `ints` (a list), BOOL by the
                                        next one as true/false, TEXT by the next bytes of
                                        `strs` (a list), taken in order
    scan_flat(data, n, out, names) -> pairs
                                        the flat object data[0:n] read into `out` (array
                                        "i", PAIR ints a pair: KEY_START, KEY_END, KEY_NAME,
                                        KIND, then a string's VALUE start and END and its
                                        NAME, or an integer's VALUE); -1 when it is anything
                                        else (see below). A NAME is the string's index in
                                        `names` (each name's length, then its bytes:
                                        protocol/jsonstring.py's `know`), or -1

`scan_flat` reads only the requests every command source sends in the ordinary course, a
flat object of plain ASCII strings, short integers and true/false/null, and it reads them
as strictly as strictjson.py does; -1 leaves every other text (escapes, UTF-8, nesting,
fractions, long numbers, errors of any kind) to strictjson, whose messages say what is
wrong. The caller makes the dict (protocol/commands.py).

The buffers must have room: the callers size them for the longest line they write.
"""

from goclockfw.native import pick

INT = 1  # template markers (bytes JSON text never holds raw: control characters)
BOOL = 2
TEXT = 3

STRING = 1  # kinds of scan_flat's values
INTEGER = 2
TRUE = 3
FALSE = 4
NULL = 5
PAIR = 7  # ints per pair in scan_flat's output, at these offsets:
KEY_START = 0
KEY_END = 1
KEY_NAME = 2
KIND = 3
VALUE = 4  # a string's start, an integer's value
END = 5  # a string's end
NAME = 6  # a string's name index
# The press request as the host tools send it (json.dumps, compact or with its default
# spaces): byte 1 the id, byte 2 the side's name. One viper call reads it (press_line), where
# scan_flat makes a dozen: a press is the request the clock answers most.
PRESS_LINE = b'{"id":\x01,"cmd":"press","side":"\x02"}'

_impl = pick("jsontext")  # goclockfw/native.py: viper code, or plain Python

put_int = _impl.put_int
put_hex32 = _impl.put_hex32
render = _impl.render
scan_flat = _impl.scan_flat
# (data, i, n, out, at, names): the plain string whose quote is at i, its start, end and
# index in `names` (-1: none) into out[at:at + 3]; the index after it, or -1 (not plain).
scan_string = _impl._string
press_line = _impl.press_line
_impl = None
