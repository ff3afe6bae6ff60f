"""goclockfw/jsontext.py and the templates built on it (events.py): the hot paths' JSON text.

The firmware reads flat requests with `scan_flat` and writes clock events and the status
from templates (`render`) on the chips, in viper code; CPython and the browser run the
plain versions. Checked here:

- scan_flat reads only strict JSON (the oracle: CPython's json, strict), and reads every
  flat object of the kind it is for; what it reads is what json reads;
- the plain and viper versions give the same results (the unix port runs the viper ones);
- a clock event or a status written from its template is, byte for byte, what the field by
  field writer makes (hypothesis over time controls and game states), on both engines.
"""

import json
from array import array

from hypothesis import given, settings
from hypothesis import strategies as st

from goclockfw import jsontext, jsontext_py
from goclockfw.core import gameclock
from goclockfw.core.timecontrol import parse
from goclockfw.events import EventWriter
from support.mpy import run_mpy

KINDS = {
    jsontext.STRING: "s",
    jsontext.INTEGER: "i",
    jsontext.TRUE: True,
    jsontext.FALSE: False,
    jsontext.NULL: None,
}


NAMES = ("id", "cmd", "press", "side", "black", "x")
TABLE = bytearray()
for _name in NAMES:
    TABLE.append(len(_name))
    TABLE.extend(_name.encode())


def read_flat(text):
    """scan_flat's reading of `text` as a dict, or None when it leaves it to strictjson;
    each string read as a known name is checked to be that name."""
    out = array("i", [0] * (jsontext.PAIR * 16))
    k = jsontext.scan_flat(text, len(text), out, TABLE)
    if k < 0:
        return None
    obj = {}
    for p in range(k):
        b = p * jsontext.PAIR
        key = bytes(text[out[b] : out[b + jsontext.KEY_END]]).decode()
        assert out[b + jsontext.KEY_NAME] == (NAMES.index(key) if key in NAMES else -1)
        if key in obj:
            return None  # a duplicate: the caller leaves it to strictjson (protocol/commands.py)
        kind = out[b + jsontext.KIND]
        if kind == jsontext.STRING:
            v = bytes(text[out[b + jsontext.VALUE] : out[b + jsontext.END]]).decode()
            assert out[b + jsontext.NAME] == (NAMES.index(v) if v in NAMES else -1)
            obj[key] = v
        elif kind == jsontext.INTEGER:
            obj[key] = out[b + jsontext.VALUE]
        else:
            obj[key] = KINDS[kind]
    return obj


def strict(text):
    """CPython's reading of strict JSON (no NaN, no duplicate keys), or None."""

    def pairs(items):
        keys = [k for k, _ in items]
        if len(set(keys)) != len(keys):
            raise ValueError("duplicate key")
        return dict(items)

    def no_constant(name):
        raise ValueError(name)

    try:
        return json.loads(text.decode("utf-8"), object_pairs_hook=pairs, parse_constant=no_constant)
    except (ValueError, UnicodeError):
        return None


plain_text = st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters='"\\'),
    max_size=12,
)
small_int = st.integers(min_value=-999999999, max_value=999999999)
scalar = st.one_of(plain_text, small_int, st.booleans(), st.none())
flat = st.dictionaries(plain_text, scalar, max_size=8)
spacing = st.sampled_from([(",", ":"), (", ", ": "), (" ,\t", "\r\n:  ")])


@settings(max_examples=300, deadline=None)
@given(flat, spacing)
def test_every_flat_object_is_read_as_json_reads_it(obj, sep):
    text = json.dumps(obj, separators=sep).encode()
    assert read_flat(text) == obj == strict(text)


def mutant(text, data, alphabet):
    """`text` with one to three bytes of `alphabet` inserted, deleted or replaced."""
    text = bytearray(text)
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(text)))
        what = data.draw(st.sampled_from(["insert", "delete", "replace"]))
        byte = data.draw(st.sampled_from(list(alphabet)))
        if what == "insert":
            text[at:at] = bytes([byte])
        elif at < len(text):
            if what == "delete":
                del text[at]
            else:
                text[at] = byte
    return bytes(text)


@settings(max_examples=500, deadline=None)
@given(flat, st.data())
def test_nothing_but_strict_json_is_read(obj, data):
    """Mutants of flat objects: whatever scan_flat takes, json takes, as the same object
    (a text it leaves, strictjson.py reads or refuses with its message)."""
    text = mutant(
        json.dumps(obj).encode(), data, b'{}[]":,.-+0123456789eEtrufalsn \t\\\x00\x7f\xc3'
    )
    got = read_flat(text)
    if got is not None:
        assert got == strict(text), text


EDGES = [  # (text, what scan_flat reads: None when it leaves the text to strictjson)
    (b'{"a":01}', None),  # a leading zero: refused there
    (b'{"a":1.5}', None),  # a fraction: read there
    (b'{"a":1e3}', None),
    (b'{"a":1234567890}', None),  # beyond 9 digits: read there
    (b'{"a":-}', None),
    (b'{"a":"\\u0041"}', None),  # an escape: read there
    (b'{"\xc3\xa9":1}', None),  # UTF-8: checked there
    (b'{"a":[1]}', None),
    (b'{"a":{}}', None),
    (b'{"a":1,}', None),
    (b'{"a":1}}', None),
    (b'{"a":1} x', None),
    (b'{"a" 1}', None),
    (b'{"a":tru}', None),
    (b'{"a":nul}', None),
    (b'{"a":"\x1f"}', None),  # a raw control character
    (b'{"a":1,"a":2}', None),  # a duplicate key (found by the caller: protocol/commands.py)
    (b"[1]", None),
    (b"", None),
    (b"  {  }  ", {}),
    (b'{"a":-0}', {"a": 0}),
    (b'{"a":999999999,"b":-999999999}', {"a": 999999999, "b": -999999999}),
    (b'{"id":7,"cmd":"press","side":"black"}', {"id": 7, "cmd": "press", "side": "black"}),
]


def test_edges():
    for text, want in EDGES:
        assert read_flat(text) == want, text


# ----- press_line: the usual press request in one call ------------------------------------


def read_press(text):
    """press_line's reading of `text` as the request, or None when it leaves it."""
    rid = array("i", [0])
    side = jsontext.press_line(text, len(text), rid)
    return None if side < 0 else {"id": rid[0], "cmd": "press", "side": ("black", "white")[side]}


PRESS_EDGES = [
    (b'{"id":7,"cmd":"press","side":"black"}', {"id": 7, "cmd": "press", "side": "black"}),
    (b'{"id": 7, "cmd": "press", "side": "white"}\n', {"id": 7, "cmd": "press", "side": "white"}),
    (
        b'  { "id" : -0 , "cmd" : "press" , "side" : "black" }  \r\n',
        {"id": 0, "cmd": "press", "side": "black"},
    ),
    (
        b'{"id":999999999,"cmd":"press","side":"white"}',
        {"id": 999999999, "cmd": "press", "side": "white"},
    ),
    (b'{"id":1234567890,"cmd":"press","side":"white"}', None),  # 10 digits: the long way
    (b'{"id":01,"cmd":"press","side":"white"}', None),
    (b'{"id":1.0,"cmd":"press","side":"white"}', None),
    (b'{"id":"1","cmd":"press","side":"white"}', None),
    (b'{"cmd":"press","id":1,"side":"white"}', None),  # another order: the long way
    (b'{"id":1,"cmd":"press","side":"whitey"}', None),
    (b'{"id":1,"cmd":"press","side":"blank"}', None),
    (b'{"id":1,"cmd":"press","side":"black","x":1}', None),
    (b'{"id":1,"cmd":"press","side":"black"} x', None),
    (b'{"id":1,"cmd":"press","side":"black"', None),
    (b'{"id":1,"cmd":"press",\t"side":"black"}', None),  # a tab: scan_flat's
    (b'{"id":1,"cmd":"pressed","side":"black"}', None),
]


def test_press_edges():
    for text, want in PRESS_EDGES:
        assert read_press(text) == want, text
        if want is not None:
            assert strict(text) == want


press_obj = st.builds(  # (in this order: the host tools' order)
    lambda rid, side: {"id": rid, "cmd": "press", "side": side},
    small_int,
    st.sampled_from(["black", "white"]),
)


@settings(max_examples=200, deadline=None)
@given(press_obj, st.sampled_from([(",", ":"), (", ", ": ")]))
def test_the_usual_press_is_read_in_one_call(obj, sep):
    text = json.dumps(obj, separators=sep).encode()
    assert read_press(text) == obj == read_flat(text)


@settings(max_examples=500, deadline=None)
@given(press_obj, st.data())
def test_press_line_reads_nothing_but_the_press_it_is_for(obj, data):
    """Mutants of a press line: whatever press_line takes, json reads as that request."""
    text = mutant(json.dumps(obj).encode(), data, b'{}":,.-0123456789eEbwhiteblack \t\n\\\x00')
    got = read_press(text)
    if got is not None:
        assert got == strict(text), text


DRIVER = """
import sys, json
from array import array
from goclockfw import jsontext, jsontext_py
out = array("i", [0] * 7 * 16)
rid = array("i", [0])
table = bytes.fromhex(sys.argv[2])
for line in open(sys.argv[1]):
    text = bytes.fromhex(line.strip())
    k = jsontext.scan_flat(text, len(text), out, table)
    side = jsontext.press_line(text, len(text), rid)
    print(json.dumps([k, list(out[:7 * k]) if k > 0 else [], side, rid[0] if side >= 0 else 0]))
buf = bytearray(64)
for v in (0, 5, -5, 9, 10, 99, 100, 65000, 999999999, -999999999, 1073741823, -1073741823):
    e = jsontext.put_int(buf, 3, v)
    print(json.dumps(bytes(buf[3:e]).decode()))
e = jsontext.put_hex32(buf, 0, b"\\x0f\\xa0\\x00\\xff")
print(json.dumps(bytes(buf[:e]).decode()))
tpl = b'{"a":\\x01,"b":\\x02,"c":\\x03,"d":\\x01,"e":\\x02}'
e = jsontext.render(buf, 1, tpl, len(tpl), [-12, 1, 0, 0], [b'"x"'])
print(json.dumps(bytes(buf[1:e]).decode()))
"""


def plain_results(texts):
    out = array("i", [0] * 7 * 16)
    rid = array("i", [0])
    lines = []
    for text in texts:
        k = jsontext_py.scan_flat(text, len(text), out, TABLE)
        side = jsontext_py.press_line(text, len(text), rid)
        lines.append([k, list(out[: 7 * k]) if k > 0 else [], side, rid[0] if side >= 0 else 0])
    buf = bytearray(64)
    for v in (0, 5, -5, 9, 10, 99, 100, 65000, 999999999, -999999999, 1073741823, -1073741823):
        e = jsontext_py.put_int(buf, 3, v)
        lines.append(bytes(buf[3:e]).decode())
    e = jsontext_py.put_hex32(buf, 0, b"\x0f\xa0\x00\xff")
    lines.append(bytes(buf[:e]).decode())
    tpl = b'{"a":\x01,"b":\x02,"c":\x03,"d":\x01,"e":\x02}'
    e = jsontext_py.render(buf, 1, tpl, len(tpl), [-12, 1, 0, 0], [b'"x"'])
    lines.append(bytes(buf[1:e]).decode())
    return lines


def test_viper_and_plain_versions_agree(micropython, tmp_path):
    objs = ({"x": 1, "n": None, "cmd": "press"}, {}, {"id": -3, "side": "black", "on": True})
    texts = (
        [t for t, _ in EDGES]
        + [t for t, _ in PRESS_EDGES]
        + [
            json.dumps(o, separators=sep).encode()
            for o in objs
            for sep in ((",", ":"), (", ", ": "), (" ,\t", "\r\n:  "), ("\n,\n", " \t: "))
        ]
    )
    path = tmp_path / "texts.hex"
    path.write_text("\n".join(t.hex() for t in texts) + "\n")
    rc, lines, err = run_mpy(micropython, tmp_path, DRIVER, path, TABLE.hex())
    assert rc == 0, err
    got = [json.loads(x) for x in lines if x.strip()]
    assert got == plain_results(texts)
    assert got[len(texts) :][-1] == '{"a":-12,"b":true,"c":"x","d":0,"e":false}'
    assert "0fa000ff"[::-1] != got[-2] and got[-2] == "ff00a00f"  # most significant first


# ----- templates against the field by field writer -------------------------------------

TCS = [
    {"type": "byoyomi", "main": 60, "periods": 3, "period": 30},
    {"type": "byoyomi", "main": 0, "periods": 2, "period": 10},
    {"type": "canadian", "main": 30, "moves": 5, "period": 60},
    {"type": "fischer", "main": 60, "increment": 5},
    {"type": "delay", "main": 0, "delay": 10, "mode": "bronstein"},
    {"type": "delay", "main": 30, "delay": 5, "mode": "simple"},
    {"type": "hourglass", "main": 60},
    {"type": "ing", "main": 20, "periods": 3, "period": 10, "penalty": 2},
    {"type": "untimed"},
    {"type": "sudden_death", "main": 40},
]


class Both:
    """A clock listener writing every event twice: from its template and field by field."""

    def __init__(self):
        self.fast = EventWriter(64)  # small: the template path must grow it itself
        self.slow = EventWriter(64)
        self.clock = None
        self.pairs = []

    def on_clock(self, kind, side, tick, value):
        t = tick * 3 + 1
        self.fast.clock_event(self.clock, kind, side, t, tick, value)
        self.slow.clock_event(self.clock, kind, side, t, tick, value, generic=True)
        self.pairs.append((bytes(self.fast.line), bytes(self.slow.line)))


def play(tc, moves):
    both = Both()
    clock = gameclock.GameClock(parse(tc), both)
    both.clock = clock
    now = 1000
    clock.start(now)
    for gap, action in moves:
        now += gap
        if action == "press":
            clock.press(now, clock.turn)
        elif action == "pause":
            clock.pause(now)
        elif action == "resume":
            clock.resume(now)
        else:
            clock.advance(now)
    return both, clock, now


game_moves = st.lists(
    st.tuples(
        st.integers(0, 70000), st.sampled_from(["press", "press", "pause", "resume", "wait"])
    ),
    max_size=25,
)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(TCS), game_moves)
def test_a_template_writes_what_the_fields_write(tc, moves):
    both, clock, now = play(tc, moves)
    assert both.pairs
    for fast, slow in both.pairs:
        assert fast == slow
        json.loads(fast)


def test_one_template_serves_both_sides():
    """A clock event's template leaves its side to fill in: a game's reset makes one per
    kind, not one per kind and side, and each side's line still names that side."""
    w = EventWriter()
    clock = gameclock.GameClock(parse(TCS[0]), None)
    for side in (0, 1):
        w.prepare(clock, "press", side, 0)
        w.prepare(clock, "call", side, 0, "")
    assert len(w._tpl) == 2
    lines = []
    for side, phrase in ((0, "10"), (1, "还剩1分")):
        w.clock_event(clock, "call", side, 5, 0, phrase)
        lines.append(json.loads(bytes(w.line)))
    assert len(w._tpl) == 2
    assert [(x["side"], x["phrase"]) for x in lines] == [("black", "10"), ("white", "还剩1分")]


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(TCS), game_moves, st.booleans(), st.one_of(st.none(), st.integers(1, 99)))
def test_the_status_template_says_what_status_says(tc, moves, late, game):
    both, clock, now = play(tc, moves)
    if late and clock.state != gameclock.ENDED and clock.moves_made == 0:
        clock.late(now, 1 - clock.turn)
    tc_json = parse(tc).to_json()
    w = EventWriter(32)
    w.put_byte(123)
    w.status_members(clock, now + 7, json.dumps(tc_json).encode(), game)
    w.put_byte(125)
    got = json.loads(bytes(w.line))
    want = clock.status(now + 7)
    want["time_control"] = tc_json
    want["game"] = game
    assert got == want


def test_the_written_out_tables_are_what_they_say():
    # Written out as literals so that a frozen image keeps them in flash (events.py,
    # core/callplan.py): each must still be the table its comment describes.
    from goclockfw import events
    from goclockfw.core import callplan

    assert events._NBITS == bytes(bin(i).count("1") for i in range(128))
    assert callplan.COUNT_TO_TEN == tuple((9000 - 1000 * i, str(i + 1)) for i in range(10))
    assert callplan._ONE_TO_TEN == tuple(p for _, p in callplan.COUNT_TO_TEN)


def test_a_writer_that_does_not_keep_values_keeps_only_names():
    """The protocol's replies (events.py `keep`): a config's values and a preset's names
    are encoded each time and not held; a member's name is kept either way; the log's and
    the events' writers keep a value's text, since a call's phrase comes back. All writers
    share what is kept."""
    from goclockfw import events

    events._ENCODED.clear()  # (shared by every writer: other tests fill it up to MAX_CACHED)
    kept, fresh = EventWriter(), EventWriter(keep=False)
    for w, message in ((fresh, "flash full (7)"), (kept, "flash full (8)")):
        for t in (5, 6):
            w.event("log", t, None, None, (("notice_x", "storage_x"), ("message_x", message)))
        assert json.loads(bytes(w.line)) == {
            "event": "log",
            "t": 6,
            "notice_x": "storage_x",
            "message_x": message,
        }
    enc = kept._enc
    assert enc is fresh._enc
    assert "notice_x" in enc and "message_x" in enc and "flash full (8)" in enc
    assert "flash full (7)" not in enc


def test_every_clock_event_line_fits_the_log_writers_buffer_sealed():
    """The log's writer is 256 bytes (storage/logline.py), and the held records keep four
    more: a clock event's line, at its template's longest and sealed, must fit, or a press
    would grow one in its own step. Every event kind with the status fields of every
    time control (each one's own, as a game shows them)."""
    from goclockfw.storage.logline import SEAL_ROOM, LineBuilder

    w = LineBuilder()
    moves = [(70000, "press"), (70000, "press"), (40000, "wait"), (30000, "press")] * 3
    for tc in TCS:
        _both, clock, now = play(tc, moves)  # into overtime: its fields too
        for side in (0, 1):
            mask = clock.status_values(side, 0, [0] * 16, 0)
            mask |= clock.status_values(side, now, [0] * 16, 0)
            for kind in ("press", "adjust", "block", "arrive", "call", "byoyomi", "period"):
                for value_kind in (0, 1, 2):
                    shape = value_kind | (mask << 2) | (1 << 9)
                    body, longest = w._template(kind, shape)
                    phrase = (
                        len(json.dumps("还剩10分", ensure_ascii=False).encode())
                        if value_kind == 2
                        else 0
                    )
                    assert longest + phrase + SEAL_ROOM <= len(w.buf), (tc, kind, body)
