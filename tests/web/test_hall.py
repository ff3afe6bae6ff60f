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
