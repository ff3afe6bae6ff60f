"""The browser tests: the built web app (web/dist) served on loopback, in Debian's chromium.

`make test-web` builds the app (npm ci, node build.mjs) and runs these. Playwright for
Python drives /usr/bin/chromium (executable_path: no browser of Playwright's own is ever
downloaded), headless, without the background connections a closed network refuses, in a
fresh profile for every test (a fresh IndexedDB: a new clock). Screenshots go to
build/web-artifacts/, to be looked at.
"""

import functools
import http.server
import os
import threading

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIST = os.environ.get("GOCLOCK_WEB_DIST") or os.path.join(REPO, "web", "dist")
ARTIFACTS = os.path.join(REPO, "build", "web-artifacts")
CHROMIUM = os.environ.get("GOCLOCK_CHROMIUM") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {"width": 390, "height": 844}  # a phone's viewport in CSS pixels


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def site():
    """The built app on http://127.0.0.1:<free port>/ (any static file server will do)."""
    if not os.path.exists(os.path.join(DIST, "simulator.html")):
        pytest.fail("no built web app in %s: run `make test-web` (npm ci, then the build)" % DIST)
    handler = functools.partial(_Quiet, directory=DIST)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield "http://127.0.0.1:%d/" % server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def playwright_driver():
    from playwright.sync_api import sync_playwright

    if not os.path.exists(CHROMIUM):
        pytest.fail("no %s: `make test-web` installs Debian's chromium" % CHROMIUM)
    with sync_playwright() as p:
        yield p


def _context(playwright_driver, tmp_path, **options):
    return playwright_driver.chromium.launch_persistent_context(
        str(tmp_path / "profile"),
        executable_path=CHROMIUM,
        args=CHROMIUM_ARGS,
        headless=True,
        **options,
    )


@pytest.fixture
def browser_context(playwright_driver, tmp_path):
    """A fresh chromium profile (its own IndexedDB) with a desktop-sized viewport."""
    ctx = _context(playwright_driver, tmp_path, viewport={"width": 1280, "height": 900})
    yield ctx
    ctx.close()


@pytest.fixture
def phone_context(playwright_driver, tmp_path):
    ctx = _context(
        playwright_driver,
        tmp_path,
        viewport=PHONE,
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    yield ctx
    ctx.close()


@pytest.fixture(scope="session")
def artifacts():
    os.makedirs(ARTIFACTS, exist_ok=True)
    return ARTIFACTS
