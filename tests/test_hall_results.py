# ruff: noqa: F811  (fixtures imported from tests/support are parameters here)
"""Pairings to the clocks and results back to OpenGotha: `goclock hall assign`, `goclock
hall result`, `goclock hall results --round N` (OpenGotha's games-only XML, validated
against OpenGotha's own tournament.dtd with lxml and read back by the standard library's
minidom; an EGF-style .h9; a CSV), and `goclock result GAME RE`.

Two clocks (the firmware under the unix port, published by the bridge) play round 1 of a
small tournament through a real Mosquitto: at table 1 Black loses on time (the clock
decides it), at table 2 the result is entered at the hall.
"""

import csv
import io
import os
import xml.dom.minidom

import pytest
from lxml import etree

from goclock.errors import UsageError
from goclock.hall import opengotha, results
from support.bridgeclock import runtime_dir  # noqa: F401 (a fixture)
from support.cli import own_home, run  # noqa: F401 (own_home: autouse)
from support.hallbridge import HALL, HallClock, hall_service
from support.mosquitto import mosquitto  # noqa: F401 (a fixture)

DTD = os.path.join(os.path.dirname(__file__), "data", "opengotha", "tournament.dtd")

# A tournament as OpenGotha saves it (the attributes its DTD declares), written for this test.
TOURNAMENT = """<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<Tournament dataVersion="201" fullVersionNumber="3.51.02" runningMode="SAL">
<Players>
<Player name="Sato" firstName="Ana" rank="3D" country="JP" club="Tky" rating="2300"/>
<Player name="Berg" firstName="Bo" rank="2D" country="SE" club="Sth" rating="2200"/>
<Player name="De Vries" firstName="Cas" rank="1K" country="NL" club="Ams" rating="2000"/>
<Player name="Lin" firstName="Dai Yu" rank="5K" country="TW" club="Tpe" rating="1600"/>
</Players>
<Games>
<Game roundNumber="1" tableNumber="1" whitePlayer="BERGBO" blackPlayer="SATOANA" handicap="0" knownColor="true" result="RESULT_UNKNOWN"/>
<Game roundNumber="1" tableNumber="2" whitePlayer="DEVRIESCAS" blackPlayer="LINDAIYU" handicap="2" knownColor="true" result="RESULT_UNKNOWN"/>
</Games>
<TournamentParameterSet>
<GeneralParameterSet name="Club Open 2027" shortName="clubopen"/>
</TournamentParameterSet>
</Tournament>
"""


def valid_against_dtd(data):
    dtd = etree.DTD(DTD)
    doc = etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True))
    assert dtd.validate(doc), dtd.error_log.filter_from_errors()


def test_sgf_results_and_opengotha_names():
    for good in (
        "B+R",
        "W+T",
        "B+Resign",
        "W+Time",
        "B+F",
        "B+3.5",
        "W+12",
        "W+",
        "0",
        "Draw",
        "Void",
        "?",
    ):
        assert opengotha.check_re(good) == good
    for bad in ("", "b+r", "B+X", "B-R", "W+3.", "Jigo", "B+R ", None):
        with pytest.raises(UsageError):
            opengotha.check_re(bad)
    assert [opengotha.result_of(x) for x in ("B+R", "W+T", "W+0.5", "0", "B+F", "Void", "?")] == [
        "RESULT_BLACKWINS",
        "RESULT_WHITEWINS",
        "RESULT_WHITEWINS",
        "RESULT_EQUAL",
        "RESULT_BLACKWINS_BYDEF",
        "RESULT_UNKNOWN",
        "RESULT_UNKNOWN",
    ]
    assert opengotha.key_of("De Vries", "Cas") == "DEVRIESCAS"


def test_reading_a_tournament_and_its_mistakes(tmp_path):
    path = tmp_path / "t.xml"
    path.write_text(TOURNAMENT)
    t = opengotha.read(str(path))
    assert t.name == "Club Open 2027" and len(t.players) == 4
    assert [(g.table, g.black, g.white, g.handicap) for g in t.round(1)] == [
        (1, "SATOANA", "BERGBO", 0),
        (2, "LINDAIYU", "DEVRIESCAS", 2),
    ]
    assert t.players["LINDAIYU"].full_name == "Dai Yu Lin"
    for text, says in (
        ("<nope/>", "not an OpenGotha tournament"),
        (
            "<Tournament><Games><Game roundNumber='x' tableNumber='1'/></Games></Tournament>",
            "not a whole number",
        ),
        (
            TOURNAMENT.replace('blackPlayer="SATOANA"', 'blackPlayer="NOBODY"'),
            "not among its players",
        ),
        ("<Tournament", "not XML"),
    ):
        path.write_text(text)
        with pytest.raises(UsageError, match=says):
            opengotha.read(str(path))
    with pytest.raises(UsageError, match="cannot read"):
        opengotha.read(str(tmp_path / "none.xml"))


def test_a_loss_on_time_in_the_log_and_a_ruling_after_it():
    press = {"event": "press", "t": 1}
    timeout = {"event": "timeout", "t": 2, "side": "black"}
    assert results.log_result([press, timeout]) == ("W+T", "clock")
    ruling = {"event": "ruling", "t": 3, "ruling": "timeout_pass"}
    assert results.log_result([press, timeout, ruling]) == (None, None)
    later = {"event": "result", "t": 9, "result": "B+R", "by": "hall"}
    assert results.log_result([press, timeout, ruling, later]) == ("B+R", "hall")


def test_a_round_assigned_played_and_its_results_out(runtime_dir, mosquitto, tmp_path, capsys):
    folder = tmp_path / "hall"
    tfile = tmp_path / "tournament.xml"
    tfile.write_text(TOURNAMENT)
    conn = ("--hall", HALL, "--broker", "127.0.0.1:%d" % mosquitto.port, "--folder", str(folder))
    svc = hall_service(mosquitto.port, folder)
    tables = [HallClock(tmp_path, "table-%d" % n, mosquitto.port) for n in (1, 2)]
    try:
        rc, out, err = run(capsys, "hall", "assign", str(tfile), "--round", "1", *conn)
        # Each clock takes its table's pairing (the firmware's `assign`, through the bridge).
        assert rc == 0, (out, err)
        assert out.splitlines()[:2] == [
            "table 1 (table-1): Ana Sato – Bo Berg",
            "table 2 (table-2): Dai Yu Lin – Cas De Vries",
        ]
        assert "kept in" in out
        t1, t2 = tables
        t1.new_game(capsys, ("sd", "1m"))
        t2.new_game(capsys, ("sd", "1h"))
        games = [t.status()["game"] for t in tables]
        t2.moves(capsys, 3)
        # `goclock result` over the line: the clock writes it into the game's log.
        t2.cli(capsys, "pause")
        rc, out, err = run(capsys, "--port", t2.port, "result", str(games[1] + 1), "B+R")
        assert rc == 2 and "not game %d" % (games[1] + 1) in err
        assert t2.cli(capsys, "result", str(games[1]), "W+R").strip() == "game %d: W+R" % games[1]
        t2.cli(capsys, "resume")
        t1.clock.fw.wait(61000)  # Black's minute runs out: the clock decides a loss on time
        assert t1.status()["black"]["flagged"]
        for t in tables:
            t.end(capsys)
        for t, g in zip(tables, games):
            svc.wait(lambda t=t, g=g: svc.collector.game(t.name, g).ended, 30, "game collected")
        rc, out, err = run(capsys, "hall", "result", "2", "B+R", "--round", "1", *conn)
        assert rc == 0 and "B+R" in out, err
        rc, out, err = run(capsys, "hall", "result", "9", "B+R", "--round", "1", *conn)
        assert rc == 2 and "no table 9" in err
        rc, out, err = run(capsys, "hall", "results", "--round", "1", *conn)
        assert rc == 0, err
        assert "table 1: Ana Sato – Bo Berg  W+T (clock, table-1 game %d)" % games[0] in out
    finally:
        for t in tables:
            t.stop()
        svc.stop()
    data = (folder / "round-1.xml").read_bytes()
    valid_against_dtd(data)
    doc = xml.dom.minidom.parseString(data)  # an independent parser reads it back
    got = [
        {
            k: g.getAttribute(k)
            for k in (
                "roundNumber",
                "tableNumber",
                "blackPlayer",
                "whitePlayer",
                "handicap",
                "result",
            )
        }
        for g in doc.getElementsByTagName("Game")
    ]
    assert got == [
        {
            "roundNumber": "1",
            "tableNumber": "1",
            "blackPlayer": "SATOANA",
            "whitePlayer": "BERGBO",
            "handicap": "0",
            "result": "RESULT_WHITEWINS",
        },
        {
            "roundNumber": "1",
            "tableNumber": "2",
            "blackPlayer": "LINDAIYU",
            "whitePlayer": "DEVRIESCAS",
            "handicap": "2",
            "result": "RESULT_BLACKWINS",
        },
    ]
    assert doc.documentElement.getAttribute("dataVersion") == "201"
    rows = list(csv.DictReader(io.StringIO((folder / "round-1.csv").read_text())))
    assert [(r["table"], r["result"], r["by"]) for r in rows] == [
        ("1", "W+T", "clock"),
        ("2", "B+R", "hall"),
    ]
    h9 = (folder / "round-1.h9").read_text().splitlines()
    assert h9[0] == "; EV[Club Open 2027]"
    players = {line.split()[1]: line for line in h9 if not line.startswith(";")}
    # Numbered by rating: Sato 1, Berg 2, De Vries 3, Lin 4.
    assert players["Sato"].split()[0] == "1" and players["Sato"].endswith("2-/b0")
    assert players["Berg"].endswith("1+/w0")
    assert players["Lin"].endswith("3+/b2") and players["De"].endswith("4-/w2")


def test_results_of_a_round_never_assigned(tmp_path, capsys):
    rc, out, err = run(
        capsys, "hall", "results", "--round", "3", "--hall", HALL, "--folder", str(tmp_path)
    )
    assert rc == 2 and "never assigned" in err
