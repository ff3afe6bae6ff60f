"""The browser board: the firmware's loop in a web page, driven one pass at a time by the page.

The page (web/src/js/sim/) owns the time and the events: before each pass it sets the tick
(from the browser's clock, Date.now, which a test can fake) and hands over what happened
since the last pass; `wait` only records how long the loop would sleep, and the page sets a
timer for the next pass. Nothing here blocks or reads a clock.

- Buttons: the keys of `make sim` (desktop/board.py): a tap of the left button, of the
  right one, of the arbiter key (desktop/keys.py: TAP_MS long), and the arbiter key held down until told to
  let go; the on-screen buttons also press and release for as long as they are held.
- Display: an SSD1306 128x64 (browser/oled.py) that app/screen.py draws on, as on a board.
- Speaker: desktop/parts.py's, which tells the page which clip to play (the page decodes
  the pack's IMA ADPCM and plays it through WebAudio) and is busy for the clip's length.
- Serial line: bytes the page's virtual port wrote, and bytes for it; the line takes at
  most TX_ROOM bytes a pass, so a page that stops reading holds the clock's output back as
  a real line would.
- Flash: files in the page's memory, saved to IndexedDB by the page (browser/flash.py).

What the loop shows or says comes out as the desktop board's console objects ({"play": clip},
{"say": phrase}, {"view": ...}, {"led": 0|1}); `take_output` hands them to the page.
"""

import gc

from goclockfw.app.buttons import CHANNEL_NAMES
from goclockfw.board.base import Board, take_pending
from goclockfw.browser.flash import BrowserFS, ChunkFiles
from goclockfw.browser.oled import Oled
from goclockfw.core.ticks import TICKS_MAX
from goclockfw.desktop.keys import KeyButtons
from goclockfw.desktop.parts import DesktopPlayer

TX_ROOM = 4096  # bytes the virtual line takes in one pass
FLASH_ROOT = "/flash"
SOUNDS = "/sounds"


class BrowserBoard(Board):
    """The board interface (board/base.py) in a web page."""

    family = "browser"
    name = "browser"
    sounds = SOUNDS
    has_console = True

    def __init__(self, now=0, held=(), display=True):
        fs = BrowserFS(FLASH_ROOT)
        Board.__init__(self, fs, ChunkFiles(fs))  # the edge ring, the notices
        self.display = Oled() if display else None
        self.now = now & TICKS_MAX
        self.wait_ms = 0  # what the last pass asked to sleep
        self.kbd = -1
        # Taps and holds (on-screen buttons, keys); `held`: down at power-up.
        self.keys = KeyButtons(self.ring, [CHANNEL_NAMES.index(n) for n in held])
        self._rx = bytearray()
        self._tx = bytearray()
        self._out = []
        self._led = -1

    # ----- time ---------------------------------------------------------------------

    def ticks(self):
        return self.now

    def wait(self, ms):
        self.wait_ms = ms if ms > 0 else 0

    def wake_ms(self, running, now):
        """Ms until a tap lets its button go, or None: the page runs a pass at once when an
        input comes."""
        return self.keys.next_release_ms(now)

    # ----- buttons ------------------------------------------------------------------

    def level(self, ch):
        return self.keys.level(ch)

    def tap(self, ch, now):
        self.keys.tap(ch, now)

    def hold(self, ch, down, now):
        self.keys.hold(ch, down, now)

    def toggle(self, ch, now):
        self.keys.toggle(ch, now)

    def held(self, ch):
        return self.keys.held(ch)

    def poll_inputs(self, now):
        self.keys.release(now)

    # ----- serial ---------------------------------------------------------------------

    def receive(self, data):
        """Bytes the page's virtual port wrote to the clock."""
        self._rx.extend(data)

    def read_serial(self, buf):
        return take_pending(self._rx, buf)

    def serial_send(self, buf, start, n):
        room = TX_ROOM - len(self._tx)
        if n > room:
            n = room
        if n > 0:
            self._tx.extend(memoryview(buf)[start : start + n])
        return n if n > 0 else 0

    def take_serial(self):
        data = bytes(self._tx)
        self._tx = bytearray()
        return data

    # ----- the rest of the board ----------------------------------------------------------

    def kbd_intr(self, enable):
        self.kbd = 3 if enable else -1  # no Ctrl-C to stop a page: only reported

    def console(self, obj):
        if "view" in obj:  # only the newest view matters to the page
            for i in range(len(self._out)):
                if "view" in self._out[i]:
                    self._out[i] = obj
                    return
        self._out.append(obj)

    def take_output(self):
        out = self._out
        self._out = []
        return out

    def set_led(self, on):
        on = 1 if on else 0
        if on != self._led:
            self._led = on
            self.console({"led": on})

    def ram_free(self):
        gc.collect()
        return gc.mem_free()

    def make_player(self, rate, volume):
        return DesktopPlayer(self, volume)


def make_board(path=None, chip=None):
    return BrowserBoard()
