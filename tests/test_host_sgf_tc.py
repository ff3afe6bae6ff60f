"""Reading an SGF game record's time control (TM, OT, Fox's TC/TT) and writing TM/OT."""

import pytest
from sgfmill import sgf

from goclock.errors import NotationError
from goclock.timecontrol import sgfroot


def root_of(text):
    return sgf.Sgf_game.from_bytes(text.encode()).get_root()


@pytest.mark.parametrize(
    "props,expected",
    [
        (
            "TM[1800]OT[5x30 byo-yomi]",
            {"type": "byoyomi", "main": 1800, "periods": 5, "period": 30},
        ),
        ("TM[0]OT[3x10 byo-yomi]", {"type": "byoyomi", "main": 0, "periods": 3, "period": 10}),
        ("TM[6900]OT[5*60]", {"type": "byoyomi", "main": 6900, "periods": 5, "period": 60}),
        (
            "TM[600]OT[25/300 Canadian]",
            {"type": "canadian", "main": 600, "moves": 25, "period": 300, "carry": False},
        ),
        (
            "TM[3600]OT[15 moves / 10 min]",
            {"type": "canadian", "main": 3600, "moves": 15, "period": 600, "carry": False},
        ),
        ("TM[300]OT[10 fischer]", {"type": "fischer", "main": 300, "increment": 10}),
        (
            "TM[300]OT[5 bronstein delay]",
            {"type": "delay", "main": 300, "delay": 5, "mode": "bronstein"},
        ),
        ("TM[300]OT[5 delay]", {"type": "delay", "main": 300, "delay": 5, "mode": "simple"}),
        ("TM[1200]", {"type": "sudden_death", "main": 1200}),
        ("TM[1200]TC[3]TT[30]", {"type": "byoyomi", "main": 1200, "periods": 3, "period": 30}),
        ("TM[1200]TC[0]TT[0]", {"type": "sudden_death", "main": 1200}),
        (
            "TM[1800.0]OT[ 5x30  byo-yomi ]",
            {"type": "byoyomi", "main": 1800, "periods": 5, "period": 30},
        ),
    ],
)
def test_root_time_control(props, expected):
    expected = dict(expected, calls="cn")
    assert (
        sgfroot.time_control_from_root(root_of("(;GM[1]FF[4]SZ[19]%s;B[pd])" % props)) == expected
    )


@pytest.mark.parametrize(
    "props,message",
    [
        ("", "has no TM"),
        ("TM[soon]", "TM[soon] is not a number"),
        ("TM[600]OT[until dawn]", "cannot read the SGF overtime OT[until dawn]"),
        ("TM[600]OT[5x0.5 byo-yomi]", "period: at least 1 second"),  # 5 s: read silent
        ("TM[600]TC[3]TT[half]", "TT[half] is not a number"),
    ],
)
def test_bad_root(props, message):
    with pytest.raises(NotationError) as err:
        sgfroot.time_control_from_root(root_of("(;GM[1]FF[4]SZ[19]%s)" % props))
    assert message in str(err.value)


@pytest.mark.parametrize(
    "tc",
    [
        {"type": "byoyomi", "main": 6900, "periods": 5, "period": 60, "calls": "cn"},
        {
            "type": "canadian",
            "main": 600,
            "moves": 25,
            "period": 300,
            "carry": False,
            "calls": "cn",
        },
        {"type": "fischer", "main": 300, "increment": 10, "calls": "cn"},
        {"type": "delay", "main": 300, "delay": 5, "mode": "simple", "calls": "cn"},
        {"type": "delay", "main": 300, "delay": 5, "mode": "bronstein", "calls": "cn"},
        {"type": "sudden_death", "main": 1200, "calls": "cn"},
    ],
)
def test_written_tm_ot_read_back(tc):
    tm, ot = sgfroot.root_properties(tc)
    game = sgf.Sgf_game(19)
    root = game.get_root()
    root.set_raw("TM", tm.encode())
    if ot:
        root.set("OT", ot)
    again = sgf.Sgf_game.from_bytes(game.serialise()).get_root()
    assert sgfroot.time_control_from_root(again) == tc


def test_from_file(tmp_path):
    path = tmp_path / "fox.sgf"
    path.write_bytes("(;GM[1]FF[4]SZ[19]PB[黑]PW[白]TM[3600]TC[5]TT[60];B[pd];W[dp])".encode())
    assert sgfroot.time_control_from_sgf(str(path))["periods"] == 5
    with pytest.raises(NotationError, match="cannot read"):
        sgfroot.time_control_from_sgf(str(tmp_path / "missing.sgf"))
    bad = tmp_path / "bad.sgf"
    bad.write_text("not an sgf")
    with pytest.raises(NotationError, match="not a valid SGF"):
        sgfroot.time_control_from_sgf(str(bad))
