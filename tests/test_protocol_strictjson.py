"""Strict requests (protocol/strictjson.py): the same verdicts on CPython and MicroPython.

Three sources of JSON texts, each judged on both engines:
- the hand-written corpus of tests/strict_corpus.py (JSONTestSuite-style cases);
- hypothesis: valid texts written by CPython's json, and the same texts with a few bytes
  changed, each judged by an oracle built on CPython's own strict parser;
- whole request lines through Protocol.handle_line: what is refused is `bad JSON` with a
  null id, changes nothing, and every reply is valid UTF-8 JSON.
"""

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goclockfw.protocol import strictjson
from protocol_support import make_device, snapshot, start_game
from strict_corpus import ACCEPT, REFUSE
from support.mpy import run_mpy


class Refused(Exception):
    pass


def oracle(data):
    """CPython's strict json, with the limits goclock documents: the value, or Refused."""

    def pairs(items):
        keys = [k for k, _ in items]
        if len(set(keys)) != len(keys):
            raise Refused("duplicate key")
        return dict(items)

    def constant(name):
        raise Refused(name)

    def number(text, kind):
        if len(text) > strictjson.MAX_NUMBER:
            raise Refused("number too long")
        v = kind(text)
        if isinstance(v, float) and math.isinf(v):
            raise Refused("out of range")
        return v

    try:
        text = data.decode("utf-8")  # strict: no overlong forms, no surrogates
        value = json.loads(
            text,
            object_pairs_hook=pairs,
            parse_constant=constant,
            parse_int=lambda t: number(t, int),
            parse_float=lambda t: number(t, float),
        )
    except (ValueError, RecursionError):
        raise Refused("not JSON") from None
    if depth(value) > strictjson.MAX_DEPTH or has_surrogate(value):
        raise Refused("limits")
    return value


def depth(v):
    if isinstance(v, dict):
        return 1 + max([depth(x) for x in v.values()] or [0])
    if isinstance(v, list):
        return 1 + max([depth(x) for x in v] or [0])
    return 0


def has_surrogate(v):
    if isinstance(v, str):
        return any(0xD800 <= ord(c) <= 0xDFFF for c in v)
    if isinstance(v, dict):
        return any(has_surrogate(k) or has_surrogate(x) for k, x in v.items())
    if isinstance(v, list):
        return any(has_surrogate(x) for x in v)
    return False


def verdict(data):
    """Our reader's verdict: ("ok", value) or ("refused", None)."""
    try:
        return "ok", strictjson.loads(data)
    except ValueError:
        return "refused", None


def same(a, b):
    """Equal JSON values, floats to the last bit but one (engines print them alike)."""
    if isinstance(a, float) or isinstance(b, float):
        return (
            isinstance(a, (int, float))
            and isinstance(b, (int, float))
            and (a == b or math.isclose(a, b, rel_tol=1e-15))
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


# -- the hand-written corpus ------------------------------------------------------------------


@pytest.mark.parametrize("text,value", ACCEPT)
def test_accepted(text, value):
    assert same(oracle(text), value)  # the corpus itself agrees with CPython's strict json
    kind, got = verdict(text)
    assert kind == "ok" and same(got, value), (text, got)


@pytest.mark.parametrize("text", REFUSE)
def test_refused(text):
    with pytest.raises(Refused):
        oracle(text)
    with pytest.raises(strictjson.JSONError) as err:
        strictjson.loads(text)
    assert " at byte " in str(err.value)
    assert 0 <= err.value.pos <= len(text)


def test_micropython_json_alone_would_take_them():
    """Why the reader exists: MicroPython's own json takes some of these (checked below)."""
    assert json.loads('{"cmd":"pause"}') == {"cmd": "pause"}
    assert any(t.startswith(b'{"cmd":"pause"') for t in REFUSE)


# -- hypothesis: valid texts and their mutants, against the oracle -----------------------------

json_text = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**25), 10**25),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=12),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
NOISE = b'{}[],:"\\0123456789eE+-.tfnlu \t\x00\x1f\x7f\x80\xbf\xc0\xc3\xe0\xed\xef\xf0\xf4\xff'


@st.composite
def texts(draw):
    value = draw(json_text)
    text = json.dumps(
        value,
        ensure_ascii=draw(st.booleans()),
        separators=draw(st.sampled_from([(",", ":"), (", ", ": "), (" ,\t", " :  ")])),
    ).encode("utf-8")
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(text)))
        op = draw(st.integers(0, 2))
        byte = bytes([draw(st.sampled_from(NOISE))])
        if op == 0:
            text = text[:at] + byte + text[at:]
        elif op == 1:
            text = text[:at] + text[at + 1 :]
        else:
            text = text[:at] + byte + text[at + 1 :]
    return text


DIFF_CORPUS = []


@settings(
    max_examples=700,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(text=texts())
def test_same_verdict_as_the_oracle(text):
    try:
        want = ("ok", oracle(text))
    except Refused:
        want = ("refused", None)
    got = verdict(text)
    assert got[0] == want[0] and same(got[1], want[1]), (text, got, want)
    DIFF_CORPUS.append(text)


def all_texts():
    if len(DIFF_CORPUS) < 500:  # run alone: make the corpus first
        test_same_verdict_as_the_oracle()
    return [t for t, _ in ACCEPT] + list(REFUSE) + DIFF_CORPUS


def run_hex(micropython, tmp_path, driver, cases, *args):
    """Run a driver over `cases` (bytes), hex in and hex out: raw UTF-8 output may hold
    characters that Python's splitlines() would take for line ends."""
    path = tmp_path / "cases.hex"
    path.write_text("\n".join(t.hex() for t in cases))
    rc, lines, err = run_mpy(micropython, tmp_path, driver, path, *args, timeout=120)
    assert rc == 0, err
    out = [json.loads(bytes.fromhex(x).decode("utf-8")) for x in lines if x.strip()]
    assert out[-1] == {"done": True} and len(out) == len(cases) + 1, out[-3:]
    return out[:-1]


PRELUDE = """
import sys, json, binascii
def emit(obj):
    print(binascii.hexlify(json.dumps(obj).encode()).decode())
"""
LOADS_DRIVER = (
    PRELUDE
    + """
from goclockfw.protocol import strictjson
for hexline in open(sys.argv[1]).read().split("\\n"):
    try:
        emit({"ok": True, "v": strictjson.loads(binascii.unhexlify(hexline))})
    except ValueError as e:
        emit({"ok": False, "e": str(e)})
emit({"done": True})
"""
)


def test_same_verdicts_under_micropython(micropython, tmp_path):
    cases = all_texts()
    out = run_hex(micropython, tmp_path, LOADS_DRIVER, cases)
    for text, r in zip(cases, out):
        kind, value = verdict(text)
        assert r["ok"] == (kind == "ok"), (text, r)
        if r["ok"]:
            assert same(r["v"], value), (text, r, value)
        else:
            assert r["e"] == str(pytest.raises(ValueError, strictjson.loads, text).value)


# -- request lines through the protocol --------------------------------------------------------

REQUESTS = [
    b'{"cmd":"pause"]',
    b'{"cmd":"pause",}',
    b'{"cmd":"pause" , "id":1,,}',
    b'{"cmd":"logs.clear",}',
    b'{"id":1,"cmd":"reset","cmd":"pause"}',
    b'{"id":1,"cmd":"\xc0\xaepause"}',
    b'{"id":1,"cmd":"pause","x":"\xed\xa0\x80"}',
    b'{"id":1,"cmd":"pause","x":"\\ud800"}',
    b'{"id":1,"cmd":"press","side":"white","x":NaN}',
    b'{"id":1,"cmd":"time.set","side":"black","main":1e999}',
    b'\xef\xbb\xbf{"id":1,"cmd":"pause"}',
    b'{"id":01,"cmd":"pause"}',
    b'{"id":1,"cmd":"pause\t"}',
    b'{"id":1,"cmd":"pause"}garbage',
] + [b'{"id":1,"cmd":"pause","x":' + t + b"}" for t in REFUSE if t.strip() and len(t) < 900]


@pytest.mark.parametrize("line", REQUESTS)
def test_bad_request_lines_change_nothing(tmp_path, line):
    app, proto, _ = make_device(tmp_path)
    start_game(app, proto)
    before = snapshot(app)
    reply = proto.handle_line(line)
    r = strictjson.loads(reply.encode("utf-8"))  # strict UTF-8, strict JSON
    assert r["ok"] is False and r["id"] is None and r["error"].startswith("bad JSON"), r
    assert snapshot(app) == before


@pytest.mark.parametrize(
    "line",
    [
        '{"id":1,"cmd":"paus\u00e9"}',
        '{"id":1,"cmd":"\u4e2d\u6587\U0001f600"}',
        '{"id":1,"cmd":"\\u0000\\u001f\\"\\\\"}',
        '{"id":"\u00e9\\u2028","cmd":"x"}',
    ],
)
def test_replies_echo_only_valid_utf8(tmp_path, line):
    app, proto, _ = make_device(tmp_path)
    reply = proto.handle_line(line.encode("utf-8"))
    if isinstance(reply, str):
        reply = reply.encode("utf-8")
    r = strictjson.loads(reply)
    assert r["error"].startswith("unknown command '"), r
    assert json.loads(reply.decode("utf-8")) == r


PROTO_DRIVER = (
    PRELUDE
    + """
from protocol_support import make_device, snapshot, start_game
from goclockfw.protocol import strictjson
app, proto, _ = make_device(sys.argv[2], lambda s: None)
start_game(app, proto)
for hexline in open(sys.argv[1]).read().split("\\n"):
    before = snapshot(app)
    reply = proto.handle_line(binascii.unhexlify(hexline))
    raw = reply if isinstance(reply, bytes) else reply.encode()
    r = strictjson.loads(raw)  # the reply is strict UTF-8 JSON
    r["same"] = snapshot(app) == before
    emit(r)
emit({"done": True})
"""
)


def test_bad_request_lines_under_micropython(micropython, tmp_path):
    lines = REQUESTS + [
        b'{"id":1,"cmd":"paus\xc3\xa9"}',
        b'{"id":2,"cmd":"\xe4\xb8\xad\xf0\x9f\x98\x80"}',
    ]
    flash = tmp_path / "flash"
    flash.mkdir()
    out = run_hex(micropython, tmp_path, PROTO_DRIVER, lines, flash)
    for line, r in zip(REQUESTS, out):
        assert r["ok"] is False and r["id"] is None and r["error"].startswith("bad JSON"), line
        assert r["same"], line
    assert out[-2]["error"] == "unknown command 'paus\u00e9'"
    assert out[-1]["error"] == "unknown command '\u4e2d\U0001f600'"


def test_a_str_line_with_a_lone_surrogate(tmp_path):
    app, proto, _ = make_device(tmp_path)
    r = json.loads(proto.handle_line('{"id":1,"cmd":"\ud800"}'))
    assert r == {"id": None, "ok": False, "error": "bad JSON: invalid UTF-8"}
