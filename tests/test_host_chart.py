"""`goclock logs report --plot`: the game's chart (records/chart.py) from a log the
firmware's own session wrote, and one line saying how to get matplotlib when it is missing."""

import sys

from goclock.records import chart
from goclock.records.gamerecord import GameRecord
from support.cli import run
from test_host_logs_rulings import BYO, RULED, play


def test_the_chart_data_keeps_main_time_and_overtime_apart(tmp_path):
    d = chart.chart_data(GameRecord(play(tmp_path / "flash", BYO, RULED)))
    # Main time only goes down, and stops at 0 once the side is in byo-yomi.
    for side in ("black", "white"):
        values = [ms for _, ms in d["main"][side]]
        assert values == sorted(values, reverse=True), side
    assert d["main"]["black"][0] == [0, 10000] and d["main"]["black"][-1][1] == 0
    # Black's overtime: the moves after its main time, each with its period's time left.
    assert [n for n, _, _ in d["over"]["black"]] == [3, 5]
    assert all(0 < ms <= 30000 for _, ms, _ in d["over"]["black"])
    letters = [m[1] for m in d["marks"]]
    assert letters.count("P") == 2 and "F" in letters and "R" in letters  # pause, flag, ruling
    flag = next(m for m in d["marks"] if m[1] == "F")
    assert flag[0] == 2.5 and flag[3] == "black"  # between move 2 and the ruled pass
    assert [m[0] for m in d["marks"] if m[1] == "R"] == [3]  # the pass it was ruled


def test_report_plot_draws_a_png(tmp_path, capsys):
    log = tmp_path / "game-1.log"
    log.write_bytes(play(tmp_path / "flash", BYO, RULED))
    png = tmp_path / "chart.png"
    rc, _, err = run(capsys, "logs", "report", str(log), "--plot", str(png))
    assert rc == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "chart written to" in err


def test_without_matplotlib_one_line_says_how_to_install_it(tmp_path, capsys, monkeypatch):
    log = tmp_path / "game-1.log"
    log.write_bytes(play(tmp_path / "flash", BYO, RULED))
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib: ImportError
    rc, out, err = run(capsys, "logs", "report", str(log), "--plot", str(tmp_path / "c.png"))
    assert rc == 1
    assert err == (
        "goclock: the chart needs matplotlib, which is not installed: pip install 'goclock[plot]'\n"
    )
    assert "Traceback" not in err and out  # the report itself was printed
    assert not (tmp_path / "c.png").exists()
