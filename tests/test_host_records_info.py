"""Issue 19, item 3, the host's half: what the firmware now writes into a game's log (the
"game" record's `info` and `utc`, and `result` records) shows in `logs list`, `report`,
`export` (JSON, CSV) and the timed SGF (DT, EV, RO, PB, PW, HA, RE), with who decided the
result; an SGF's own properties win on --merge, with a warning where the log differs. A log
without them (older firmware) reports as before. Every log here is the real firmware's.
"""

import csv
import io
import json

import pytest
from sgfmill import sgf

from goclock.cli import main
from goclockfw.storage import logline
from support.cli import own_home, run  # noqa: F401 (own_home: autouse)
from support.vclock import VirtualClock

BYO = {"type": "byoyomi", "main": 5, "periods": 1, "period": 10}
DETAILS = dict(
    event="Club Open 2027", round=3, table=12, black="Ann Black", white="Bo White", handicap=2
)
UTC = 1796000000000  # 2026-11-30 00:53:20 UTC


def played(clock, details=True):
    """byo 5s+1x10s, assigned and with its time of day (unless not `details`): Black 3 s,
    White 1 s, Black flags (W+T by the clock); the arbiter rules the timeout a pass ("?");
    White 1 s; Black flags again (W+T); then the host enters W+R. The game's id."""
    clock.configure(BYO)
    if details:
        clock.ask("assign", **DETAILS)
        clock.ask("time.sync", utc=UTC)
    t0 = clock.now
    clock.start()
    clock.play([(t0 + 3000, "black"), (t0 + 4000, "white")])
    clock.run(30000)
    s = clock.session
    assert s.commands.can_timeout_pass()
    s.commands.timeout_pass()
    clock.step()
    clock.play([(clock.now + 1000, "white")])
    clock.run(60000)
    assert clock.state() == "ended"
    clock.ask("result", result="W+R")
    return s.journal.current


@pytest.fixture(scope="module")
def full_log():
    clock = VirtualClock()
    return clock.log(played(clock))


def rechained(data, drop):
    """The log with the records of kinds in `drop` left out and the chain made again: what
    a clock of older firmware (no result records) wrote for the same game."""
    out, prev = [], 0
    for raw in data.split(b"\n"):
        if not raw or not raw.strip(b"."):
            out.append(raw)
            continue
        record = logline.after_marks(raw)
        if record != raw:  # the marks before it on a line of their own, as that firmware
            out.append(raw[: len(raw) - len(record)])
            raw = record
        rec, _ = logline.check_line(raw, prev)
        prev = logline.claimed(raw)
        if rec["event"] in drop:
            continue
        body = raw[:-16]
        c = logline.crc(b"}", logline.crc(body, out_prev(out)))
        out.append(body + b',"c":"%08x"}' % c)
    return b"\n".join(out)


def out_prev(lines):
    for raw in reversed(lines):
        if raw and raw.strip(b"."):
            return logline.claimed(raw)
    return 0


@pytest.fixture(scope="module")
def old_log():
    clock = VirtualClock()
    data = rechained(clock.log(played(clock, details=False)), {"result"})
    assert logline.verify_bytes(data)["ok"]
    assert b'"result"' not in data and b'"info"' not in data
    return data


def write(tmp_path, data, name="game.log"):
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def test_the_report_shows_the_details_and_who_decided_the_result(
    tmp_path, full_log, capsys, monkeypatch
):
    monkeypatch.setenv("COLUMNS", "250")
    rc, out, err = run(capsys, "logs", "report", write(tmp_path, full_log))
    assert rc == 0, err
    assert (
        "2026-11-30 00:53:20 UTC, Club Open 2027, round 3, table 12, "
        "Black Ann Black - White Bo White, handicap 2" in out
    )
    assert (
        "result: W+R: White wins by resignation, entered at the host (record 36); "
        "it supersedes W+T (record 35)" in out
    )
    # Each result among the decisions, the clock's own and the ruling's "?".
    assert "result W+T: White wins on time, decided by the clock" in out
    assert "result ?: no result yet, decided by the clock: the timeout was ruled a pass" in out


def test_the_export_carries_details_and_results(tmp_path, full_log, capsys):
    path = write(tmp_path, full_log)
    rc, out, err = run(capsys, "logs", "export", path)
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["details"] == dict(DETAILS, utc=UTC, date="2026-11-30", time="00:53:20")
    assert [(r["result"], r["by"]) for r in doc["results"]] == [
        ("W+T", "clock"),
        ("?", "clock"),
        ("W+T", "clock"),
        ("W+R", "host"),
    ]
    assert [r["superseded"] for r in doc["results"]] == [21, 35, 36, None]
    assert doc["final_result"]["result"] == "W+R" and doc["final_result"]["record"] == 36
    rc, out, err = run(capsys, "logs", "export", path, "--format", "csv")
    assert rc == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    head = rows[0]
    assert head["event"] == "game" and head["event_name"] == "Club Open 2027"
    assert (head["date"], head["time_utc"], head["round"], head["table"]) == (
        "2026-11-30",
        "00:53:20",
        "3",
        "12",
    )
    assert (head["black"], head["white"], head["handicap"]) == ("Ann Black", "Bo White", "2")
    results = [(r["result"], r["by"]) for r in rows if r["event"] == "result"]
    assert results[-1] == ("W+R", "host") and len(results) == 4


def _root(path):
    with open(path, "rb") as f:
        return sgf.Sgf_game.from_bytes(f.read()).get_root()


def test_the_timed_sgf_has_the_details_and_the_result(tmp_path, full_log, capsys):
    out_path = str(tmp_path / "times.sgf")
    rc, out, err = run(capsys, "logs", "sgf", write(tmp_path, full_log), "-o", out_path)
    assert rc == 0, err
    root = _root(out_path)
    got = {p: root.get(p) for p in ("DT", "EV", "RO", "PB", "PW", "HA", "RE")}
    assert got == {
        "DT": "2026-11-30",
        "EV": "Club Open 2027",
        "RO": "3",
        "PB": "Ann Black",
        "PW": "Bo White",
        "HA": 2,
        "RE": "W+R",
    }
    assert "table 12" in root.get("C")
    assert "warning" not in err


def merged(tmp_path, capsys, log, sgf_bytes):
    """`logs sgf LOG --merge` of an SGF holding `sgf_bytes`: (the merged root, stderr)."""
    theirs = tmp_path / "theirs.sgf"
    theirs.write_bytes(sgf_bytes)
    out_path = str(tmp_path / "merged.sgf")
    rc, out, err = run(capsys, "logs", "sgf", log, "--merge", str(theirs), "-o", out_path)
    assert rc == 0, err
    return _root(out_path), err


def test_a_merged_sgf_keeps_its_own_properties_and_warns_where_they_differ(
    tmp_path, full_log, capsys
):
    log = write(tmp_path, full_log)
    # White's name as the SGF has it; RE in another form of the same result; no DT, RO.
    sgf_bytes = b"(;FF[4]GM[1]SZ[19]PW[Bo W.]RE[W+Resign];B[pd];W[dp];B[];W[pp])"
    root, err = merged(tmp_path, capsys, log, sgf_bytes)
    assert root.get("PW") == "Bo W." and root.get("RE") == "W+Resign"  # the SGF's own win
    assert root.get("PB") == "Ann Black" and root.get("DT") == "2026-11-30"  # filled in
    assert root.get("RO") == "3" and root.get("HA") == 2
    assert "the SGF's PW[Bo W.] is kept; the clock log has Bo White" in err
    assert "RE[" not in err  # W+Resign is W+R
    # A result that differs is kept and warned of.
    root, err = merged(tmp_path, capsys, log, b"(;FF[4]GM[1]SZ[19]RE[B+2.5];B[pd];W[dp];B[];W[pp])")
    assert root.get("RE") == "B+2.5"
    assert "the SGF's result RE[B+2.5] is kept; the clock says W+R" in err


def test_a_log_of_older_firmware_reports_as_before(tmp_path, old_log, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")
    path = write(tmp_path, old_log)
    rc, out, err = run(capsys, "logs", "report", path)
    assert rc == 0, err
    first = out.splitlines()[:2]
    assert first[0].startswith("game 1 (byo 5s+1x10s): Black lost on time")
    assert first[1] == "time per move"  # no details line, no result line
    assert "result" not in out
    rc, out, err = run(capsys, "logs", "export", path)
    doc = json.loads(out)
    assert doc["details"] == {} and doc["results"] == [] and doc["final_result"] is None
    assert doc["result"]["winner"] == "white"  # the clock's own loss, replayed, as before
    out_path = str(tmp_path / "old.sgf")
    rc, out, err = run(capsys, "logs", "sgf", path, "-o", out_path)
    root = _root(out_path)
    # As before: a loss in the last period with no end record may still be ruled a pass,
    # so the clock's replayed loss gives no RE.
    assert not any(root.has_property(p) for p in ("DT", "EV", "RO", "PB", "PW", "HA", "RE"))


def test_result_words_name_who_decided():
    from goclock.records import gameinfo

    assert gameinfo.result_words({"result": "B+F", "by": "clock"}) == (
        "B+F: Black wins by forfeit, decided by the clock"
    )
    assert gameinfo.result_words({"result": "B+3.5", "by": "hall"}) == (
        "B+3.5: Black wins by 3.5 points, entered at the hall"
    )
    assert gameinfo.result_words({"result": "0", "by": "board"}) == (
        "0: a draw, entered at the board"
    )
    assert gameinfo.normal("B+Resign") == gameinfo.normal("B+R") and gameinfo.normal("Draw") == "0"


def test_logs_list_shows_the_details_and_the_result(line, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")
    game = played(line.clock)
    line.clock.ask("reset")  # the next game: it has no log yet
    rc = main(["--port", line.path, "--json", "logs", "list"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    (entry,) = json.loads(out)
    assert entry["game"] == game
    assert entry["details"]["table"] == 12 and entry["details"]["date"] == "2026-11-30"
    assert (entry["result"], entry["result_by"]) == ("W+R", "host")
    rc = main(["--port", line.path, "logs", "list"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert "2026-11-30 00:53:20 UTC" in out and "Club Open 2027, round 3, table 12" in out
    assert "W+R (host)" in out


def test_logs_list_of_a_game_without_details(line, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")
    line.clock.configure(BYO)
    line.clock.start()
    line.clock.play([(line.clock.now + 1000, "black")])
    line.clock.ask("pause")
    rc = main(["--port", line.path, "logs", "list"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    header = out.splitlines()[1]
    assert "game" in header and "started" not in header and "result" not in header


LONG = dict(event="第三届" * 10, round=3, table=12, black="李" * 50, white="山田" * 25)


def long_names(clock):
    """A game whose first record is longer than one `logs.get` chunk (names in CJK), lost
    on time and resigned after (B+R entered at the host). Its id."""
    clock.configure(BYO)
    clock.ask("assign", **LONG)
    t0 = clock.now
    clock.start()
    clock.play([(t0 + 3000, "black"), (t0 + 4000, "white")])
    clock.run(30000)
    clock.ask("result", result="B+R")
    game = clock.session.journal.current
    assert len(clock.log(game).split(b"\n", 1)[0]) > 512
    return game


def test_a_merged_sgf_in_a_charset_without_the_names_is_warned_of_not_broken(tmp_path, capsys):
    clock = VirtualClock()
    log = write(tmp_path, clock.log(long_names(clock)))
    root, err = merged(tmp_path, capsys, log, b"(;FF[4]CA[ISO-8859-1]GM[1]SZ[19];B[pd];W[dp])")
    assert root.get("RE") == "B+R" and root.get("RO") == "3"
    assert not root.has_property("PB") and not root.has_property("EV")
    assert "PB is not written: the SGF's charset (latin-1) cannot hold Black's name" in err


def test_logs_list_reads_a_first_record_longer_than_a_chunk(line, capsys):
    long_names(line.clock)
    rc = main(["--port", line.path, "--json", "logs", "list"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    (entry,) = json.loads(out)
    assert entry["details"]["black"] == LONG["black"] and entry["details"]["round"] == 3
    assert (entry["result"], entry["result_by"]) == ("B+R", "host")
