"""Hundreds of malformed request lines: each gets an error reply and changes nothing.

The lines come from hypothesis (derandomized, so runs repeat); the same lines
are then replayed under the MicroPython unix port, whose json module and
exceptions differ from CPython's.
"""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goclockfw.protocol.commands import MAX_LINE
from protocol_support import make_device, snapshot, start_game
from support.mpy import run_mpy_json

COMMANDS = (
    "info status config.get config.set presets.get presets.set logs.list logs.get "
    "logs.clear watch time.set pause resume reset press"
).split()

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False),
    st.text(max_size=20),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)
bad_ids = st.one_of(st.booleans(), st.floats(), st.lists(st.integers(), max_size=2))


def not_side(v):
    return v not in ("black", "white")


def obj_line(obj):
    return json.dumps(obj, ensure_ascii=False).encode()


@st.composite
def bad_argument(draw):
    """A known command with an argument that cannot be right."""
    rid = draw(st.one_of(st.integers(0, 10**6), st.text(max_size=8)))
    wrong = draw(json_values)
    case = draw(st.integers(0, 11))
    if case == 0:
        req = {"cmd": "press", "side": draw(json_values.filter(not_side))}
    elif case == 1:
        req = {"cmd": "time.set", "side": draw(json_values.filter(not_side)), "main": 5}
    elif case == 2:
        key = draw(st.sampled_from(["main", "period"]))
        bad = draw(
            st.one_of(st.text(), st.booleans(), st.lists(st.integers()), st.integers(max_value=-1))
        )
        req = {"cmd": "time.set", "side": "black", key: bad}
    elif case == 3:
        key = draw(st.sampled_from(["periods", "moves"]))
        bad = draw(json_values.filter(lambda v: not (isinstance(v, int) and 0 <= v <= 1000)))
        if bad is None:
            bad = "x"
        req = {"cmd": "time.set", "side": "white", key: bad}
    elif case == 4:
        req = {
            "cmd": "config.set",
            "config": draw(json_values.filter(lambda v: not isinstance(v, dict))),
        }
    elif case == 5:
        field = draw(
            st.sampled_from(["volume", "voice", "battery_low_mv", "buttons", "time_control"])
        )
        bad = draw(
            st.one_of(st.none(), st.lists(st.integers(), max_size=2), st.floats(), st.booleans())
        )
        req = {"cmd": "config.set", "config": {field: bad}}
    elif case == 6:
        req = {
            "cmd": "presets.set",
            "presets": draw(json_values.filter(lambda v: not isinstance(v, list))),
        }
    elif case == 7:
        req = {"cmd": "presets.set", "presets": [wrong, {"name": 5}]}
    elif case == 8:
        bad = draw(json_values.filter(lambda v: not isinstance(v, bool)))
        req = {"cmd": "watch", "on": bad}
    elif case == 9:
        bad = draw(
            json_values.filter(lambda v: v is not None and not (isinstance(v, int) and 1 <= v <= 9))
        )
        req = {"cmd": "reset", "preset": bad}
    elif case == 10:
        key = draw(st.sampled_from(["game", "offset", "length"]))
        bad = draw(json_values.filter(lambda v: not (isinstance(v, int) and 1 <= v <= 512)))
        if bad is None:
            bad = -1
        req = {"cmd": "logs.get", "game": 1, key: bad}
    else:
        req = {"cmd": "logs.clear", "game": draw(json_values.filter(lambda v: v is not None))}
        if isinstance(req["game"], int) and not isinstance(req["game"], bool) and req["game"] >= 0:
            req["game"] = 10**6 + req["game"]  # no such game
    req["id"] = rid
    return obj_line(req)


random_lines = st.one_of(
    st.binary(max_size=200),
    st.text(max_size=100).map(lambda s: s.encode()),
    # objects without a usable cmd
    st.dictionaries(st.sampled_from(["id", "cmd", "side", "x"]), json_values, max_size=3).map(
        obj_line
    ),
)
surely_bad = st.one_of(
    # JSON, but not an object
    json_values.filter(lambda v: not isinstance(v, dict)).map(obj_line),
    # a known command, but an id of the wrong type
    st.builds(lambda c, i: obj_line({"id": i, "cmd": c}), st.sampled_from(COMMANDS), bad_ids),
    bad_argument(),
    bad_argument(),
    bad_argument(),
    # too long
    st.integers(MAX_LINE, 3 * MAX_LINE).map(
        lambda n: b'{"id":1,"cmd":"info","pad":"' + b"x" * n + b'"}'
    ),
)
malformed = st.one_of(
    random_lines.filter(lambda line: not may_be_valid(line)),
    surely_bad,
)


def may_be_valid(line):
    """A random line that parses as an object naming a known command might be a good request."""
    try:
        obj = json.loads(line)
    except ValueError:
        return False
    return isinstance(obj, dict) and obj.get("cmd") in COMMANDS


CORPUS = []


def make_app(tmp_path_factory):
    app, proto, _ = make_device(tmp_path_factory.mktemp("flash"), lambda s: None)
    start_game(app, proto)  # a game under way: White's clock runs
    return app, proto


@pytest.fixture(scope="module")
def running(tmp_path_factory):
    return make_app(tmp_path_factory)


@settings(
    max_examples=600,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
@given(line=malformed)
def test_malformed_line_is_refused_and_changes_nothing(running, line):
    app, proto = running
    before = snapshot(app)
    reply = proto.handle_line(line)
    r = json.loads(reply)
    assert r["ok"] is False and isinstance(r["error"], str) and r["error"], (line, r)
    assert set(r) == {"id", "ok", "error"}
    assert snapshot(app) == before
    assert app.clock.state == "running"
    CORPUS.append(line)


def test_same_lines_under_micropython(micropython, tmp_path, tmp_path_factory):
    if len(CORPUS) < 300:  # run alone: make the corpus first
        test_malformed_line_is_refused_and_changes_nothing(make_app(tmp_path_factory))
    assert len(CORPUS) >= 300
    corpus = tmp_path / "lines.bin"
    # hex per line: the lines hold newlines and any byte
    corpus.write_text("\n".join(line.hex() for line in CORPUS))
    flash = tmp_path / "flash"
    flash.mkdir()
    out = run_mpy_json(micropython, tmp_path, DRIVER, corpus, flash, timeout=120)
    assert out[-1] == {"done": len(CORPUS)}
    for line, r in zip(CORPUS, out[:-1]):
        assert r["ok"] is False and r["error"] and r["same"], (line, r)


DRIVER = """
import sys, json, binascii
from protocol_support import make_device, snapshot, start_game
app, proto, _ = make_device(sys.argv[2], lambda s: None)
start_game(app, proto)
n = 0
for hexline in open(sys.argv[1]).read().split("\\n"):
    line = binascii.unhexlify(hexline)
    before = snapshot(app)
    r = json.loads(proto.handle_line(line))
    r["same"] = snapshot(app) == before and app.clock.state == "running"
    print(json.dumps({"ok": r["ok"], "error": r.get("error"), "same": r["same"]}))
    n += 1
print(json.dumps({"done": n}))
"""
