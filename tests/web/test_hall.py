# ruff: noqa: F401, F811  (fixtures imported from tests/support are parameters here)
"""The hall page in chromium: two simulated clocks publishing through `goclock bridge
--hall` to a real Mosquitto, read by the page over MQTT on WebSockets (MQTT.js)."""

import os

import pytest

from goclock.bridge import start_bridge
from goclock.bridge.hall import HallOptions
from support.firmware import boot
from support.mosquitto import mosquitto_ws
from web.clockpages import runtime_dir
from web.conftest import PHONE
from web.simpage import watch_errors

HALL = "club-open"
BYO = {"type": "byoyomi", "main": 60, "periods": 3, "period": 30}


@pytest.fixture
def two_clocks(tmp_path, mosquitto_ws, runtime_dir):
    clocks = []
    try:
        for name in ("table-1", "table-2"):
            fw = boot(tmp_path / name)
            opts = HallOptions(
                hall=HALL, clock=name, port=mosquitto_ws.port, state_dir=str(tmp_path / "state")
            )
            b = start_bridge(fw.port, hall=opts)
            b.wait_until(lambda s: s["line"] == "up", timeout=20)
            clocks.append((name, fw, b))
        yield clocks
    finally:
        for _, fw, b in clocks:
            b.stop()
            fw.stop()


def ask(bridge_fw, req):
    """A request to a clock through its bridge (the Unix socket, as every command)."""
    from goclock.link import discovery

    with discovery.connect(bridge_fw.port) as clock:
        return clock.request(req.pop("cmd"), **req)


def card_text(page, name):
    return page.inner_text("[data-clock='%s']" % name)


def test_the_hall_shows_both_clocks_live(
    browser_context, site, two_clocks, mosquitto_ws, artifacts
):
    (n1, fw1, _), (n2, fw2, _) = two_clocks
    url = site + "hall.html?broker=ws://127.0.0.1:%d/&hall=%s" % (mosquitto_ws.ws_port, HALL)
    page = browser_context.new_page()
    errors = watch_errors(page)
    page.goto(url)
    page.wait_for_selector("body[data-watching]")
    page.wait_for_selector("[data-clock='table-1'] .pill:text('online')")
    page.wait_for_selector("[data-clock='table-2'] .pill:text('online')")
    # A game on table 1: Black's clock started, then Black moves after 5 s.
    ask(fw1, {"cmd": "config.set", "config": {"time_control": BYO}})
    ask(fw1, {"cmd": "reset"})
    ask(fw1, {"cmd": "press", "side": "white"})
    fw1.wait(5_000)
    ask(fw1, {"cmd": "press", "side": "black"})
    page.wait_for_function(
        "document.querySelector(\"[data-clock='table-1'] .state\").textContent.startsWith('playing, 1 move')"
    )
    black = page.inner_text("[data-clock='table-1'] [data-side='black'] .t")
    assert black == "0:55"
    assert "waiting to start" in card_text(page, "table-2") or "no state" in card_text(
        page, "table-2"
    )
    # Table 2 runs into byo-yomi: its calls reach the page.
    ask(
        fw2,
        {
            "cmd": "config.set",
            "config": {"time_control": {"type": "byoyomi", "main": 10, "periods": 3, "period": 30}},
        },
    )
    ask(fw2, {"cmd": "reset"})
    ask(fw2, {"cmd": "press", "side": "white"})
    fw2.wait(12_000)
    page.wait_for_function(
        "document.querySelector('#events').textContent.includes('table-2: Black in byo-yomi')"
    )
    ask(fw2, {"cmd": "press", "side": "black"})  # a move: the state is published at once
    page.wait_for_function(
        "document.querySelector(\"[data-clock='table-2'] [data-side=black]\").textContent"
        ".includes('byo-yomi, 3 left')"
    )
    page.screenshot(path=os.path.join(artifacts, "hall.png"), full_page=True)
    assert errors == [] and page.evaluate("goclockHall.unreadable") == 0

    phone = browser_context.new_page()
    phone.set_viewport_size(PHONE)  # a phone's width (this test's profile is taken)
    phone.goto(url)
    phone.wait_for_selector("[data-clock='table-2'] .pill:text('online')")
    phone.wait_for_function(
        "document.querySelectorAll('.table-card .state')[0].textContent !== 'no state yet'"
    )
    assert phone.evaluate("document.documentElement.scrollWidth") <= phone.viewport_size["width"]
    phone.screenshot(path=os.path.join(artifacts, "phone-hall.png"), full_page=True)


# ----- the firmware's own hall (docs/hall.md), no bridge ---------------------------------


@pytest.fixture
def firmware_clocks(tmp_path, mosquitto_ws, micropython):
    """Two clocks of the real firmware (the MicroPython unix port, virtual time) configured
    for the hall: they publish to Mosquitto themselves, as a networked clock does."""
    from support.hallclocks import clock

    clocks = []
    try:
        for name in ("t1", "t2"):
            clocks.append(clock(tmp_path, name, mosquitto_ws.port))
        yield clocks
    finally:
        for fw in clocks:
            fw.stop()


def card_has(page, name, words, timeout=30_000):
    page.wait_for_function(
        "([n, w]) => { const c = document.querySelector(`[data-clock='${n}']`);"
        " return !!c && c.textContent.includes(w); }",
        arg=[name, words],
        timeout=timeout,
    )


def test_an_arbiter_call_and_the_results_as_the_firmware_publishes_them(
    browser_context, site, firmware_clocks, mosquitto_ws, artifacts
):
    from support.firmware import set_tc
    from support.hallclocks import HALL as FW_HALL
    from support.hallclocks import play

    t1, t2 = firmware_clocks
    url = site + "hall.html?broker=ws://127.0.0.1:%d/&hall=%s" % (mosquitto_ws.ws_port, FW_HALL)
    screen = browser_context.new_page()  # a hall's screen: read-only, from its address
    errors = watch_errors(screen)
    screen.goto(url)
    screen.wait_for_selector("body[data-watching]")
    assert "(read-only)" in screen.inner_text("#hall-status")
    desk = browser_context.new_page()  # the arbiter's desk: logged in on the broker
    errors += watch_errors(desk)
    desk.goto(site + "hall.html")
    desk.fill("#broker", "ws://127.0.0.1:%d/" % mosquitto_ws.ws_port)
    desk.fill("#hall", FW_HALL)
    desk.click("#arbiter-login summary")
    desk.fill("#arb-user", "arbiter")
    desk.click("#hall-connect")
    desk.wait_for_selector("body[data-watching]")
    assert "as the arbiter (arbiter)" in desk.inner_text("#hall-status")
    for page in (screen, desk):
        page.wait_for_selector("[data-clock='t1'] .pill:text('online')")
        page.wait_for_selector("[data-clock='t2'] .pill:text('online')")

    # Table 7's details (assign), then a game and a player's call: the key held 2 s.
    r = t1.request(
        {"cmd": "assign", "event": "Open", "round": 2, "table": 7, "black": "Lee", "white": "Kim"}
    )
    assert r["ok"], r
    play(t1, 3)
    card_has(screen, "t1", "Lee (B) – Kim (W)")
    assert "Table 7" in card_text(screen, "t1") and "round 2" in card_text(screen, "t1")
    assert screen.query_selector("[data-clock='t1'] .call") is None  # the retained "no call"
    t1.keys("!down arbiter\n")
    t1.wait(2500)
    t1.keys("!up arbiter\n")
    t1.wait(100)
    for page in (screen, desk):
        card_has(page, "t1", "The arbiter is called")
    assert "read-only" in screen.inner_text("[data-clock='t1'] .call")
    assert screen.query_selector("[data-clock='t1'] button[data-ack]") is None
    assert screen.query_selector("[data-clock='t2'] .call") is None
    # A page opened now still shows it: the call is retained until it is answered.
    late = browser_context.new_page()
    late.goto(url)
    card_has(late, "t1", "The arbiter is called")
    late.close()
    screen.screenshot(path=os.path.join(artifacts, "hall-call.png"), full_page=True)

    desk.click("[data-clock='t1'] button[data-ack]")
    for page in (screen, desk):
        page.wait_for_function("!document.querySelector(\"[data-clock='t1'] .call\")")
        page.wait_for_function(
            "document.querySelector('#events').textContent.includes('t1: the call is answered (hall)')"
        )
    assert status_of(t1)["state"] == "paused"

    # A result entered over serial, and one the clock decides itself (a loss on time), both
    # from the result records of the games' logs.
    r = t1.request({"cmd": "result", "result": "W+R"})
    assert r["ok"], r
    set_tc(t2, {"type": "sudden_death", "main": 10})
    play(t2, 0)
    t2.wait(11_000)
    for page in (screen, desk):
        card_has(page, "t1", "Result: W+R (by host)")
        card_has(page, "t2", "Result: W+T (by clock)")
    results = screen.inner_text("#results")
    assert "t1: W+R (game %d, by host)" % status_of(t1)["game"] in results
    assert "t2: W+T (game %d, by clock)" % status_of(t2)["game"] in results
    desk.screenshot(path=os.path.join(artifacts, "hall-results.png"), full_page=True)
    assert errors == []
    assert screen.evaluate("goclockHall.unreadable") == 0
    assert desk.evaluate("goclockHall.unreadable") == 0


def status_of(fw):
    from support.firmware import status

    return status(fw)
