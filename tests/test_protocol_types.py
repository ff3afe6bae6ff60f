"""Every field of every command, given JSON of any type: never `internal error`, and a refused
request changes nothing, on CPython and under the MicroPython unix port.

Hypothesis (derandomized) writes two kinds of requests for the whole command table:
- targeted: a request whose arguments all have the right kind, down to every field of a
  config or a preset (shapes.py's tables), but one, which gets a value of another kind: the
  refusal must name that field. Every field gets one such request as an explicit example,
  and hypothesis draws more;
- random: each argument any JSON value or one that is nearly right (a time control of the
  right shape with fields of any type), some of them valid by chance.
They run in one sequence against one clock; before each, the clock is steered to a running,
a paused or an idle game, whichever this command has met least, and explicit examples give
every command three turns, so every command meets every state whatever hypothesis draws.
The sequence, steering included, is then replayed under MicroPython and every reply
compared with CPython's.
"""

import copy
import json
import math
import re

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from goclockfw.protocol import shapes, strictjson
from goclockfw.protocol.commands import MAX_LINE
from protocol_support import make_device, snapshot, start_game
from support.mpy import run_mpy

any_json = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**20), 10**20),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=10),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


def mostly(good, other=any_json):
    """`good` three times in four, else `other` (hypothesis's one_of has no weights)."""
    return st.integers(0, 3).flatmap(lambda k: good if k < 3 else other)


small_ints = st.integers(-3, 12)
sides = mostly(st.sampled_from(["black", "white"]))
seconds = mostly(st.one_of(st.integers(-5, 400), st.floats(-1, 400)))


def near(shape):
    """A value shaped like `shape` (shapes.py's table) whose fields may have any type."""
    if isinstance(shape, tuple):
        return mostly(
            st.fixed_dictionaries(
                {}, optional={k: st.deferred(lambda s=s: near(s)) for k, s in shape}
            )
        )
    good = {
        shapes.NUMBER: st.one_of(st.integers(0, 100), st.floats(0, 100)),
        shapes.STRING: st.sampled_from(
            ["byoyomi", "canadian", "fischer", "delay", "sudden_death", "cn", "none", "black"]
            + ["white", "simple", "zh", "xx"]
        ),
        shapes.BOOL: st.booleans(),
    }[shape]
    return mostly(good)


ARGS = {
    "info": {},
    "status": {},
    "config.get": {},
    "config.set": {"config": near(shapes.CONFIG)},
    "presets.get": {},
    "presets.set": {"presets": mostly(st.lists(near(shapes.PRESET), min_size=1, max_size=3))},
    "logs.list": {},
    "logs.get": {
        "game": mostly(small_ints),
        "offset": mostly(small_ints),
        "length": mostly(st.integers(0, 600)),
    },
    "logs.clear": {"game": mostly(small_ints)},
    "watch": {"on": mostly(st.booleans())},
    "time.set": {
        "side": sides,
        "main": seconds,
        "period": seconds,
        "periods": mostly(small_ints),
        "moves": mostly(small_ints),
    },
    "pause": {},
    "resume": {},
    "reset": {"preset": mostly(small_ints)},
    "press": {"side": sides},
    "late": {"side": sides},
    "arrive": {"side": sides},
    "maintenance": {},
    "assign": {
        "event": mostly(st.text(max_size=8)),
        "round": mostly(small_ints),
        "table": mostly(small_ints),
        "black": mostly(st.text(max_size=8)),
        "white": mostly(st.text(max_size=8)),
        "handicap": mostly(small_ints),
    },
    "time.sync": {"utc": mostly(st.integers(1577836800000, 4102444800000))},
    "result": {"result": mostly(st.sampled_from(["B+R", "W+T", "B+3.5", "0", "Void", "?", "x"]))},
    "arbiter.ack": {},
}


def test_the_table_covers_every_command(tmp_path):
    app, proto, _ = make_device(tmp_path)
    assert set(ARGS) == set(proto._cmds)
    assert {cmd for cmd in ARGS if ARGS[cmd]} == set(BASES)


# -- targeted: one field of the wrong kind -------------------------------------------------

ARRAY = "an array"
NULL = "null"
# A value of the right kind for each field name of shapes.py's tables.
VALID = {
    "type": "byoyomi",
    "main": 600,
    "periods": 3,
    "period": 30,
    "moves": 10,
    "increment": 5,
    "delay": 5,
    "carry": False,
    "mode": "simple",
    "calls": "cn",
    "first": "black",
    "late_limit": 900,
    "left": "black",
    "volume": 5,
    "voice": "zh",
    "battery_low_mv": 3500,
    "name": "mine",
}


def filled(table):
    """An object with every field of a shapes.py table, each of the right kind."""
    return {k: filled(sub) if isinstance(sub, tuple) else VALID[k] for k, sub in table}


def field_paths(table, prefix=()):
    """(keys, kind) of every field of a table, the nested ones too."""
    out = []
    for k, sub in table:
        out.append((prefix + (k,), shapes.OBJECT if isinstance(sub, tuple) else sub))
        if isinstance(sub, tuple):
            out += field_paths(sub, prefix + (k,))
    return out


# Each command with arguments: a request with all of them of the right kind, and their kinds
# (optional ones, which null leaves out, marked with a "?").
BASES = {
    "config.set": ({"config": filled(shapes.CONFIG)}, {"config": shapes.OBJECT}),
    "presets.set": ({"presets": [filled(shapes.PRESET)]}, {"presets": ARRAY}),
    "logs.get": (
        {"game": 1, "offset": 0, "length": 10},
        {"game": shapes.NUMBER, "offset": "?" + shapes.NUMBER, "length": "?" + shapes.NUMBER},
    ),
    "logs.clear": ({"game": 1}, {"game": "?" + shapes.NUMBER}),
    "watch": ({"on": False}, {"on": shapes.BOOL}),
    "time.set": (
        {"side": "black", "main": 10, "period": 10, "periods": 1, "moves": 1},
        {
            "side": shapes.STRING,
            "main": "?" + shapes.NUMBER,
            "period": "?" + shapes.NUMBER,
            "periods": "?" + shapes.NUMBER,
            "moves": "?" + shapes.NUMBER,
        },
    ),
    "reset": ({"preset": 1}, {"preset": "?" + shapes.NUMBER}),
    "press": ({"side": "black"}, {"side": shapes.STRING}),
    "late": ({"side": "black"}, {"side": shapes.STRING}),
    "arrive": ({"side": "black"}, {"side": shapes.STRING}),
    "assign": (
        {"event": "open", "round": 1, "table": 2, "black": "b", "white": "w", "handicap": 0},
        {
            "event": "?" + shapes.STRING,
            "round": "?" + shapes.NUMBER,
            "table": "?" + shapes.NUMBER,
            "black": "?" + shapes.STRING,
            "white": "?" + shapes.STRING,
            "handicap": "?" + shapes.NUMBER,
        },
    ),
    "time.sync": ({"utc": 1796000000000}, {"utc": shapes.NUMBER}),
    "result": ({"result": "B+R"}, {"result": shapes.STRING}),
}

# (command, where in the request, the field's kind, what the refusal starts with or holds)
TARGETS = (
    [
        (cmd, (arg,), kind, "'%s'" % arg)
        for cmd, (_, kinds) in sorted(BASES.items())
        for arg, kind in sorted(kinds.items())
    ]
    + [
        ("config.set", ("config",) + keys, kind, ".".join(keys) + ":")
        for keys, kind in field_paths(shapes.CONFIG)
    ]
    + [
        ("presets.set", ("presets", 0) + keys, kind, "presets[0]." + ".".join(keys) + ":")
        for keys, kind in field_paths(shapes.PRESET)
    ]
)
KIND_VALUES = {
    shapes.NUMBER: st.one_of(st.integers(-(10**6), 10**6), st.floats(-1e6, 1e6)),
    shapes.STRING: st.text(max_size=8),
    shapes.BOOL: st.booleans(),
    shapes.OBJECT: st.dictionaries(st.text(max_size=4), any_json, max_size=2),
    ARRAY: st.lists(any_json, max_size=2),
    NULL: st.none(),
}


def wrong_kind(kind):
    """Values of any kind but `kind` (and not null for an optional argument)."""
    optional = kind.startswith("?")
    kind = kind.lstrip("?")
    return st.one_of(
        [v for k, v in KIND_VALUES.items() if k != kind and not (optional and k == NULL)]
    )


def targeted_line(target, value, rid=0):
    cmd, where, _, _ = target
    req = copy.deepcopy(BASES[cmd][0])
    node = req
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    req.update(id=rid, cmd=cmd)
    return json.dumps(req).encode()


@st.composite
def targeted(draw):
    target = draw(st.sampled_from(TARGETS))
    value = draw(wrong_kind(target[2]))
    return targeted_line(target, value, draw(st.integers(0, 999))), target[3]


@st.composite
def requests(draw):
    cmd = draw(st.sampled_from(sorted(ARGS)))
    req = {"id": draw(st.integers(0, 999)), "cmd": cmd}
    for key, values in ARGS[cmd].items():
        if draw(st.integers(0, 3)) < 3:  # most arguments present
            req[key] = draw(values)
    if draw(st.integers(0, 9)) == 0:
        req["stray"] = draw(any_json)  # unknown arguments are ignored
    line = json.dumps(req, ensure_ascii=draw(st.booleans())).encode("utf-8")
    return line if len(line) < MAX_LINE else json.dumps({"id": 1, "cmd": cmd}).encode()


SEQUENCE = []


@pytest.fixture(scope="module")
def device(tmp_path_factory):
    return fresh(tmp_path_factory.mktemp("flash"))


def fresh(flash):
    app, proto, _ = make_device(flash, lambda s: None)
    start_game(app, proto)
    return app, proto


def explicit(test):
    """Every field once with a value of another kind (an array, or an object for an array:
    neither can be looked up in a table); every command three times (so in each state)."""
    for target in TARGETS:
        wrong = {} if target[2] == ARRAY else []
        test = example(case=(targeted_line(target, wrong), target[3]))(test)
    for cmd in sorted(ARGS):
        req = dict({k: [] for k in ARGS[cmd]}, id=0, cmd=cmd)
        for _ in range(3):
            test = example(case=(json.dumps(req).encode(), None))(test)
    return test


@settings(
    max_examples=250,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@explicit
@given(case=st.one_of(targeted(), requests().map(lambda line: (line, None))))
def test_no_internal_error_and_refusals_change_nothing(device, case):
    line, names = case
    app, proto = device
    cmd = json.loads(line)["cmd"]
    steer(app, proto, min(STATES, key=lambda s: MET.count((cmd, s))))
    MET.append((cmd, app.commands.status()["state"]))
    before = snapshot(app)
    reply = proto.handle_line(line)
    r = strictjson.loads(reply.encode("utf-8") if isinstance(reply, str) else reply)
    assert isinstance(r["ok"], bool), r
    if not r["ok"]:
        assert not r["error"].startswith("internal error"), (line, r)
        assert not r["error"].startswith("bad JSON"), (line, r)  # CPython wrote them
        assert snapshot(app) == before, (line, r)
    if names is not None:  # one field of the wrong kind: refused, and named
        assert not r["ok"], (line, r)
        assert r["error"].startswith(names) or names in r["error"], (line, r, names)
    SEQUENCE.append((line, r))


STATES = ("running", "paused", "idle")
MET = []  # (command, the clock's state) of each generated request


def steer(app, proto, state):
    """Bring the clock to `state` with ordinary requests, recorded for the replay."""
    for _ in range(4):
        now = app.commands.status()["state"]
        if now == state:
            return
        if now == "running":
            send(proto, {"id": "steer", "cmd": "pause"})
        elif now == "paused" and state == "running":
            send(proto, {"id": "steer", "cmd": "resume"})
        elif now == "idle":
            for side in ("white", "black"):  # whichever starts this time control
                send(proto, {"id": "steer", "cmd": "press", "side": side})
        else:  # paused or ended, and not wanted
            send(proto, {"id": "steer", "cmd": "reset"})


def send(proto, req):
    line = json.dumps(req).encode()
    r = json.loads(proto.handle_line(line))
    SEQUENCE.append((line, r))
    return r


def test_every_command_met_every_state():
    the_sequence()
    assert {(cmd, state) for cmd in ARGS for state in STATES} <= set(MET)


def the_sequence():
    if len(MET) < 250:  # run alone: play the sequence first
        import tempfile

        with tempfile.TemporaryDirectory() as flash:
            test_no_internal_error_and_refusals_change_nothing(fresh(flash))
    return SEQUENCE


DRIVER = """
import sys, json, binascii
from protocol_support import make_device, snapshot, start_game
app, proto, _ = make_device(sys.argv[2], lambda s: None)
start_game(app, proto)
for hexline in open(sys.argv[1]).read().split("\\n"):
    before = snapshot(app)
    r = json.loads(proto.handle_line(binascii.unhexlify(hexline)))
    out = {"r": r, "same": r["ok"] or snapshot(app) == before}
    print(binascii.hexlify(json.dumps(out).encode()).decode())
print(binascii.hexlify(b'"done"').decode())
"""


def _unrepr(text):
    """MicroPython's repr writes non-ASCII as escapes ('\\xe9'), CPython's as the character."""
    return re.sub(
        r"\\(x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8})",
        lambda m: chr(int(m.group(1)[1:], 16)),
        text,
    )


def same(a, b):
    if isinstance(a, float) or isinstance(b, float):
        return a == b or math.isclose(a, b, rel_tol=1e-12)
    if isinstance(a, str) and isinstance(b, str):
        return a == b or _unrepr(a) == _unrepr(b)
    if isinstance(a, dict) and isinstance(b, dict):
        # flash_free is the flash's; which old games a full flash still keeps ("logs")
        # and so how many logs.clear removes, depend on each engine's littlefs (MicroPython's
        # keeps files' mtimes too). clock_id is made from random bytes on a board without
        # an id of its own: each engine's clock is another clock.
        skip = ("flash_free", "data", "logs", "removed", "clock_id")
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a if k not in skip)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def test_same_replies_under_micropython(micropython, tmp_path):
    sequence = the_sequence()
    path = tmp_path / "lines.hex"
    path.write_text("\n".join(line.hex() for line, _ in sequence))
    flash = tmp_path / "flash"
    flash.mkdir()
    rc, lines, err = run_mpy(micropython, tmp_path, DRIVER, path, flash, timeout=120)
    assert rc == 0, err
    out = [json.loads(bytes.fromhex(x).decode("utf-8")) for x in lines if x.strip()]
    assert out[-1] == "done" and len(out) == len(sequence) + 1
    for (line, want), got in zip(sequence, out):
        assert got["same"], (line, got)
        if order_free(got["r"], want, line):
            continue
        assert same(got["r"], want), (line, got["r"], want)


def order_free(a, b, line):
    """Two refusals that each name a field of the request, but not the same one.

    The config validators (storage/configcheck.py) visit the fields of a dict, whose order
    MicroPython does not keep: a request with two bad fields may be refused for either.
    """
    if a["ok"] or b["ok"] or a["error"] == b["error"]:
        return False
    req = json.loads(line)
    root = req.get("config") if "config" in req else req
    # the field named first (a missing time control field is named too: only its object
    # need be in the request)
    return all(
        isinstance(root, dict) and re.split(r"[.:\[]", err["error"])[0] in root for err in (a, b)
    )
