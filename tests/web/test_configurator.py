# ruff: noqa: F401, F811  (fixtures imported from clockpages are parameters here)
"""The configurator in chromium, connected to a real simulated clock: through `goclock web`
(the bridge's WebSocket), through Web Serial (a test double of navigator.serial carrying
the bytes to the same kind of clock), and the plain words when neither can work."""

import json
import os
import re
import signal
import subprocess
import sys

from goclockfw import VERSION
from goclockfw.core import timecontrol
from web.clockpages import (
    DIST,
    NO_SERIAL,
    SERIAL_DOUBLE,
    SerialRelay,
    connect_page,
    fw,
    runtime_dir,
    web,
)
from web.simpage import watch_errors

REFUSED = {"type": "byoyomi", "main": 600, "periods": 3, "period": 0}
GOOD = {"type": "byoyomi", "main": 60, "periods": 3, "period": 30}


def firmware_message(tc):
    """What the firmware's own timecontrol.parse says of `tc` (here on CPython)."""
    try:
        timecontrol.parse(tc)
    except timecontrol.ConfigError as exc:
        return str(exc)
    raise AssertionError("accepted: %r" % tc)


def text(page, sel):
    return page.inner_text(sel).strip()


def set_time_control(page, tc):
    page.fill("#tc-json", json.dumps(tc))
    page.click("#tc-set")


def test_configured_through_goclock_web_with_the_firmwares_own_checks(
    browser_context, web, fw, artifacts
):
    page = connect_page(browser_context, web.url + "configurator.html")
    errors = watch_errors(page)
    assert "Connected (goclock web)" in text(page, "#conn-status")
    assert page.inner_text("#info").count("pico") or "Board" in page.inner_text("#info")

    # A refused time control: the firmware in the page says why as it is typed, and the
    # clock refuses it with its own words.
    message = firmware_message(REFUSED)
    page.fill("#tc-json", json.dumps(REFUSED))
    page.wait_for_function(
        "m => document.querySelector('#tc-check').textContent.includes(m)", arg=message
    )
    assert text(page, "#tc-check") == "The firmware refuses it: " + message
    page.click("#tc-set")
    page.wait_for_function("document.querySelector('#tc-result').textContent !== ''")
    refusal = text(page, "#tc-result")
    assert refusal.startswith("Refused by the clock: ") and message in refusal

    # goclock's notation, read by goclock web with the host tool's own parser: its words
    # when wrong (the suggestion too), its reading and the firmware's check when right.
    page.fill("#tc-json", "fisher 5m+10s")
    page.wait_for_function(
        "document.querySelector('#tc-check').textContent.includes('did you mean fischer')"
    )
    assert text(page, "#tc-check").startswith("unknown time control 'fisher'")
    page.fill("#tc-json", "byo 2m+3x30s")
    page.wait_for_function("document.querySelector('#tc-check').textContent.includes('accepts')")
    assert text(page, "#tc-check") == (
        "\u201cbyo 2m+3x30s\u201d reads as byo 2m+3x30s. The firmware accepts it: byo 2m+3x30s"
    )

    # A good one, then a reset (confirmed), then moves with virtual presses.
    page.fill("#tc-json", json.dumps(GOOD))
    page.wait_for_function("document.querySelector('#tc-check').textContent.includes('accepts')")
    assert text(page, "#tc-check") == "The firmware accepts it: byo 1m+3x30s"
    page.click("#tc-set")
    page.wait_for_function("document.querySelector('#tc-result').textContent.startsWith('Set')")
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.accept()))
    page.click("#reset")
    page.wait_for_function("document.querySelector('#arb-result').textContent.startsWith('Reset')")
    assert dialogs and dialogs[0].startswith("Reset the clock to")
    page.click("#press-white")  # White's button starts Black's clock
    page.wait_for_function("document.querySelector('#state').textContent.startsWith('Running')")
    fw.wait(7_500)
    page.click("#press-black")
    # The move's status, not a once-a-second one sent before it (Black's clock then reads
    # 0:53 too, while it still runs): the turn has passed to White.
    page.wait_for_function("document.querySelector('#state').textContent.includes('White to move')")
    assert text(page, "#black .big") == "0:53"
    assert page.get_attribute("#white", "class") == "side turn"

    # Pause, adjust White's main time, resume: the live view follows.
    page.click("#pause")
    page.wait_for_function("document.querySelector('#state').textContent.startsWith('Paused')")
    page.fill("#adj-main", "10")
    page.select_option("#adj-side", "white")
    page.click("#adj-set")
    page.wait_for_function("document.querySelector('#white .big').textContent === '0:10'")
    page.click("#resume")
    page.wait_for_function("document.querySelector('#state').textContent.startsWith('Running')")
    fw.wait(12_000)  # White's main time runs out: byo-yomi, 3 periods
    page.wait_for_function(
        "document.querySelector('#white [data-k=sub]').textContent.includes('byo-yomi: 3 periods')"
    )
    page.screenshot(path=os.path.join(artifacts, "configurator-bridge.png"), full_page=True)

    assert errors == []


def test_web_serial_through_a_test_double_of_navigator_serial(browser_context, tmp_path, site):
    from support.firmware import boot

    clock = boot(tmp_path / "serial-flash")
    relay = SerialRelay(clock)
    try:
        browser_context.add_init_script(SERIAL_DOUBLE % relay.url)
        page = connect_page(browser_context, site + "configurator.html", how="serial")
        errors = watch_errors(page)
        assert "Connected (USB)" in text(page, "#conn-status")
        assert page.evaluate("window.__serialOpened") == 1
        # A plain static server has no notation reader: the page says what to type instead.
        page.fill("#tc-json", "byo 2m+3x30s")
        page.wait_for_function(
            "document.querySelector('#tc-check').textContent.includes('goclock web')"
        )
        assert "type the JSON form or pick a preset" in text(page, "#tc-check")
        message = firmware_message(REFUSED)
        set_time_control(page, REFUSED)
        page.wait_for_function("document.querySelector('#tc-result').textContent !== ''")
        assert message in text(page, "#tc-result")
        set_time_control(page, GOOD)
        page.wait_for_function("document.querySelector('#tc-result').textContent.startsWith('Set')")
        # The clock itself has it (asked on CPython's side of the line, after the page).
        page.click("#disconnect")
        page.wait_for_function(
            "document.querySelector('#conn-status').textContent === 'Not connected.'"
        )
        assert errors == []
    finally:
        relay.stop()
    got = clock.request({"cmd": "config.get"})
    clock.stop()
    assert got["config"]["time_control"]["period"] == 30


def test_without_web_serial_or_goclock_web_the_page_says_what_is_missing(
    browser_context, site, artifacts
):
    browser_context.add_init_script(NO_SERIAL)
    page = browser_context.new_page()
    errors = watch_errors(page)
    page.goto(site + "configurator.html")
    page.wait_for_selector("#note-none")
    notes = page.inner_text("#connect-notes")
    assert "This browser has no Web Serial" in notes and "Firefox 151" in notes
    assert "not served by `goclock web`" in notes
    assert page.is_disabled("#connect-serial") and page.is_disabled("#connect-bridge")
    assert not page.is_disabled("#connect-sim")
    assert page.is_hidden("#connected")  # nothing of a clock until one is connected
    page.screenshot(path=os.path.join(artifacts, "configurator-fallback.png"), full_page=True)
    assert errors == []


def test_a_page_of_another_origin_cannot_use_the_bridge(browser_context, web, site):
    page = browser_context.new_page()
    page.goto(site + "index.html")  # another origin: the plain static server's port
    token_url = web.info()["url"]
    outcome = page.evaluate(
        """async ([served, ws]) => {
            let read = "read";
            try { await (await fetch(served + "bridge.json")).json(); }
            catch (e) { read = "blocked: " + e.name; }
            const opened = await new Promise((done) => {
                const s = new WebSocket(ws);
                s.onopen = () => done("opened");
                s.onclose = (e) => done("closed " + e.code);
            });
            return [read, opened];
        }""",
        [web.url, token_url],
    )
    assert outcome[0].startswith("blocked")  # no CORS: another site cannot read the token
    assert outcome[1] == "closed 1006"  # the bridge refused its Origin (HTTP 403)
    assert web.bridge.status()["peers"] == 0


def test_goclock_web_sim_serves_the_pages_and_a_simulated_clock(
    browser_context, tmp_path, runtime_dir
):
    goclock = os.path.join(os.path.dirname(sys.executable), "goclock")
    env = dict(os.environ, GOCLOCK_WEB_DIST=DIST)
    cmd = [goclock, "web", "--sim", "--port", "0", "--flash", str(tmp_path / "sim")]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        first = proc.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/", first).group(0)
        assert "a simulated clock on /dev/pts/" in proc.stdout.readline()
        page = browser_context.new_page()
        page.goto(url)  # the first page links to every page
        links = page.eval_on_selector_all(".card h2 a", "as => as.map(a => a.textContent)")
        assert links == ["Simulator", "Configurator", "Logs", "Hall"]
        page.goto(url + "configurator.html")
        page.click("#connect-bridge")
        page.wait_for_selector("body[data-ready]", timeout=60_000)
        assert "firmware %s on desktop" % VERSION in text(page, "#conn-status")
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        proc.stdout.close()
        proc.stderr.close()


def test_the_simulated_clock_in_the_page_is_configured_the_same_way(browser_context, site):
    page = connect_page(browser_context, site + "configurator.html", how="sim")
    errors = watch_errors(page)
    assert "Connected (simulated)" in text(page, "#conn-status")
    message = firmware_message(REFUSED)
    set_time_control(page, REFUSED)
    page.wait_for_function("document.querySelector('#tc-result').textContent !== ''")
    assert text(page, "#tc-result") == "Refused by the clock: time_control." + message
    set_time_control(page, GOOD)
    page.wait_for_function("document.querySelector('#tc-result').textContent.startsWith('Set')")
    page.on("dialog", lambda d: d.accept())
    page.click("#reset")
    page.wait_for_function("document.querySelector('#arb-result').textContent.startsWith('Reset')")
    page.keyboard.press("Tab")  # the rest by keyboard: focus the press button, Enter
    page.focus("#press-white")
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelector('#state').textContent.startsWith('Running')")
    assert text(page, "#black .big") == "1:00"
    assert errors == []


def stored_game_info(fw):
    """The clock's game_info, asked through its bridge (goclock web holds its line)."""
    from goclock.link import discovery

    with discovery.connect(fw.port) as clock:
        return clock.request("config.get")["config"]["game_info"]


def netconfig_message(info):
    """What the firmware's own check of the config's game_info says of `info`."""
    from goclockfw.storage.netconfig import game_info_field

    try:
        game_info_field("game_info", info)
    except ValueError as exc:
        return str(exc)
    raise AssertionError("accepted: %r" % info)


def test_the_games_details_are_set_through_the_config_and_refusals_say_why(
    browser_context, web, fw, artifacts
):
    page = connect_page(browser_context, web.url + "configurator.html")
    errors = watch_errors(page)
    assert page.input_value("#gi-event") == "" and page.input_value("#gi-table") == ""
    for k, v in (("event", "Club Open"), ("round", "2"), ("table", "7"), ("black", "Lee")):
        page.fill("#gi-" + k, v)
    page.fill("#gi-handicap", "0")
    page.click("#gi-set")
    page.wait_for_function("document.querySelector('#gi-result').textContent !== ''")
    assert text(page, "#gi-result").startswith("Saved on the clock")
    want = {
        "event": "Club Open",
        "round": 2,
        "table": 7,
        "black": "Lee",
        "white": None,
        "handicap": 0,
    }
    assert stored_game_info(fw) == want

    # A handicap the firmware refuses: its own message, and the stored details unchanged.
    page.fill("#gi-handicap", "12")
    page.click("#gi-set")
    page.wait_for_function("document.querySelector('#gi-result').textContent.startsWith('Refused')")
    message = netconfig_message({"handicap": 12})
    assert message.startswith("game_info.handicap")
    assert text(page, "#gi-result") == "Refused by the clock: " + message
    assert page.get_attribute("#gi-result", "class") == "bad"
    assert stored_game_info(fw) == want
    page.screenshot(path=os.path.join(artifacts, "configurator-game-info.png"), full_page=True)

    # Another page opened later shows what the clock holds; emptying a field clears it.
    again = connect_page(browser_context, web.url + "configurator.html")
    assert again.input_value("#gi-event") == "Club Open"
    assert again.input_value("#gi-round") == "2" and again.input_value("#gi-black") == "Lee"
    assert again.input_value("#gi-white") == "" and again.input_value("#gi-handicap") == "0"
    again.fill("#gi-black", "")
    again.click("#gi-set")
    again.wait_for_function("document.querySelector('#gi-result').textContent !== ''")
    assert stored_game_info(fw)["black"] is None
    assert errors == []
