"""Driving the simulator page in a test: its virtual time, its serial line, what it played.

The page's clock is Playwright's fake clock (`page.clock`): installed before the page
loads and paused, so that the firmware's tick (Date.now) and its timers move only when a
test says `advance(page, ms)`: a game of minutes runs in seconds, the same way every time.
Fetching the app, MicroPython's start and IndexedDB are not timers: they run as usual.
"""

import json

BOOT_MS = 60_000  # real time allowed for the firmware to start (the first pass)
START = 1_700_000_000_000  # the fake clock's Date.now() when the page loads


def watch_errors(page):
    """Console errors and uncaught exceptions of the page, collected as they come."""
    errors = []
    page.on("pageerror", lambda e: errors.append("pageerror: %s" % e))
    page.on(
        "console", lambda m: errors.append("console: %s" % m.text) if m.type == "error" else None
    )
    page.on("requestfailed", lambda r: errors.append("request failed: %s" % r.url))
    page.on(
        "response",
        lambda r: errors.append("HTTP %d: %s" % (r.status, r.url)) if r.status >= 400 else None,
    )
    return errors


def open_simulator(context, site, fake_time=True, page=None):
    """The simulator page, running (its first loop pass done); its time paused when fake."""
    page = page or context.new_page()
    page.errors = watch_errors(page)
    if fake_time:
        page.clock.install(time=START)
        page.clock.pause_at(START + 10_000)  # ahead of the time the install let flow on
    page.goto(site + "simulator.html")
    wait_running(page)
    return page


def wait_running(page):
    page.wait_for_function(
        "window.goclockSim && goclockSim.passes > 0", timeout=BOOT_MS, polling=50
    )


def advance(page, ms, step=10_000):
    """Run the page's clock `ms` on: every timer due meanwhile fires, at its time."""
    while ms > 0:
        n = step if ms > step else ms
        page.clock.run_for(n)
        ms -= n


def tick(page):
    return page.evaluate("goclockSim.tick()")


def attach_line(page):
    """Collect every line the clock sends on its virtual serial line (window.__lines)."""
    page.evaluate(
        """() => {
            window.__lines = [];
            let part = "";
            const dec = new TextDecoder();
            goclockSim.serial.onread = (bytes) => {
                part += dec.decode(bytes, { stream: true });
                const lines = part.split("\\n");
                part = lines.pop();
                for (const l of lines) if (l) window.__lines.push(l);
            };
        }"""
    )


def lines(page):
    return [json.loads(x) for x in page.evaluate("window.__lines")]


def request(page, obj, tries=20):
    """One request on the simulator's virtual serial line (attach_line first); its reply.

    The clock answers in the pass the bytes start: at once, in the page's time."""
    page.evaluate("(line) => goclockSim.serial.write(line + '\\n')", json.dumps(obj))
    for _ in range(tries):
        for reply in lines(page):
            if reply.get("id") == obj["id"]:
                return reply
        advance(page, 5)
    raise AssertionError("no reply to %r" % obj)


def played(page, since=0):
    """What the speaker started: [(tick, clip path or None, beep steps or None)]."""
    rows = page.evaluate("goclockSim.speaker.played")
    return [(r["tick"], r.get("clip"), r.get("beep")) for r in rows[since:]]


def said(page):
    return page.evaluate("goclockSim.said")


def view(page):
    return page.evaluate("goclockSim.view")
