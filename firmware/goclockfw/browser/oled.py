"""The browser board's display: an SSD1306 128x64 as app/screen.py drives it, in the page.

The screen code draws into the driver's frame buffer and sends it page by page with
`write_cmd` (the column and page window) and `write_data` (the bytes), micropython-lib's
ssd1306 interface. Here those bytes land in the panel's own memory (`ram`, 8 pages of
128 columns, one bit a pixel, the lowest bit on top), and the page draws that memory in a
canvas: what shows is what was sent, not what was drawn in the frame buffer.
"""

import framebuf

WIDTH = 128
HEIGHT = 64
PAGES = HEIGHT // 8
_SET_COL_ADDR = 0x21
_SET_PAGE_ADDR = 0x22


class Oled(framebuf.FrameBuffer):
    def __init__(self):
        self.width = WIDTH
        self.height = HEIGHT
        self.buffer = bytearray(WIDTH * PAGES)
        super().__init__(self.buffer, WIDTH, HEIGHT, framebuf.MONO_VLSB)
        self.ram = bytearray(WIDTH * PAGES)  # the panel's memory: what it shows
        self.changed = True
        self._cmd = 0  # the address command waiting for its arguments
        self._args = bytearray(2)
        self._nargs = 0
        self._col = [0, WIDTH - 1]
        self._page = [0, PAGES - 1]
        self._x = 0
        self._p = 0

    def write_cmd(self, c):
        if self._cmd:
            self._args[self._nargs] = c
            self._nargs += 1
            if self._nargs == 2:
                lo, hi = self._args[0], self._args[1]
                if self._cmd == _SET_COL_ADDR:
                    self._col = [lo % WIDTH, hi % WIDTH]
                    self._x = self._col[0]
                else:
                    self._page = [lo % PAGES, hi % PAGES]
                    self._p = self._page[0]
                self._cmd = 0
            return
        if c == _SET_COL_ADDR or c == _SET_PAGE_ADDR:
            self._cmd = c
            self._nargs = 0
        # Other commands (contrast, power, scan direction) change nothing the page draws.

    def write_data(self, buf):
        ram = self.ram
        for b in buf:  # horizontal addressing: along the page, then to the next page
            ram[self._p * WIDTH + self._x] = b
            if self._x >= self._col[1]:
                self._x = self._col[0]
                self._p = self._page[0] if self._p >= self._page[1] else self._p + 1
            else:
                self._x += 1
        self.changed = True

    def take(self):
        """The panel's memory as hex when it changed since the last take, else None."""
        if not self.changed:
            return None
        self.changed = False
        import binascii

        return binascii.hexlify(self.ram).decode()
