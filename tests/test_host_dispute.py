"""Issue 17, items 4-6: what a dispute needs, from logs the real firmware wrote.

Item 4: after a late arrival and an arbiter's adjustment, `logs report` showed no lateness
charge, no adjustment, no pauses, and its totals did not explain the time left. Now the
report, the export (JSON and CSV) and the timed SGF show every arbiter action and decision
(before -> after, what was given, how long a pause lasted), and each side's main time is
accounted for: start + increments + received - used - lateness +/- adjustments = shown.
A game lost on time is pulled as ended, not "still on".

Item 5: an altered log was verified with file lines and record numbers counted two ways,
reported and exported with exit 0, its moves renumbered; `logs verify` took one file and
called a README "ALTERED". Item 6, the merge half of item 8: a ruled pass put onto a stone
without a word; `logs sgf` without --merge, and to standard output.
"""

import csv
import io
import json
import re

import pytest
from sgfmill import sgf

from goclock.cli import main
from goclock.records import sgfmerge
from goclock.records.gamerecord import GameRecord
from goclock.records.verify import Check
from goclockfw.storage import logline
from support.cli import own_home, run  # noqa: F401 (own_home: autouse)
from support.clockline import ClockLine
from support.vclock import VirtualClock

SD_10M = {"type": "sudden_death", "main": 600}


def dispute(clock):
    """sd 10m: Black is late and arrives after 1:00 (charged twice that in all); Black
    1:05 (its first move, the minute away included), White 0:10, Black 0:15.5; paused 9.5 s
    into White's move for 30 s, in which the arbiter sets White's main time to 5:00; White
    moves 10 s after the resume, and Black's clock runs out."""
    clock.configure(SD_10M)
    clock.ask("late", side="black")
    t0 = clock.now
    clock.start()
    clock.run_to(t0 + 60000)
    clock.ask("arrive", side="black")
    clock.play([(t0 + 65000, "black"), (t0 + 75000, "white"), (t0 + 90500, "black")])
    clock.run_to(t0 + 100000)
    clock.ask("pause")
    clock.run_to(t0 + 130000)
    clock.ask("time.set", side="white", main=300)
    clock.ask("resume")
    clock.play([(t0 + 140000, "white")])
    clock.run(600000)
    assert clock.state() == "ended"
    return clock.session.journal.current


@pytest.fixture(scope="module")
def disputed():
    clock = VirtualClock()
    gid = dispute(clock)
    return clock.log(gid)


@pytest.fixture
def log_file(tmp_path, disputed):
    path = tmp_path / "game.log"
    path.write_bytes(disputed)
    return str(path)


ARRIVAL = (
    "Black arrived 1:00 late: twice that is 2:00 in all; their clock had run 1:00, so 1:00 "
    "more was charged (9:00 -> 8:00)"
)
ADJUSTED = "White's time set (main time): 9:41 -> 5:00"


def test_the_report_shows_every_action_and_explains_the_time_left(log_file, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")  # a wide terminal: rich wraps no cell
    rc, out, err = run(capsys, "logs", "report", log_file)
    assert rc == 0, err
    text = " ".join(out.split())
    assert out.startswith("game 1 (sd 10m): Black lost on time at 9:59 (ended)")
    for words in (
        "Black marked late: their clock runs until they arrive",
        ARRIVAL,
        "paused (White to move)",
        ADJUSTED,
        "resumed after a pause of 0:30 (White to move)",
        "Black lost on time (flag)",
    ):
        assert words in text, words
    for row in (
        "start 10:00 10:00",
        "- used from main time -9:00 -0:29",
        "- lateness charged -1:00 0:00",
        "+/- adjustments 0:00 -4:40",
        "= main time left 0:00 4:50",
    ):
        assert row in " ".join(text.replace("│", " ").split()), row
    # 0:29 and 4:40 are each rounded down: the account to the millisecond is given too.
    assert "white: 600000 - 29500 - 280500 = 290000 ms" in out


def test_the_export_has_the_actions_the_pauses_and_an_account_that_adds_up(log_file, capsys):
    rc, out, err = run(capsys, "logs", "export", log_file)
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["result"] == {"winner": "white", "loser": "black", "by": "time", "final": True}
    assert doc["outcome"] == "Black lost on time at 9:59 (ended)"
    kinds = [a["event"] for a in doc["actions"]]
    # The clock records its own result after the loss on time (a `result` record, W+T).
    assert kinds == ["late", "arrive", "pause", "adjust", "resume", "timeout", "result"]
    arrive = doc["actions"][1]
    assert (arrive["late_ms"], arrive["ran_ms"], arrive["charged_ms"]) == (60000, 60000, 60000)
    assert arrive["before"]["main_ms"] == 540000 and arrive["after"]["main_ms"] == 480000
    adjust = doc["actions"][3]
    assert adjust["given"] == ["main_ms"] and adjust["side"] == "white"
    assert (adjust["before"]["main_ms"], adjust["after"]["main_ms"]) == (580500, 300000)
    assert adjust["words"] == ADJUSTED
    assert doc["pauses"] == [
        {"from": 100000, "to": 130000, "ms": 30000, "side": "white", "records": [8, 10]}
    ]
    for acc in doc["account"].values():
        total = (
            acc["start_ms"]
            + acc["increments_ms"]
            + acc["received_ms"]
            - acc["used_ms"]
            - acc["lateness_ms"]
            + acc["adjustments_ms"]
        )
        assert acc["other_ms"] == 0 and total == acc["shown_ms"] == acc["status"]["main_ms"]
    assert doc["account"]["black"]["lateness_ms"] == 60000
    assert doc["account"]["white"]["adjustments_ms"] == 300000 - 580500
    # The time used from main time is the time Black's clock ran: its two moves, the
    # minute away, and the run to the flag.
    assert doc["account"]["black"]["used_ms"] == 540000

    rc, out, err = run(capsys, "logs", "export", log_file, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    by_event = {r["event"]: r for r in rows}
    assert by_event["adjust"]["action"] == ADJUSTED
    assert by_event["resume"]["action"] == "resumed after a pause of 0:30 (White to move)"
    assert by_event["arrive"]["action"] == ARRIVAL
    press = [r for r in rows if r["event"] == "press"]
    assert [(r["at"], r["used"], r["left"]) for r in press[:2]] == [
        ("1:05", "1:05", "7:55"),
        ("1:15", "0:10", "9:50"),
    ]
    assert [r["record"] for r in rows] == [str(n) for n in range(1, len(rows) + 1)]


def sgf_of(moves):
    game = sgf.Sgf_game(19)
    node = game.get_root()
    for i, colour in enumerate(moves):
        node = node.new_child()
        # an upper-case colour is a pass
        node.set_move(colour.lower(), None if colour.isupper() else (i // 19, i % 19))
    return game


def test_the_timed_sgf_says_what_the_arbiter_did(log_file, tmp_path, capsys):
    record = tmp_path / "game.sgf"
    record.write_bytes(sgf_of("bwbw").serialise())
    out = tmp_path / "timed.sgf"
    rc, _, err = run(capsys, "logs", "sgf", log_file, "--merge", str(record), "-o", str(out))
    assert rc == 0, err
    game = sgf.Sgf_game.from_bytes(out.read_bytes())
    root = game.get_root()
    assert root.get("RE") == "W+T"
    assert "Black lost on time at 9:59" in root.get("C")
    assert "goclock 1:00: " + ARRIVAL in root.get("C")  # before the first move
    nodes = [n for n in game.get_main_sequence() if n.get_move()[0]]
    note = nodes[2].get("C")  # after Black's second move: the pause and the adjustment
    assert "goclock 1:40: paused (White to move)" in note and ADJUSTED in note
    assert "goclock 9:59: Black lost on time (flag)" in nodes[3].get("C")
    # An RE of the SGF's own that says otherwise is kept, with a warning.
    other = sgf_of("bwbw")
    other.get_root().set("RE", "B+R")
    record.write_bytes(other.serialise())
    rc, _, err = run(capsys, "logs", "sgf", log_file, "--merge", str(record), "-o", str(out))
    assert rc == 0 and "the SGF's result RE[B+R] is kept; the clock says W+T" in err
    assert sgf.Sgf_game.from_bytes(out.read_bytes()).get_root().get("RE") == "B+R"


def test_an_sgf_of_its_own_and_to_standard_output(log_file, capsysbinary):
    rc = main(["logs", "sgf", log_file, "-o", "-"])
    out, err = capsysbinary.readouterr()
    assert rc == 0 and b"times of 4 moves written" in err
    game = sgf.Sgf_game.from_bytes(out)
    nodes = game.get_main_sequence()[1:]
    assert len(nodes) == 4 and not any(n.get_move()[0] for n in nodes)  # no positions
    assert nodes[0].get("BL") == 475.0 and nodes[1].get("WL") == 590.0
    assert nodes[0].get("C").startswith("move 1, Black: took 1:05")
    assert game.get_root().get_raw("TM") == b"600" and game.get_root().get("RE") == "W+T"


def test_a_game_lost_on_time_is_pulled_as_ended(capsys, tmp_path):
    with ClockLine() as line:
        gid = dispute(line.clock)
        rc, out, err = run(capsys, "--port", line.path, "logs", "pull", "-o", str(tmp_path))
    assert rc == 0, err
    assert "game %d -> " % gid in out and "Black lost on time at 9:59 (ended)" in out
    assert "still on" not in out and "no end record" not in out
    # In byo-yomi the arbiter may still rule the timeout a pass: the pull says so.
    with ClockLine() as line:
        line.clock.configure({"type": "byoyomi", "main": 10, "periods": 1, "period": 30})
        line.clock.start()
        line.clock.run(45000)
        rc, out, err = run(capsys, "--port", line.path, "logs", "pull", "-o", str(tmp_path / "b"))
    assert rc == 0, err
    assert (
        "Black lost on time in the last byo-yomi period at 0:40 (ended; the arbiter may still "
        "rule the timeout a pass)" in out
    )


# ----- item 5: an altered log --------------------------------------------------------


def without_record(data, number):
    """The log with its record `number` (from 1, marks not counted) taken out."""
    lines = data.split(b"\n")
    records = [i for i, ln in enumerate(lines) if ln and ln.strip(b".")]
    del lines[records[number - 1]]
    return b"\n".join(lines)


def rechained(data, change):
    """The log with `change(record)` applied to every record and the chain computed again,
    as a forger would: the checksums hold, the times do not."""
    out = []
    prev = 0
    for ln in data.split(b"\n"):
        if not ln or not ln.strip(b"."):
            out.append(ln)
            continue
        record = logline.after_marks(ln)  # the progress marks before it kept as they are
        rec = json.loads(record[:-16] + b"}")
        change(rec)
        body = json.dumps(rec, separators=(",", ":"), ensure_ascii=False).encode()
        prev = logline.crc(body, prev)
        out.append(ln[: len(ln) - len(record)] + body[:-1] + b',"c":"%08x"}' % prev)
    return b"\n".join(out)


def test_one_record_deleted_is_named_one_way(disputed, tmp_path, capsys):
    record = GameRecord(disputed)
    third = next(m for m in record.moves if m["n"] == 2)  # White's first press
    path = tmp_path / "altered.log"
    path.write_bytes(without_record(disputed, third["record"]))
    altered = GameRecord(path.read_bytes())
    broken = altered.entries[third["record"] - 1]  # the record after it: now that number
    assert not broken.ok and broken.rec["move"] == 3
    rc, doc, err = verify_json(capsys, str(path))
    assert rc == 2
    assert doc["errors"] == [
        [
            broken.place,
            "checksum mismatch: it was changed, or a record before it was removed or inserted",
        ]
    ]
    # Move 3 is still there (its record fails the chain, its text is read): only 2 is gone.
    assert doc["problems"] == [[broken.place, "move 3 after move 1: move 2 is missing"]]
    assert broken.place == "record %d (line %d)" % (broken.number, broken.line)
    # Progress marks begin their record's line (an earlier firmware gave them lines of
    # their own, not counted as records: the test below reads such a log).
    assert broken.line == broken.number


def test_a_log_whose_marks_have_lines_of_their_own_reads_the_same(disputed, tmp_path, capsys):
    """An earlier firmware closed the progress marks with a newline before the next record:
    its logs verify and report as before, the mark lines counted as lines, not records."""
    assert re.search(rb"(?m)^\.+\{", disputed)  # this firmware's: marks begin a record's line
    old = re.sub(rb"(?m)^(\.+)\{", rb"\1\n{", disputed)
    new_record, old_record = GameRecord(disputed), GameRecord(old)
    assert old_record.ok and old_record.records == new_record.records
    last = old_record.entries[-1]
    assert last.line > last.number  # the mark lines are lines, not records
    path = tmp_path / "earlier.log"
    path.write_bytes(old)
    rc, doc, _ = verify_json(capsys, str(path))
    assert rc == 0 and doc["ok"] and doc["errors"] == [] and doc["problems"] == []
    assert doc["verdict"] == Check(new_record).verdict  # "intact, N records; ..." alike


def verify_json(capsys, *paths):
    rc, out, err = run(capsys, "--json", "logs", "verify", *paths)
    return rc, json.loads(out), err


def test_verify_takes_several_files_and_knows_a_readme(disputed, tmp_path, capsys):
    good = tmp_path / "game-00001.log"
    good.write_bytes(disputed)
    readme = tmp_path / "README.md"
    readme.write_text("# notes\n\nnot a log at all\n" * 200)
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    rc, out, err = run(capsys, "logs", "verify", str(good), str(readme), str(empty))
    assert rc == 2
    assert out.splitlines() == [
        "%s: intact, %d records; Black lost on time at 9:59 (ended)"
        % (good, len(GameRecord(disputed).records)),
        "%s: not a goclock log (no line of it is a record the clock wrote)" % readme,
        "%s: not a goclock log (no line of it is a record the clock wrote)" % empty,
    ]
    assert err == "goclock: 2 of 3 files cannot be trusted: %s, %s\n" % (readme, empty)
    rc, docs, _ = verify_json(capsys, str(good), str(good))
    assert rc == 0 and [d["ok"] for d in docs] == [True, True]
    rc, out, err = run(capsys, "logs", "report", str(readme), "--force")
    assert rc == 2 and "not a goclock log" in err  # even forced: there is nothing to report


def test_reports_of_a_log_that_does_not_verify_need_force_and_keep_the_numbers(
    disputed, tmp_path, capsys
):
    record = GameRecord(disputed)
    second = next(m for m in record.moves if m["n"] == 2)
    path = tmp_path / "altered.log"
    path.write_bytes(without_record(disputed, second["record"]))
    for argv in (["report"], ["export"], ["export", "--format", "csv"], ["sgf"]):
        rc, out, err = run(capsys, "logs", *argv, str(path))
        assert rc == 2 and out == "", argv
        assert "ALTERED" in err and "--force" in err, argv
    rc, out, err = run(capsys, "logs", "export", str(path), "--force")
    assert rc == 0 and "warning" in err and "ALTERED" in err
    moves = json.loads(out)["moves"]
    assert [m["n"] for m in moves] == [1, 4]  # 2 gone, 3 fails the chain: never renumbered
    rc, out, err = run(capsys, "logs", "export", str(path), "--force", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["move"] for r in rows if r["event"] == "press"] == ["1", "4"]
    numbers = [int(r["record"]) for r in rows]
    assert len(set(numbers)) == len(numbers) and numbers != list(range(1, len(rows) + 1))


def test_a_forged_log_whose_chain_was_recomputed_is_inconsistent(disputed, tmp_path, capsys):
    def faster(rec):  # White's 10 s move made 5 s on paper
        if rec.get("event") == "press" and rec.get("move") == 2:
            rec["used_ms"] = 5000

    path = tmp_path / "forged.log"
    path.write_bytes(rechained(disputed, faster))
    rc, doc, err = verify_json(capsys, str(path))
    assert rc == 2 and doc["errors"] == []  # the chain holds
    assert doc["problems"][0][1] == "used_ms is 5000 in the log, 10000 by the clock's rules"
    same = tmp_path / "same.log"
    same.write_bytes(rechained(disputed, lambda rec: None))
    assert verify_json(capsys, str(same))[0] == 0  # the recomputation itself changes nothing


# ----- item 6: a ruled pass and the SGF's moves --------------------------------------


@pytest.fixture(scope="module")
def ruled():
    """Byo-yomi 10 s + 1 x 30 s: Black 5 s, White 3 s; Black flags at 0:48; the arbiter
    rules it a pass at 0:50; White 2 s, Black 8 s."""
    clock = VirtualClock()
    clock.configure({"type": "byoyomi", "main": 10, "periods": 1, "period": 30})
    t0 = clock.now
    clock.start()
    clock.play([(t0 + 5000, "black"), (t0 + 8000, "white")])
    clock.run_to(t0 + 50000)
    assert clock.state() == "ended"
    clock.session.commands.timeout_pass()
    clock.play([(t0 + 52000, "white"), (t0 + 60000, "black")])
    return GameRecord(clock.log(clock.session.journal.current))


def test_a_ruled_pass_is_never_put_on_a_stone_without_a_warning(ruled):
    assert [m.get("pass", False) for m in ruled.moves] == [False, False, True, False, False]
    game = sgf_of("bwbwb")  # a stone where the clock has Black's pass
    result = sgfmerge.merge(game, ruled)
    nodes = [n for n in game.get_main_sequence() if n.get_move()[0]]
    assert not nodes[2].has_property("BL")
    assert result["warnings"] == [
        "move 3: the clock has Black's timeout ruled a pass (record %d), the SGF a stone at "
        "C1: no time written on that stone" % ruled.moves[2]["record"]
    ]
    assert nodes[3].get("WL") == 5.0 and nodes[4].get("BL") == 22.0  # the rest matched
    assert "timeout ruled a pass" in nodes[2].get("C")  # the ruling, where it happened


def test_a_pass_the_sgf_left_out_is_skipped_with_a_warning(ruled):
    game = sgf_of("bwwb")  # the record keeper wrote no pass: White follows White
    result = sgfmerge.merge(game, ruled)
    nodes = [n for n in game.get_main_sequence() if n.get_move()[0]]
    assert result["mismatch"] is None and result["timed"] == 4
    assert (
        "move 3: the SGF has no pass where the clock has Black's timeout ruled a pass"
        in (result["warnings"][0])
    )
    assert nodes[2].get("WL") == 5.0 and nodes[3].get("BL") == 22.0
    game = sgf_of("bwBwb")  # with the pass written: no warning at all
    result = sgfmerge.merge(game, ruled)
    assert result["warnings"] == [] and result["timed"] == 5


def test_a_pause_never_resumed_is_exported_open(tmp_path, capsys):
    # The log of a game stopped while paused (the clock switched off, say): its last pause
    # has a start and no end.
    clock = VirtualClock()
    clock.configure(SD_10M)
    t0 = clock.now
    clock.start()
    clock.play([(t0 + 5000, "black")])
    clock.run_to(t0 + 8000)
    clock.ask("pause")
    clock.run_to(t0 + 20000)
    path = tmp_path / "game.log"
    path.write_bytes(clock.log(clock.session.journal.current))
    rc, out, err = run(capsys, "logs", "export", str(path))
    assert rc == 0, err
    (pause,) = json.loads(out)["pauses"]
    assert (pause["to"], pause["ms"], len(pause["records"])) == (None, None, 1)
    assert (pause["from"], pause["side"]) == (8000, "white")  # White to move
