"""Every page of the web app loads from a plain static server, links to the others, and is
kept as a screenshot (build/web-artifacts/) at a desktop's and a phone's size."""

import os

import pytest

from web.simpage import advance, attach_line, open_simulator, request, watch_errors

PAGES = ("index", "simulator", "configurator", "logs", "hall")
PLACEHOLDERS = ()


@pytest.mark.parametrize("name", PAGES)
def test_page_loads_with_nothing_missing_and_links_to_every_page(
    browser_context, site, name, artifacts
):
    page = browser_context.new_page()
    errors = watch_errors(page)
    outside = []
    page.on(
        "request",
        lambda r: outside.append(r.url) if not r.url.startswith((site, "data:")) else None,
    )
    page.goto(site + name + ".html")
    if name == "simulator":
        page.wait_for_function("window.goclockSim && goclockSim.passes > 0", timeout=60_000)
    page.wait_for_load_state("networkidle")
    nav = page.eval_on_selector_all("header nav a", "as => as.map(a => a.getAttribute('href'))")
    assert nav == [p + ".html" for p in PAGES]
    assert page.get_attribute("header nav a[aria-current=page]", "href") == name + ".html"
    if name in PLACEHOLDERS:
        assert "Not built yet" in page.inner_text("main")
    page.screenshot(path=os.path.join(artifacts, "%s.png" % name), full_page=True)
    assert errors == [] and outside == []


def test_the_first_page_marks_what_works_and_what_is_to_come(browser_context, site):
    page = browser_context.new_page()
    page.goto(site + "index.html")
    cards = page.eval_on_selector_all(
        ".card",
        "cs => cs.map(c => [c.querySelector('a').getAttribute('href'), c.querySelector('.badge').textContent])",
    )
    assert cards == [
        ["simulator.html", "works"],
        ["configurator.html", "works"],
        ["logs.html", "works"],
        ["hall.html", "works"],
    ]


def test_a_game_in_progress_screenshot(browser_context, site, artifacts):
    page = open_simulator(browser_context, site)
    attach_line(page)
    tc = {"type": "byoyomi", "main": 10, "periods": 3, "period": 30}
    assert request(page, {"id": 1, "cmd": "config.set", "config": {"time_control": tc}})["ok"]
    assert request(page, {"id": 2, "cmd": "reset"})["ok"]
    page.keyboard.press("l")
    advance(page, 3_000)
    page.keyboard.press("a")
    advance(page, 42_000)  # White in byo-yomi: the calls so far are listed
    page.screenshot(path=os.path.join(artifacts, "simulator-game.png"), full_page=True)
    assert page.errors == []


@pytest.mark.parametrize("name", ("index", "simulator"))
def test_readable_on_a_phone(phone_context, site, name, artifacts):
    page = phone_context.new_page()
    errors = watch_errors(page)
    page.goto(site + name + ".html")
    if name == "simulator":
        page.wait_for_function("window.goclockSim && goclockSim.passes > 0", timeout=60_000)
    # Nothing wider than the screen: no sideways scrolling on a phone.
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"]
    if name == "simulator":
        # The display and both player buttons are on the first screen, the buttons big
        # enough for a thumb.
        for sel in ("#oled", "#left", "#right", "#arbiter"):
            box = page.locator(sel).bounding_box()
            assert box["y"] + box["height"] <= page.viewport_size["height"], sel
        for sel in ("#left", "#right"):
            box = page.locator(sel).bounding_box()
            assert box["width"] >= 120 and box["height"] >= 80, sel
        page.locator("#right").tap()
        page.wait_for_function("goclockSim.view && goclockSim.view.state === 'running'")
    page.screenshot(path=os.path.join(artifacts, "phone-%s.png" % name), full_page=True)
    assert errors == []
