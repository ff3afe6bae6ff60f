"""`goclock logs verify` beyond the checksum chain (host/goclock/records/verify.py): time never goes
back and moves are numbered without gaps or repeats, each problem named by its line; the
chain's own verdicts (ALTERED, CUT SHORT) stay.

The logs are written by the firmware's journal (storage/journal.py), so their chains are
intact: what is wrong is what the clock was made to write (a replayed move, a clock set back).
"""

import json

import pytest

from goclock.cli import main
from goclockfw.storage.chunks import ChunkPool
from goclockfw.storage.journal import Journal
from support.clockline import ClockLine
from support.flashfs import flash_fs
from support.sessions import make_session

STATUS = [("main_ms", 50000), ("flagged", False), ("periods", 3), ("period_ms", 30000)]


def press(t, side, move):
    return ("press", t, side, 5000, [("move", move)] + STATUS)


def write_log(tmp_path, records, name="game.log", end=False):
    """A log of `records` [(kind, t, side, value, extra)], chained by the firmware's journal;
    the path of a copy. `end`: the game is ended (its "end" record), and the flash it is
    on is returned too."""
    flash, fs = flash_fs(64)
    store = Journal(ChunkPool(fs, flash), setup_spares=4)
    store.load()
    while store.wants_work(False):
        store.work(False, fs.free)
    gid = store.begin()
    tc = {"type": "byoyomi", "main": 60}
    store.record("game", 0, None, None, (("game", gid), ("time_control", tc)))
    store.record("start", 0, 0)
    for kind, t, side, value, extra in records:
        store.record(kind, t, side, value, extra)
    if end:
        store.end(records[-1][1] + 1, "reset")
    data = store.read(gid, 0, 1 << 20)[0]
    path = tmp_path / name
    path.write_bytes(data)
    if end:
        fs.lfs.unmount()
        return str(path), flash
    return str(path)


def verify(capsys, path):
    rc = main(["--json", "logs", "verify", path])
    out, err = capsys.readouterr()
    return rc, json.loads(out), err


GOOD = [press(5000, 0, 1), press(9000, 1, 2), press(15000, 0, 3), press(16000, 1, 4)]


def test_a_good_game(tmp_path, capsys):
    rc, doc, err = verify(capsys, write_log(tmp_path, GOOD))
    assert rc == 0 and doc["ok"] and doc["problems"] == []
    assert doc["verdict"].startswith("intact")


def test_a_replayed_move(tmp_path, capsys):
    # move 3 pressed, then its record written again: the chain is intact, the game is not
    records = GOOD[:3] + [press(15000, 0, 3)] + GOOD[3:]
    path = write_log(tmp_path, records)
    rc, doc, err = verify(capsys, path)
    assert rc == 2 and doc["ok"] is False and doc["errors"] == []
    # line 1 game, 2 start, 3-5 moves 1-3, 6 the replay
    again = "move 3 again, first at record 5 (line 5): a replayed move"
    assert doc["problems"] == [["record 6 (line 6)", again]]
    assert doc["verdict"] == "INCONSISTENT: record 6 (line 6): " + again
    rc = main(["logs", "verify", path])
    out, err = capsys.readouterr()
    assert rc == 2 and "record 6 (line 6): move 3 again" in out and "cannot be trusted" in err


def test_missing_moves_and_out_of_order(tmp_path, capsys):
    records = [press(5000, 0, 1), press(9000, 1, 4), press(10000, 0, 5), press(11000, 1, 2)]
    rc, doc, err = verify(capsys, write_log(tmp_path, records))
    assert doc["problems"] == [
        ["record 4 (line 4)", "move 4 after move 1: moves 2 to 3 are missing"],
        ["record 6 (line 6)", "move 2 after move 5: out of order"],
    ]
    records = [press(5000, 0, 1), press(9000, 1, 3)]
    rc, doc, err = verify(capsys, write_log(tmp_path, records, "one.log"))
    assert doc["problems"] == [["record 4 (line 4)", "move 3 after move 1: move 2 is missing"]]


def test_time_going_back(tmp_path, capsys):
    records = [press(5000, 0, 1), ("call", 4000, 1, "30秒", None), press(9000, 1, 2)]
    rc, doc, err = verify(capsys, write_log(tmp_path, records))
    assert rc == 2 and doc["problems"] == [
        ["record 4 (line 4)", "time goes back from 0:05 to 0:04"]
    ]


def test_a_power_resume_may_go_back_to_its_resume_point(tmp_path, capsys):
    notice = ("log", 12000, None, None, [("notice", "power_resume"), ("message", "resumed")])
    records = [press(5000, 0, 1), press(14000, 1, 2), notice, press(13000, 1, 2)]
    rc, doc, err = verify(capsys, write_log(tmp_path, records))
    # the time is the clock's own doing; the move pressed twice is still shown
    assert doc["problems"] == [
        [
            "record 6 (line 6)",
            "move 2 again, first at record 4 (line 4): a replayed move (after the power "
            "resume, record 5 (line 5))",
        ]
    ]


def test_old_logs_without_move_numbers_check_time_only(tmp_path, capsys):
    records = [("press", t, t % 2, 1000, STATUS) for t in (5000, 6000, 7000)]
    rc, doc, err = verify(capsys, write_log(tmp_path, records))
    assert rc == 0 and doc["ok"]


def test_the_chain_verdicts_stay(tmp_path, capsys):
    path = write_log(tmp_path, GOOD)
    data = open(path, "rb").read()
    torn = tmp_path / "torn.log"
    torn.write_bytes(data[:-20])
    rc, doc, err = verify(capsys, str(torn))
    assert rc == 2 and doc["torn"] and doc["verdict"].startswith("CUT SHORT")
    altered = tmp_path / "altered.log"
    altered.write_bytes(data.replace(b'"t":9000', b'"t":8000'))
    rc, doc, err = verify(capsys, str(altered))
    assert doc["verdict"].startswith(
        "ALTERED: the checksum chain is broken at record 4 (line 4): checksum mismatch"
    )
    # a bad line is left out, and the lines after it keep their numbers
    both = tmp_path / "both.log"
    lines = data.split(b"\n")
    lines[3] = lines[3].replace(b'"t":9000', b'"t":8000')  # line 4: chain broken
    lines.insert(5, lines[4])  # line 6 repeats line 5 (move 3): breaks the chain as well
    both.write_bytes(b"\n".join(lines))
    rc, doc, err = verify(capsys, str(both))
    assert [e[0] for e in doc["errors"]] == ["record 4 (line 4)", "record 6 (line 6)"]
    assert doc["verdict"].startswith("ALTERED")


@pytest.mark.parametrize("replay", [False, True])
def test_export_and_pull_say_the_same(tmp_path, capsys, replay):
    records = GOOD[:3] + ([press(15000, 0, 3)] if replay else []) + GOOD[3:]
    path = write_log(tmp_path, records)
    rc = main(["logs", "export", path])
    out, err = capsys.readouterr()
    assert rc == (2 if replay else 0)  # a log that does not verify: refused...
    rc = main(["logs", "export", path, "--force"])
    out, err = capsys.readouterr()
    assert rc == 0  # ... unless forced: exported, with a warning
    assert json.loads(out)["verified"]["ok"] is not replay
    assert ("record 6 (line 6): move 3 again" in err) is replay
    # The same log on a clock: the flash it was written on, booted by the firmware.
    path, flash = write_log(tmp_path, records, "ended.log", end=True)
    with ClockLine(session=make_session(flash, fresh=False)) as line:
        assert [g["game"] for g in line.session.journal.list()] == [1]
        rc = main(["--port", line.path, "logs", "pull", "-o", str(tmp_path / "pulled")])
        assert line.clock.log(1) == open(path, "rb").read()
    out, err = capsys.readouterr()
    assert rc == (1 if replay else 0)
    assert ("game 1: INCONSISTENT: record 6 (line 6): move 3 again" in err) is replay
