#!/usr/bin/env python3
"""`make bench-web`: the web app's page weight and the time to a running simulator.

Serves web/dist on loopback and opens each page in Debian's chromium (Playwright, as the
tests do), a fresh profile each run: an empty cache and an empty IndexedDB, a first visit.

- Page weight: the bytes every response of the page carried until it was ready for a
  first interaction (the first page, the configurator, the logs and the hall: loaded;
  the simulator: its firmware's first loop pass, so a key does something), as served (no compression on this server), and what
  gzip makes of them (GitHub Pages and most servers compress text and wasm). What a
  page fetches after that, in the background (the simulator's other voice packs, the
  firmware the configurator and the logs check with), is listed apart.
- Time to a running simulator: from the navigation's start to the firmware's first loop
  pass, with its steps (fetches, MicroPython's start, the firmware's import, the voice
  pack, the boot: storage, config, the game a reload cut off), over RUNS runs; then the
  same with a warm cache and a flash holding a game (a reload).

    python -m tools.web.bench [--runs N]
"""

import argparse
import functools
import gzip
import http.server
import os
import statistics
import tempfile
import threading
import time

from tests.web.conftest import CHROMIUM, CHROMIUM_ARGS, DIST  # the tests' own browser flags


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _serve():
    handler = functools.partial(_Quiet, directory=DIST)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, "http://127.0.0.1:%d/" % server.server_address[1]


def _gz(path):
    with open(path, "rb") as f:
        return len(gzip.compress(f.read(), 9))


def _local(site, url):
    rel = url[len(site) :].split("?")[0]
    return os.path.join(DIST, rel)


def _open(p, site, name, ready):
    ctx = p.chromium.launch_persistent_context(
        tempfile.mkdtemp(prefix="goclock-bench-"),
        executable_path=CHROMIUM,
        args=CHROMIUM_ARGS,
        headless=True,
    )
    page = ctx.new_page()
    got = []
    page.on("requestfinished", lambda r: got.append((time.monotonic(), r.url)))
    page.goto(site + name)
    page.wait_for_function(ready, timeout=60_000, polling=10)
    at = time.monotonic()
    return ctx, page, got, at


def weight(p, site, name, ready):
    ctx, page, got, at = _open(p, site, name, ready)
    before = [u for t, u in got if t <= at]
    page.wait_for_timeout(1500)  # what comes after (the other voice packs)
    after = [u for t, u in got if t > at]
    ctx.close()

    def sizes(urls):
        rows = []
        for u in urls:
            path = _local(site, u)
            if os.path.isfile(path):
                rows.append((u[len(site) :], os.path.getsize(path), _gz(path)))
        return rows

    return sizes(before), sizes(after)


def boot_times(p, site, runs):
    cold = []
    warm = []
    ready = "window.goclockSim && goclockSim.passes > 0"
    for _ in range(runs):
        ctx, page, _, _ = _open(p, site, "simulator.html", ready)
        cold.append(page.evaluate("goclockSim.timings"))
        page.keyboard.press("l")  # a game on: the reload resumes it
        page.wait_for_timeout(300)
        page.evaluate("goclockSim.store.flushed()")
        page.reload()
        page.wait_for_function(ready, timeout=60_000, polling=10)
        warm.append(page.evaluate("goclockSim.timings"))
        ctx.close()
    return cold, warm


def _kb(n):
    return "%.0f KB" % (n / 1024)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    server, site = _serve()
    version = "?"
    with sync_playwright() as p:
        loaded = "document.readyState === 'complete'"
        for name, ready in (
            ("index.html", loaded),
            ("simulator.html", "window.goclockSim && goclockSim.passes > 0"),
            # The clock pages are ready once loaded (Connect works); the firmware's checks
            # (MicroPython and the firmware) come after, in the background.
            ("configurator.html", loaded),
            ("logs.html", loaded),
            ("hall.html", loaded),
        ):
            before, after = weight(p, site, name, ready)
            raw = sum(r[1] for r in before)
            gz = sum(r[2] for r in before)
            print(
                "%s: before the first interaction %s (%s gzipped), %d files"
                % (name, _kb(raw), _kb(gz), len(before))
            )
            for path, n, g in sorted(before, key=lambda r: -r[1]):
                print("    %-34s %8s %8s gz" % (path, _kb(n), _kb(g)))
            if after:
                print(
                    "  then, in the background: %s (%s gzipped): %s"
                    % (
                        _kb(sum(r[1] for r in after)),
                        _kb(sum(r[2] for r in after)),
                        ", ".join(r[0] for r in after),
                    )
                )
        cold, warm = boot_times(p, site, args.runs)
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        version = browser.version
        browser.close()
    server.shutdown()

    def line(label, rows):
        total = [r["since_navigation"] for r in rows]
        steps = ("fetched", "micropython", "flash", "imported", "voice", "booted", "running")
        med = {s: statistics.median(r[s] for r in rows) for s in steps}
        print(
            "%s: %d ms median (min %d, max %d) from the navigation's start; in start():"
            % (label, statistics.median(total), min(total), max(total))
        )
        print("    " + ", ".join("%s %d" % (s, med[s]) for s in steps) + " ms (cumulative)")

    print(
        "time to a running simulator, chromium %s, %d runs, this machine (%d cores):"
        % (version, args.runs, os.cpu_count() or 0)
    )
    line("  first visit (empty cache, empty flash)", cold)
    line("  reload (cache warm, a game in the flash)", warm)


if __name__ == "__main__":
    main()
