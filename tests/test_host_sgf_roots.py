"""The corpus of SGF roots in tests/sgf/ (see its README): what each reads as, or why it is
refused; the notes that say what was assumed; and `config set --from-sgf` with options."""

import os

import pytest

from conftest import REPO
from goclock.cli import main
from goclock.errors import NotationError
from goclock.timecontrol import sgfroot

CORPUS = os.path.join(REPO, "tests", "sgf")


def byo(main, periods, period):
    return {"type": "byoyomi", "main": main, "periods": periods, "period": period}


# file -> (time-control JSON before the defaults, a word every note must hold or None)
READS = {
    "ff4_kgs_byoyomi.sgf": (byo(1800, 5, 30), None),
    "ff4_kgs_canadian.sgf": (
        {"type": "canadian", "main": 600, "moves": 25, "period": 300, "carry": False},
        None,
    ),
    "ff4_gogui_moves.sgf": (
        {"type": "canadian", "main": 3600, "moves": 15, "period": 600, "carry": False},
        None,
    ),
    "ff4_delay_bronstein.sgf": (
        {"type": "delay", "main": 300, "delay": 5, "mode": "bronstein"},
        None,
    ),
    "ff4_sabaki_periods.sgf": (byo(0, 3, 10), None),
    "ogs_byoyomi.sgf": (byo(600, 5, 30), None),
    "ogs_canadian.sgf": (
        {"type": "canadian", "main": 1200, "moves": 20, "period": 300, "carry": False},
        None,
    ),
    "ogs_fischer.sgf": ({"type": "fischer", "main": 300, "increment": 30}, None),
    "ogs_fischer_zero.sgf": ({"type": "sudden_death", "main": 600}, "sudden death"),
    "ogs_simple.sgf": (byo(0, 1, 30), "per move"),
    "ogs_simple_with_tm.sgf": (byo(0, 1, 30), "ignored"),
    "ogs_absolute.sgf": ({"type": "sudden_death", "main": 1200}, "sudden death"),
    "ff3_lc_lt.sgf": (byo(3600, 3, 30), None),
    "ff3_om_op.sgf": (
        {"type": "canadian", "main": 3600, "moves": 25, "period": 600, "carry": False},
        None,
    ),
    "yuanyu.sgf": (byo(1200, 3, 30), None),
    "fox_tc_tt.sgf": (byo(3600, 3, 30), None),
    "fox_tc_zero.sgf": ({"type": "sudden_death", "main": 1200}, "sudden death"),
    "fox_tc_tt_empty.sgf": ({"type": "sudden_death", "main": 1200}, "sudden death"),
    "tm_minutes.sgf": ({"type": "sudden_death", "main": 1800}, "sudden death"),
    "tm_hours_byoyomi.sgf": (byo(7200, 5, 60), None),
    "tm_hms.sgf": (byo(5400, 3, 30), None),
    "tm_chinese_units.sgf": (byo(5400, 5, 60), None),
    "two_sources_agree.sgf": (byo(1200, 3, 30), None),
    "goclock_ing.sgf": (
        {"type": "ing", "main": 10800, "periods": 3, "period": 1200, "penalty": 2},
        None,
    ),
    "goclock_hourglass.sgf": ({"type": "hourglass", "main": 300}, None),
    # Issue 17 item 8: periods too short to call are read with the calls off, and said so;
    # a TM shorter than one period (a program that wrote minutes?) is read, with a note.
    "ff4_byoyomi_too_short_to_call.sgf": (
        dict(byo(600, 1, 5), calls="none"),
        "too short for the calls (at least 10 s, in whole seconds): read with calls=none",
    ),
    "ogs_simple_fast.sgf": (dict(byo(0, 1, 5), calls="none"), "read with calls=none"),
    "tm_minutes_as_seconds.sgf": (
        byo(30, 5, 60),
        "30 s of main time, less than a period (60 s): read as seconds, as SGF has it; if the "
        "program wrote minutes, give the time control as a notation: byo 30m+5x60s",
    ),
}

# file -> what the refusal says (never a silent sudden death)
REFUSED = {
    "ogs_none.sgf": "no TM (main time)",
    "ff3_lc_without_lt.sgf": "LC[3] gives byo-yomi periods but no LT",
    "ff3_lt_without_lc.sgf": "LT[30] gives byo-yomi periods but no LC",
    "ff3_om_without_op.sgf": "OM[25] gives moves per overtime but no OP",
    "igs_lt_flag.sgf": "LT[] (time was kept, as IGS writes it)",
    "fox_tc_only.sgf": "TC[3] gives byo-yomi periods but no TT",
    "fox_tt_only.sgf": "TT[30] gives byo-yomi periods but no TC",
    "fox_tc_not_a_number.sgf": "TC[three] is not a whole number",
    "fox_no_tm.sgf": "gives TC[3]TT[30] but no TM",
    "tm_not_a_duration.sgf": "TM[soon] is not a number of seconds",
    "two_sources_disagree.sgf": "two different overtimes, OT[5x30 byo-yomi] and TC[3]TT[60]",
    "ot_unknown.sgf": "cannot read the SGF overtime OT[until dawn]",
}


def test_every_corpus_file_has_an_expectation():
    files = {n for n in os.listdir(CORPUS) if n.endswith(".sgf")}
    assert files == set(READS) | set(REFUSED)


@pytest.mark.parametrize("name", sorted(READS))
def test_corpus_root_reads_as(name):
    expected, note_word = READS[name]
    raw, notes = sgfroot.read_sgf(os.path.join(CORPUS, name))
    assert sgfroot.time_control_from_sgf(os.path.join(CORPUS, name)) == dict(
        {"calls": "cn"}, **expected
    )
    if note_word is None:
        assert notes == []
    else:
        assert any(note_word in n for n in notes), notes


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_corpus_root_is_refused_with_a_reason(name):
    with pytest.raises(NotationError) as err:
        sgfroot.time_control_from_sgf(os.path.join(CORPUS, name))
    assert REFUSED[name] in str(err.value)


@pytest.mark.parametrize(
    "text, seconds",
    [
        ("3600", 3600),
        ("1800.0", 1800),
        ("30 min", 1800),
        ("30min", 1800),
        ("2h", 7200),
        ("2 hours", 7200),
        ("1h30m", 5400),
        ("1:30:00", 5400),
        ("25:00", 1500),
        ("90分", 5400),
        ("1.5 h", 5400),
        ("45 sec", 45),
    ],
)
def test_tm_durations(text, seconds):
    assert sgfroot.parse_seconds(text) == seconds


@pytest.mark.parametrize("text", ["soon", "30 fortnights", "1:2", "-5", "1h30"])
def test_tm_non_durations(text):
    with pytest.raises(ValueError):
        sgfroot.parse_seconds(text)


def run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_from_sgf_combines_with_options(capsys):
    """A root with a 5 s period the clock cannot call is read silent, and says so; asking
    for the calls all the same is refused with the reason."""
    path = os.path.join(CORPUS, "ogs_simple_fast.sgf")
    rc, out, err = run(capsys, "config", "set", "--from-sgf", path, "--dry-run")
    assert rc == 0 and out.strip() == "time control byo 0+1x5s calls=none", err
    assert "goclock: note: OT[5 simple]: periods of 5 s are too short for the calls" in err
    rc, out, err = run(capsys, "config", "set", "--from-sgf", path, "calls=cn", "--dry-run")
    assert rc == 2 and "period: at least 10 s with spoken calls" in err
    rc, out, err = run(
        capsys,
        "--json",
        "config",
        "set",
        "--from-sgf",
        path,
        "calls=none",
        "first=white",
        "--dry-run",
    )
    assert rc == 0, err
    assert '"calls": "none"' in out and '"first": "white"' in out and '"period": 5' in out
    assert "per move" in err  # the note says what was assumed


def test_from_sgf_with_odds_and_a_note(capsys):
    path = os.path.join(CORPUS, "ogs_absolute.sgf")
    rc, out, err = run(capsys, "config", "set", "--from-sgf", path, "white=10m", "--dry-run")
    assert rc == 0, err
    assert "sd 20m white=10m" in out
    assert "read as sudden death" in err


def test_from_sgf_refuses_a_second_time_control(capsys):
    path = os.path.join(CORPUS, "ogs_absolute.sgf")
    rc, out, err = run(capsys, "config", "set", "--from-sgf", path, "sd", "5m", "--dry-run")
    assert rc == 2 and "give the time control one way" in err


@pytest.mark.parametrize(
    "tc",
    [
        {"type": "ing", "main": 10800, "periods": 3, "period": 1200, "penalty": 2, "calls": "cn"},
        {"type": "hourglass", "main": 300, "calls": "cn"},
    ],
)
def test_goclock_written_roots_read_back(tc):
    tm, ot = sgfroot.root_properties(tc)
    text = "(;GM[1]FF[4]SZ[19]TM[%s]OT[%s])" % (tm, ot)
    from sgfmill import sgf

    assert sgfroot.time_control_from_root(sgf.Sgf_game.from_bytes(text.encode()).get_root()) == tc


def test_server_forms_are_written():
    assert sgfroot.root_properties(
        {"type": "fischer", "main": 300, "increment": 10, "max": 600}
    ) == ("300", "10 fischer")
    assert sgfroot.root_properties(
        {"type": "delay", "main": 0, "delay": 30, "mode": "bronstein"}
    ) == ("0", "30 simple")
    assert sgfroot.root_properties({"type": "untimed"}) == (None, None)
