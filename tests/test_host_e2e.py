"""End to end: the goclock tool against the real firmware under the MicroPython unix port,
behind a pty (the `make sim` device, in virtual time so every millisecond is exact).

A short game is played by the tool's own commands — config, presses, pause, an arbiter
adjustment — then its log is pulled, verified, exported, merged into an SGF and tampered with.
"""

import csv
import io
import json
import os
import threading

import pytest
from sgfmill import sgf

from goclock.cli import build_parser, device, main
from support.firmware import boot

# (ms the side to move thinks, then presses). Black, White, Black into byo-yomi, ...
THINK = [10000, 7000, 65000, 5000, 4000, 1000]


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """Play one game on the simulated clock; yields (firmware, port, tmp dir, watch lines)."""
    tmp = tmp_path_factory.mktemp("e2e")
    fw = boot(tmp / "flash")
    try:
        yield fw, fw.port, tmp, _play(fw, tmp)
    finally:
        fw.stop()


def goclock(port, *argv):
    """Run the CLI in-process; returns (exit code, stdout, stderr)."""
    import contextlib

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(["--port", port, *argv])
    return rc, out.getvalue(), err.getvalue()


def ok(port, *argv):
    rc, out, err = goclock(port, *argv)
    assert rc == 0, (argv, err)
    return out


def _play(fw, tmp):
    port = fw.port
    ok(port, "config", "set", "byo", "1m+3x30s")
    ok(port, "reset")
    assert json.loads(ok(port, "--json", "press", "white"))[
        "accepted"
    ]  # White starts Black's clock
    sides = ["black", "white"]
    watched = {}
    for i, ms in enumerate(THINK):
        side = sides[i % 2]
        if i == 2:
            # Black thinks into byo-yomi while `goclock watch` follows the clock.
            out = _Watched()
            done = threading.Event()
            watcher = threading.Thread(target=_watch, args=(port, out, done))
            watcher.start()
            assert _wait_for(out, '"event": "status"'), "watch never started"
            fw.wait(ms)
            # The watch ends once it has read what that virtual time produced (up to the
            # byo-yomi start), however long the machine took: not after a real-time window.
            _wait_for(out, '"event": "byoyomi"')
            done.set()
            watcher.join(timeout=20)
            watched["lines"] = [json.loads(x) for x in out.getvalue().splitlines() if x.strip()]
        elif i == 3:
            fw.wait(3000)
            ok(port, "pause")
            ignored = json.loads(ok(port, "--json", "press", "white"))
            assert not ignored["accepted"], ignored  # no move while paused
            fw.wait(20000)  # paused time never counts
            ok(port, "time", "set", "black", "0:45", "--periods", "2")
            ok(port, "resume")
            fw.wait(ms - 3000)
        else:
            fw.wait(ms)
        reply = json.loads(ok(port, "--json", "press", side))
        assert reply["accepted"], reply
    fw.wait(500)
    return watched


def _watch(port, out, done):
    """`goclock --json watch --seconds 1` on a clock that stands still until `done` is set."""
    import contextlib

    args = build_parser().parse_args(["--port", port, "--json", "watch", "--seconds", "1"])
    with contextlib.redirect_stdout(out):
        device.do_watch(args, now=lambda: 1.0 if done.is_set() else 0.0)


class _Watched(io.StringIO):
    """What `watch` prints; a waiter is woken by each write (no polling on a timer)."""

    def __init__(self):
        super().__init__()
        self.changed = threading.Condition()

    def write(self, text):
        with self.changed:
            n = super().write(text)
            self.changed.notify_all()
        return n


def _wait_for(out, text, timeout=20.0):
    """True once `text` is in `out`, woken by its writes; False if none brings it within
    `timeout` s (a guard against a hang: the test then says what is missing)."""
    with out.changed:
        return out.changed.wait_for(lambda: text in out.getvalue(), timeout)


def test_watch_saw_the_calls(played):
    fw, port, tmp, watched = played
    calls = [(x.get("side"), x.get("phrase")) for x in watched["lines"] if x.get("event") == "call"]
    assert ("black", "开始读秒") in calls
    assert any(x.get("event") == "byoyomi" for x in watched["lines"])


def test_time_set_only_while_paused(played):
    fw, port, tmp, watched = played
    rc, out, err = goclock(port, "time", "set", "white", "1:00")
    assert rc != 0 and "paused" in err and "Traceback" not in err


@pytest.fixture(scope="module")
def pulled(played):
    fw, port, tmp, watched = played
    rc, out, err = goclock(port, "reset")  # no terminal to ask: a game in progress stays
    assert rc == 2 and "--yes" in err
    ok(port, "pause")  # the clock refuses to reset a running clock
    ok(port, "reset", "--yes")  # ends the game: its log gets its end record
    out_dir = tmp / "logs"
    result = json.loads(ok(port, "--json", "logs", "pull", "-o", str(out_dir)))
    return played, result[0]


def test_pull_verifies(pulled):
    (fw, port, tmp, _), result = pulled
    assert result["ok"] is True and result["verdict"].startswith("intact")
    assert os.path.getsize(result["path"]) == result["size"]
    out = ok(port, "logs", "verify", result["path"])
    assert "intact" in out


def test_export_json_has_the_exact_times(pulled):
    (fw, port, tmp, _), result = pulled
    doc = json.loads(ok(port, "logs", "export", result["path"], "--format", "json"))
    assert [m["side"] for m in doc["moves"]] == ["black", "white"] * 3
    assert [m["used_ms"] for m in doc["moves"]] == THINK
    assert doc["time_control"]["type"] == "byoyomi" and doc["time_control"]["period"] == 30
    kinds = [r["event"] for r in doc["records"]]
    for kind in ("game", "start", "press", "call", "byoyomi", "pause", "resume", "adjust", "end"):
        assert kind in kinds, kind
    black3 = doc["moves"][2]["left"]
    assert black3["main_ms"] == 0 and black3["periods"] == 3


def test_export_csv(pulled, tmp_path):
    (fw, port, tmp, _), result = pulled
    path = tmp_path / "game.csv"
    ok(port, "logs", "export", result["path"], "--format", "csv", "-o", str(path))
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    assert [int(r["used_ms"]) for r in rows if r["event"] == "press"] == THINK
    assert [r["move"] for r in rows if r["event"] == "press"] == ["1", "2", "3", "4", "5", "6"]


def test_sgf_merge_reads_back(pulled, tmp_path):
    (fw, port, tmp, _), result = pulled
    game = sgf.Sgf_game(19)
    node = game.get_root()
    for i, point in enumerate([(3, 3), (15, 15), (3, 15), (15, 3), (2, 5), (16, 13)]):
        node = node.new_child()
        node.set_move("bw"[i % 2], point)
    record = tmp_path / "game.sgf"
    record.write_bytes(game.serialise())
    timed = tmp_path / "timed.sgf"
    rc, out, err = goclock(
        port, "logs", "sgf", result["path"], "--merge", str(record), "-o", str(timed)
    )
    assert rc == 0 and "warning" not in err, err
    back = sgf.Sgf_game.from_bytes(timed.read_bytes())
    root = back.get_root()
    assert root.get_raw("TM") == b"60" and root.get("OT") == "3x30 byo-yomi"
    moves = [n for n in back.get_main_sequence() if n.get_move()[0]]
    assert moves[0].get("BL") == 50.0  # 60 s main time, 10 s used
    assert moves[1].get("WL") == 53.0
    # Black pressed 15 s into a 30 s period, no period used: 15 s and 3 periods left.
    assert moves[2].get("BL") == 15.0 and moves[2].get("OB") == 3
    assert all(n.has_property("BL" if n.get_move()[0] == "b" else "WL") for n in moves)


def test_report_and_plot(pulled, tmp_path):
    (fw, port, tmp, _), result = pulled
    png = tmp_path / "game.png"
    out = ok(port, "logs", "report", result["path"], "--plot", str(png))
    assert "1:05" in out  # Black's 65 s move
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_tampered_log_fails(pulled, tmp_path):
    (fw, port, tmp, _), result = pulled
    with open(result["path"], "rb") as f:
        data = f.read()
    forged = data.replace(b'"used_ms":65000', b'"used_ms":55000', 1)
    assert forged != data
    path = tmp_path / "forged.log"
    path.write_bytes(forged)
    rc, out, err = goclock(port, "logs", "verify", str(path))
    assert rc != 0 and "ALTERED" in out and "checksum mismatch" in err


def test_export_from_the_clock_by_number(pulled):
    (fw, port, tmp, _), result = pulled
    doc = json.loads(ok(port, "logs", "export", str(result["game"])))
    assert [m["used_ms"] for m in doc["moves"]] == THINK
