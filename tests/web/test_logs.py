# ruff: noqa: F401, F811  (fixtures imported from clockpages are parameters here)
"""The logs page: a log pulled through `goclock web` from a simulated clock (resumed after
its line dropped), downloaded as CSV and as a timed SGF with the bytes of `goclock logs
export` and `goclock logs sgf`; the page's chart drawn from the same data as `goclock logs
report --plot` for the same logs (games played by the firmware's own session: pauses, a
ruled pass, overtime, the untimed game, an altered log and a torn one); and, on a plain
static server, what the page can do without the host tool."""

import base64
import json
import os

import pytest
from sgfmill import sgf

from goclock.records import chart
from goclock.records.gamerecord import GameRecord
from support.cli import run
from test_host_logs_rulings import BYO, RULED, play
from web.clockpages import connect_page, fw, runtime_dir, web

B, W = 0, 1
GAMES = {
    "ruled": (BYO, RULED, "bwbwb"),
    "ing": (
        {"type": "ing", "main": 10, "periods": 3, "period": 20},
        [(25000, "press", B), (26000, "press", W), (40000, "press", B)],
        "bwb",
    ),
    "canadian": (
        {"type": "canadian", "main": 5, "moves": 2, "period": 30},
        [(6000, "press", B), (9000, "press", W), (20000, "press", B), (21000, "press", W)],
        "bwbwbw",  # more moves in the SGF than on the clock: said, and the first ones timed
    ),
    "untimed": ({"type": "untimed"}, [(5000, "press", B), (65000, "press", W)], "bw"),
    "fischer": (
        {"type": "fischer", "main": 20, "increment": 10, "max": 30},
        [(1000, "press", B), (4000, "press", W)],
        "wb",  # not the same game: refused, with the same words
    ),
}

EVAL = """async ([logB64, name]) => {
    const bytes = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
    const { firmware } = await import("./js/firmware.js");
    const R = await import("./js/records/gamerecord.js");
    const C = await import("./js/records/chart.js");
    const data = bytes(logB64);
    const chain = (await firmware()).verifyLog(data);
    return { chain, chart: C.chartData(new R.GameRecord(data, chain, name)) };
}"""


def sgf_bytes(colours):
    game = sgf.Sgf_game(19)
    game.get_root().set("PB", "Hoshino ] Ai")  # a value that must be escaped as it is
    node = game.get_root()
    for i, colour in enumerate(colours):
        node = node.new_child()
        node.set_move(colour, (i // 19, i % 19))
        if i == 0:
            node.set("C", "a comment long enough to make sgfmill wrap the line somewhere " * 2)
    return game.serialise()


def cli_outputs(capsys, tmp_path, log_path, sgf_path):
    out = {}
    for fmt in ("json", "csv"):
        target = tmp_path / ("out." + fmt)
        rc, _, err = run(
            capsys, "logs", "export", str(log_path), "--format", fmt, "-o", str(target)
        )
        assert rc == 0, err
        out[fmt] = target.read_text(encoding="utf-8")
    timed = tmp_path / "timed.sgf"
    rc, _, err = run(
        capsys, "logs", "sgf", str(log_path), "--merge", str(sgf_path), "-o", str(timed)
    )
    if rc == 0:
        warning = [x for x in err.splitlines() if x.startswith("goclock: warning: ")]
        out["sgf"] = {"bytes": timed.read_bytes(), "warning": warning}
    else:
        out["sgf"] = {"error": err.strip().splitlines()[-1].removeprefix("goclock: ")}
    return out


def variants(tmp_path):
    for name, (tc, script, colours) in GAMES.items():
        yield name, play(tmp_path / name, tc, script), sgf_bytes(colours)
    good = play(tmp_path / "x", BYO, RULED)
    lines = good.split(b"\n")
    altered = b"\n".join(lines[:3] + [lines[3].replace(b'"t":', b'"t":1', 1)] + lines[4:])
    yield "altered", altered, sgf_bytes("bwbwb")
    yield "torn", good[: len(good) - 7], sgf_bytes("bwbwb")
    with open(
        os.path.join(os.path.dirname(__file__), "..", "sgf", "ff4_kgs_byoyomi.sgf"), "rb"
    ) as f:
        yield "kgs-file", good, f.read()


def test_the_page_charts_the_same_data_as_goclock(browser_context, site, tmp_path):
    page = browser_context.new_page()
    page.goto(site + "logs.html")
    seen = set()
    for name, log, _sgf in variants(tmp_path):
        log_path = tmp_path / ("game-%s.log" % name)
        log_path.write_bytes(log)
        got = page.evaluate(EVAL, [base64.b64encode(log).decode(), log_path.name])
        record = GameRecord.from_file(str(log_path))
        assert got["chart"] == chart.chart_data(record), name
        assert got["chain"]["records"] == len(record.records), name
        seen.add("ok" if got["chain"]["ok"] else "torn" if got["chain"]["torn"] else "altered")
    assert seen == {"ok", "torn", "altered"}


def test_on_a_static_server_the_page_charts_and_says_where_the_exports_are(
    browser_context, site, tmp_path, artifacts
):
    log_path = tmp_path / "game-3.log"
    log_path.write_bytes(play(tmp_path / "flash", BYO, RULED))
    page = browser_context.new_page()
    page.goto(site + "logs.html")
    page.set_input_files("#open-file", str(log_path))
    page.wait_for_selector("body[data-game]")
    assert page.inner_text("#verdict").startswith(
        "Checked by the clock's own code: the checksum chain is intact"
    )
    assert page.is_disabled("#dl-csv") and page.is_visible("#export-note")
    assert not page.is_disabled("#dl-log")
    page.screenshot(path=os.path.join(artifacts, "logs-file.png"), full_page=True)


def play_on(fw):
    """A short byo-yomi game on the simulated clock: Black 4 s, White 3 s, Black 12 s (into
    its period), then paused and reset (so its log has its end)."""
    assert fw.request({"cmd": "config.set", "config": {"time_control": BYO}})["ok"]
    assert fw.request({"cmd": "reset"})["ok"]
    fw.request({"cmd": "press", "side": "white"})
    for ms, side in ((4000, "black"), (3000, "white"), (12000, "black")):
        fw.wait(ms)
        assert fw.request({"cmd": "press", "side": side})["accepted"]
    fw.wait(500)
    assert fw.request({"cmd": "pause"})["ok"]
    assert fw.request({"cmd": "reset"})["ok"]


def test_pulled_through_goclock_web_and_downloaded(
    browser_context, tmp_path, fw, capsys, monkeypatch, runtime_dir, artifacts
):
    from goclock.web import start_web
    from web.clockpages import DIST

    play_on(fw)  # before the bridge: the test talks to the pty itself
    w = start_web(fw.port, port=0, dist=DIST)
    try:
        w.bridge.wait_until(lambda s: s["line"] == "up", timeout=20)
        page = connect_page(browser_context, w.url + "logs.html")
        page.wait_for_selector("#pull-1")
        page.click("#pull-1")
        page.wait_for_selector("body[data-game='1']")
        assert page.inner_text("#verdict").startswith("Verified by goclock: ")
        with page.expect_download() as d:
            page.click("#dl-csv")
        csv_got = open(d.value.path(), "rb").read()
        assert d.value.suggested_filename == "game-1.csv"
        sgf_path = tmp_path / "played.sgf"
        sgf_path.write_bytes(sgf_bytes("bwb"))
        with page.expect_download() as d:
            page.set_input_files("#sgf-file", str(sgf_path))
        sgf_got = open(d.value.path(), "rb").read()
        assert page.inner_text("#sgf-status") == "played-timed.sgf written by goclock."
        assert page.locator("#chart svg polyline").count() == 2
        page.screenshot(path=os.path.join(artifacts, "logs-pulled.png"), full_page=True)
        # The host tool through the same bridge: its pull, its export, its SGF.
        out = tmp_path / "pulled"
        rc, _, err = run(capsys, "--port", fw.port, "logs", "pull", "1", "-o", str(out))
        assert rc == 0, err
        (log_path,) = [out / n for n in os.listdir(out) if n.endswith(".log")]
        want = cli_outputs(capsys, tmp_path, log_path, sgf_path)
        assert csv_got.decode() == want["csv"]
        assert sgf_got == want["sgf"]["bytes"]
        # The same chart from the host tool, kept beside the page's screenshot.
        png = os.path.join(artifacts, "report-plot.png")
        rc, _, err = run(capsys, "logs", "report", str(log_path), "--plot", png)
        assert rc == 0, err
    finally:
        w.stop()


def test_a_cut_pull_resumes_from_the_bytes_it_has(
    browser_context, tmp_path, fw, capsys, runtime_dir
):
    """The line drops after the first chunk of the log (the WebSocket closed by the test,
    between the page and the bridge): the page says where it stopped, and once connected
    again the pull goes on from there to the whole, verified log."""
    from goclock.web import start_web
    from web.clockpages import DIST

    play_on(fw)
    w = start_web(fw.port, port=0, dist=DIST)
    try:
        w.bridge.wait_until(lambda s: s["line"] == "up", timeout=20)
        page = browser_context.new_page()
        cut = {"armed": True}

        def relay(ws):
            server = ws.connect_to_server()

            def from_server(msg):
                ws.send(msg)
                if cut["armed"] and '"offset":0' in msg and '"data"' in msg:
                    cut["armed"] = False
                    ws.close()  # the page's line is gone, after its first chunk

            server.on_message(from_server)
            ws.on_message(lambda msg: server.send(msg))

        page.route_web_socket(lambda url: "token=" in url, relay)
        page.goto(w.url + "logs.html")
        page.click("#connect-bridge")
        page.wait_for_selector("body[data-ready]")
        page.click("#pull-1")
        page.wait_for_function(
            "document.querySelector('#pull-status').textContent.includes('stopped at 512 bytes')"
        )
        page.click("#connect-bridge")
        page.wait_for_selector("#pull-1:text('Resume pull')")
        page.click("#pull-1")
        page.wait_for_selector("body[data-game='1']")
        assert page.inner_text("#verdict").startswith("Verified by goclock: ")
        with page.expect_download() as d:
            page.click("#dl-log")
        got = open(d.value.path(), "rb").read()
    finally:
        w.stop()
    assert len(got) > 512 and got == fw.read_log(1)
