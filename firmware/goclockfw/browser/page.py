"""What the web page calls: one simulated clock, its board and its loop, a pass at a time.

    clock = PageClock(now)                 # boots: config, logs, a game a reload cut off
    report = clock.run(now, inputs, rx)    # one loop pass at tick `now`; a JSON string

`inputs` is a string of button actions since the last pass, separated by spaces:
"tap:left", "tap:right", "tap:arbiter" (the keys a, l and space of `make sim`),
"toggle:arbiter" (the key h: hold the arbiter key down / let it go), "down:NAME" and
"up:NAME" (an on-screen button held, then let go). `rx` is the hex of the bytes the
page's virtual serial port wrote. The report holds what the page must act on:

    wait     ms until the loop wants its next pass (an input runs one sooner)
    out      the board's console objects: {"play": clip}, {"say": phrase}, {"view": ...} ...
    tx       hex of the bytes the clock sent on its serial line
    oled     hex of the display's memory, when it changed
    changed  flash files written or removed: the page saves them to IndexedDB
    errors   the loop's count of passes that failed (each is in the game log)
    arbiter  1 while the arbiter key is held down (key h)

`voice_wanted()` reads the stored config with the firmware's own config store, so the
page can load that voice pack before the clock boots and looks for it.
"""

import binascii
import json

from goclockfw.app.buttons import CHANNEL_NAMES
from goclockfw.app.loop import Loop
from goclockfw.browser.board import FLASH_ROOT, BrowserBoard
from goclockfw.browser.flash import BrowserFS
from goclockfw.core.ticks import TICKS_MAX
from goclockfw.storage.configstore import ConfigStore

ARBITER = CHANNEL_NAMES.index("arbiter")


def voice_wanted():
    store = ConfigStore(BrowserFS(FLASH_ROOT))
    store.load()
    return store.config["voice"]


class PageClock:
    def __init__(self, now, held=""):
        self.board = BrowserBoard(now, [n for n in held.split(",") if n in CHANNEL_NAMES])
        self.loop = Loop(self.board)

    def run(self, now, inputs="", rx=""):
        b = self.board
        now &= TICKS_MAX
        b.now = now
        for action in inputs.split():
            kind, _, name = action.partition(":")
            if name not in CHANNEL_NAMES:
                continue
            ch = CHANNEL_NAMES.index(name)
            if kind == "tap":
                b.tap(ch, now)
            elif kind == "toggle":
                b.toggle(ch, now)
            elif kind in ("down", "up"):
                b.hold(ch, kind == "down", now)
        if rx:
            try:
                b.receive(binascii.unhexlify(rx))
            except ValueError:
                pass  # not hex: the page's bug, not a reason to stop the clock
        self.loop.step()
        report = {
            "wait": b.wait_ms,
            "errors": self.loop.errors,
            "arbiter": 1 if b.held(ARBITER) else 0,
        }
        out = b.take_output()
        if out:
            report["out"] = out
        tx = b.take_serial()
        if tx:
            report["tx"] = binascii.hexlify(tx).decode()
        if b.display is not None:
            oled = b.display.take()
            if oled is not None:
                report["oled"] = oled
        changed = b.fs.take_changed()
        if changed:
            report["changed"] = changed
        return json.dumps(report)
