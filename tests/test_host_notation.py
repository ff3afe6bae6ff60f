"""Time-control notation of the host tool: every form to JSON and back, and bad input."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from goclock.errors import NotationError
from goclock.timecontrol import notation

# The forms of issue 4, with the time-control JSON of issue 2 they stand for.
FORMS = [
    ("cn 2h/5", {"type": "byoyomi", "main": 6900, "periods": 5, "period": 60}),
    ("cn 1h/1", {"type": "byoyomi", "main": 3540, "periods": 1, "period": 60}),
    ("byo 1h+5x30s", {"type": "byoyomi", "main": 3600, "periods": 5, "period": 30}),
    ("byo 0+3x10s", {"type": "byoyomi", "main": 0, "periods": 3, "period": 10}),
    ("byo 20m+0", {"type": "byoyomi", "main": 1200, "periods": 0}),
    ("sd 30m", {"type": "sudden_death", "main": 1800}),
    (
        "can 1h+15/10m",
        {"type": "canadian", "main": 3600, "moves": 15, "period": 600, "carry": False},
    ),
    (
        "can 1h+15/10m carry",
        {"type": "canadian", "main": 3600, "moves": 15, "period": 600, "carry": True},
    ),
    ("fischer 5m+3s", {"type": "fischer", "main": 300, "increment": 3}),
    ("bronstein 5m+3s", {"type": "delay", "main": 300, "delay": 3, "mode": "bronstein"}),
    ("delay 5m+3s", {"type": "delay", "main": 300, "delay": 3, "mode": "simple"}),
    ("sd 1h white=30m", {"type": "sudden_death", "main": 3600, "white": {"main": 1800}}),
    (
        "byo 1h+5x30s white=20m white.periods=3",
        {
            "type": "byoyomi",
            "main": 3600,
            "periods": 5,
            "period": 30,
            "white": {"main": 1200, "periods": 3},
        },
    ),
    (
        "byo 10m+3x30s first=white",
        {"type": "byoyomi", "main": 600, "periods": 3, "period": 30, "first": "white"},
    ),
    (
        "sd 1h calls=none late=1h",
        {"type": "sudden_death", "main": 3600, "calls": "none", "late_limit": 3600},
    ),
    ("sd 90s silent", {"type": "sudden_death", "main": 90, "calls": "none"}),
    ("fischer 1:30:00+30s", {"type": "fischer", "main": 5400, "increment": 30}),
    ("byo 1h + 5 x 30s", {"type": "byoyomi", "main": 3600, "periods": 5, "period": 30}),
    ("byo 1h+5×30s", {"type": "byoyomi", "main": 3600, "periods": 5, "period": 30}),
    ("sd 1.5s calls=none", {"type": "sudden_death", "main": 1.5, "calls": "none"}),
    # Issue 12: the new controls, each round-tripping like the others.
    ("fischer 5m+10s max 10m", {"type": "fischer", "main": 300, "increment": 10, "max": 600}),
    ("fischer 5m+10s max=10m", {"type": "fischer", "main": 300, "increment": 10, "max": 600}),
    ("hourglass 5m", {"type": "hourglass", "main": 300}),
    ("untimed", {"type": "untimed"}),
    ("untimed first=white", {"type": "untimed", "first": "white"}),
    (
        "ing 3h+3x20m",
        {"type": "ing", "main": 10800, "periods": 3, "period": 1200, "penalty": 2},
    ),
    (
        "ing 3h+3x20m penalty=1",
        {"type": "ing", "main": 10800, "periods": 3, "period": 1200, "penalty": 1},
    ),
    ("bronstein 0+30s", {"type": "delay", "main": 0, "delay": 30, "mode": "bronstein"}),
    (
        "byo 1h+0x30s white.periods=3",
        {"type": "byoyomi", "main": 3600, "periods": 0, "period": 30, "white": {"periods": 3}},
    ),
    (
        "fischer 10m+5s white.max=20m",
        {"type": "fischer", "main": 600, "increment": 5, "white": {"max": 1200}},
    ),
]

# Go engines' time commands (GTP 2 time_settings, KGS kgs-time_settings), as documented.
GTP = [
    (
        "time_settings 1800 600 25",
        {"type": "canadian", "main": 1800, "moves": 25, "period": 600, "carry": False},
    ),
    ("time_settings 1800 0 0", {"type": "sudden_death", "main": 1800}),  # absolute
    ("time_settings 0 1 0", {"type": "untimed"}),  # B > 0, S = 0: no time limit
    ("kgs-time_settings none", {"type": "untimed"}),
    ("kgs-time_settings absolute 1800", {"type": "sudden_death", "main": 1800}),
    (
        "kgs-time_settings byoyomi 1800 30 5",
        {"type": "byoyomi", "main": 1800, "periods": 5, "period": 30},
    ),
    (
        "kgs-time_settings canadian 1800 600 25",
        {"type": "canadian", "main": 1800, "moves": 25, "period": 600, "carry": False},
    ),
    (
        "kgs-time_settings byoyomi 0 5 3 calls=none",
        {"type": "byoyomi", "main": 0, "periods": 3, "period": 5, "calls": "none"},
    ),
]


@pytest.mark.parametrize("text,expected", GTP)
def test_gtp_time_settings(text, expected):
    assert notation.parse(text) == _with_defaults(expected)


@pytest.mark.parametrize(
    "text,message",
    [
        ("time_settings 1800 600", "time_settings needs the form"),
        ("time_settings 30m 600 25", "'30m' is not a number of seconds"),
        ("kgs-time_settings byoyomi 1800 30", "kgs-time_settings needs the form"),
        ("kgs-time_settings fischer 1800 30", "kgs-time_settings needs the form"),
        ("time_settings 0 0 0", "main: must be more than 0"),
    ],
)
def test_bad_gtp_says_what_is_wrong(text, message):
    with pytest.raises(NotationError) as err:
        notation.parse(text)
    assert message in str(err.value)


@pytest.mark.parametrize(
    "text",
    [
        "byo 10s+2x60s",  # was echoed as cn 2m10s/2
        "byo 1h+0x30s",  # was echoed as byo 1h+0
        "byo 1h+5x60s",
        "byo 0+5x60s",
        "cn 2h/5",
        "cn 1h/1",
        "cn 30m/5",
        "byo 25m+5x30s",
        "fischer 5m+10s max 10m",
        "ing 3h+3x20m",
        "bronstein 0+30s",
    ],
)
def test_the_echo_reads_as_written(text):
    assert notation.format(notation.parse(text)) == text


def _with_defaults(tc):
    out = dict(tc)
    out.setdefault("calls", "cn")
    return out


@pytest.mark.parametrize("text,expected", FORMS)
def test_form_gives_the_json(text, expected):
    assert notation.parse(text) == _with_defaults(expected)


@pytest.mark.parametrize("text,expected", FORMS)
def test_json_round_trips_through_notation(text, expected):
    tc = notation.parse(text)
    again = notation.format(tc)
    assert notation.parse(again) == tc
    # Formatting is canonical: formatting the re-read JSON gives the same text.
    assert notation.format(notation.parse(again)) == again


def test_canonical_forms():
    assert notation.format(notation.parse("byo 1h55m+5x60s")) == "cn 2h/5"
    assert notation.format(notation.parse("fischer 90m+30s")) == "fischer 1h30m+30s"
    assert notation.format({"type": "sudden_death", "main": 5430}) == "sd 1h30m30s"


durations = st.integers(min_value=0, max_value=5 * 3600)
positive = st.integers(min_value=1, max_value=5 * 3600)
periods = st.integers(min_value=10, max_value=600)


@st.composite
def time_controls(draw):
    kind = draw(
        st.sampled_from(
            [
                "byoyomi",
                "canadian",
                "fischer",
                "delay",
                "sudden_death",
                "hourglass",
                "ing",
                "untimed",
            ]
        )
    )
    if kind == "byoyomi":
        tc = {
            "type": kind,
            "main": draw(durations),
            "periods": draw(st.integers(1, 30)),
            "period": draw(periods),
        }
    elif kind == "canadian":
        tc = {
            "type": kind,
            "main": draw(durations),
            "moves": draw(st.integers(1, 50)),
            "period": draw(periods),
            "carry": draw(st.booleans()),
        }
    elif kind == "fischer":
        tc = {"type": kind, "main": draw(positive), "increment": draw(st.integers(0, 120))}
        if draw(st.booleans()):
            tc["max"] = tc["main"] + draw(st.integers(0, 3600))
    elif kind == "ing":
        tc = {
            "type": kind,
            "main": draw(positive),
            "periods": draw(st.integers(0, 5)),
            "period": draw(periods),
            "penalty": draw(st.integers(1, 5)),
        }
    elif kind == "untimed":
        tc = {"type": kind}
    elif kind == "hourglass":
        tc = {"type": kind, "main": draw(st.integers(1, 3600))}
    elif kind == "delay":
        tc = {
            "type": kind,
            "main": draw(positive),
            "delay": draw(st.integers(0, 60)),
            "mode": draw(st.sampled_from(["bronstein", "simple"])),
        }
    else:
        tc = {"type": kind, "main": draw(positive)}
    tc["calls"] = draw(st.sampled_from(["cn", "none"]))
    if kind != "untimed" and "max" not in tc and draw(st.booleans()):
        tc["white"] = {"main": draw(positive if kind != "hourglass" else st.integers(1, 3600))}
    return tc


@settings(max_examples=200, deadline=None)
@given(time_controls())
def test_any_valid_json_round_trips(tc):
    assert notation.parse(notation.format(tc)) == tc


BAD = [
    ("", "no time control given"),
    ("sandglass 1h", "unknown time control 'sandglass'"),
    ("sd -5m", "a duration cannot be negative"),
    ("untimed 5m", "'5m' is not an option"),
    ("ing 3h+0", "ing needs the form"),
    ("sd 1h max 10m", "'max' only goes with Fischer"),
    ("fischer 5m+10s penalty=2", "'penalty' only goes with Ing"),
    ("fischer 5m+10s max 2m", "max: must be at least the main time"),
    ("byo 1h", "byo needs the form byo MAIN+PERIODSxPERIOD"),
    ("byo 90+5x30s", "'90' is not a duration (a unit is needed: 90m or 90s)"),
    ("cn 3m/5", "5 reserved minutes do not fit in a 3m limit"),
    ("cn 2h/five", "'five' is not a number of reserved minutes"),
    ("sd -5m", "'-5m' is not a duration"),
    ("byo 1h+5x5s", "period: at least 10 s with spoken calls"),
    ("can 1h+0/10m", "moves: must be from 1 to 200"),
    ("can 1h+15/0", "period: must be more than 0"),
    ("sd 0", "main: must be more than 0"),
    ("sd 1h carry", "'carry' only goes with Canadian time"),
    ("sd 1h loud", "'loud' is not an option"),
    ("sd 1h calls=shout", "calls=shout: unknown call profile (one of cn, jp, en, none"),
    ("sd 1h first=red", "first: must be 'black' or 'white'"),
    ("sd 1h white.colour=3", "white.colour: a side can override"),
    ("sd 1h white.periods=3", "white.periods: unknown key"),
    ("byo 1h+5x30s white.periods=x", "'x' is not a number of periods"),
    ("fischer 5m", "fischer needs the form fischer MAIN+INCREMENT"),
    ("sd 200h", "main: at most"),
]


@pytest.mark.parametrize("text,message", BAD)
def test_bad_notation_says_what_is_wrong(text, message):
    with pytest.raises(NotationError) as err:
        notation.parse(text)
    assert message in str(err.value)


@pytest.mark.parametrize(
    "text,seconds",
    [
        ("2h", 7200),
        ("1h30m", 5400),
        ("90s", 90),
        ("25:00", 1500),
        ("1:02:03", 3723),
        ("0", 0),
        ("2.5s", 2.5),
        ("5m30s", 330),
    ],
)
def test_durations(text, seconds):
    assert notation.parse_duration(text) == seconds
    assert notation.parse_duration(notation.format_duration(seconds)) == seconds


# Issue 17 item 7: what a tired user types. The natural spellings are read as meant (and
# echoed in the tool's own notation); a slip is refused with the closest word.
NATURAL = [
    ("sd 30min", "sd 30m"),
    ("sd 30 min", "sd 30m"),
    ("sd 30 minutes", "sd 30m"),
    ("sd 1.5h", "sd 1h30m"),
    ("sd 1.1h", "sd 1h6m"),
    ("sd 2hours", "sd 2h"),
    ("sd 1h 30min", None),  # two words: not one duration (refused below)
    ("fischer 5min+10sec", "fischer 5m+10s"),
    ("byo 1 h + 5 x 30 sec", "byo 1h+5x30s"),
    ("byo 0+3x10s calls=none", "byo 0+3x10s calls=none"),
    ("sd 500ms calls=none", "sd 0.5s calls=none"),
    ("cn2h/5", "cn 2h/5"),
    ("byo1h+5x30s", "byo 1h+5x30s"),
    ("can 1h+15/10m carry=yes", "can 1h+15/10m carry"),
    ("can 1h+15/10m carry=no", "can 1h+15/10m"),
    ("sd 30m calls=silent", "sd 30m calls=none"),
    ("sd 30m calls=off", "sd 30m calls=none"),
    ("sd 30m calls=japanese", "sd 30m calls=jp"),
    ("sudden-death 1h", "sd 1h"),
    ("byo-yomi 10m+3x30s", "byo 10m+3x30s"),
]


@pytest.mark.parametrize("text,echo", [n for n in NATURAL if n[1]])
def test_natural_spellings_are_read_as_meant(text, echo):
    tc = notation.parse(text)
    assert notation.format(tc) == echo
    assert notation.parse(echo) == tc


SLIPS = [
    ("fisher 5m+10s", "unknown time control 'fisher' — did you mean fischer? (fischer 5m+10s)"),
    ("fisher5m+10s", "unknown time control 'fisher' — did you mean fischer? (fischer 5m+10s)"),
    ("bronstien 5m+3s", "did you mean bronstein?"),
    ("canadien 1h+15/10m", "did you mean canadian?"),
    ("sd 1h 30min", "'30min' is not an option"),
    ("sd 30m calls=chinse", "calls=chinse: unknown call profile — did you mean chinese?"),
    ("sd 30m peanlty=2", "unknown option 'peanlty' — did you mean penalty?"),
    ("can 1h+15/10m carry=maybe", "carry=maybe: write carry (or carry=yes), or carry=no"),
    ("sd 30m sil", "'sil' is not an option — did you mean silent?"),
    ("sd 30m1h", "'30m1h' is not a duration"),
    ("sd 1m1m", "'1m1m' is not a duration"),
]


@pytest.mark.parametrize("text,message", SLIPS)
def test_slips_are_refused_with_the_closest_word(text, message):
    with pytest.raises(NotationError) as err:
        notation.parse(text)
    assert message in str(err.value)


def test_a_misspelt_type_is_not_taken_for_options():
    # It used to say "options need a time control to apply to".
    assert not notation.is_options_only("fisher 5m+10s")
    assert not notation.is_options_only("cn2h/5")
    assert notation.is_options_only("calls=none white=10m")
    assert notation.is_options_only("carry")
