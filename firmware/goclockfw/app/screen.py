"""The clock's view on an SSD1306 128x64 display, drawn a few pages at a time.

A full redraw of an SSD1306 costs about 23 ms of I2C at 400 kHz, plus the drawing: more
than the loop may spend in one go while a call may be due. So `update(view)` only draws,
into the driver's frame buffer in RAM, the regions whose text changed (the big digits are
glyphs made once, then blitted), and marks their pages; `step()` sends at most
PAGES_PER_STEP pages (128 bytes each: about 3 ms of I2C) and is called again on the next
loop passes until nothing is left. A page goes out in writes of PIECE bytes: on the ESP32
a button's soft handler waits for the end of the I2C write under way, and a 64-byte piece
(66 bytes on the wire: address, control byte, data) takes 1.5 ms at 400 kHz, a whole page
in one write 2.9 ms. The display's address pointer runs on from one write to the next. The driver is micropython-lib's ssd1306 (a FrameBuffer
with `write_cmd` and `write_data`), made by the board and passed in.

Layout, one region per 8-pixel page row (times twice the font's size):

    page 0     B 5x60s        <      (the marker: whose clock runs, or runs on resume)
    pages 1-2  1:54:59
    page 3     W 5x60s
    pages 4-5  1:55:00
    page 6     byo 30m+3x30s                (in the preset menu: its time control)
    page 7     PAUSED / BLACK FLAG / BLACK ABSENT / preset 3 ...
"""

import framebuf

PAGES_PER_STEP = 2
PIECE = 64  # data bytes per I2C write (a page is 128)
GLYPHS = "0123456789:"
_SET_COL_ADDR = 0x21
_SET_PAGE_ADDR = 0x22
# (first page, pages) of each region: black's line, black's time, white's line, white's time,
# the detail (the time control of the preset on offer), the note
_REGIONS = ((0, 1), (1, 2), (3, 1), (4, 2), (6, 1), (7, 1))


class Screen:
    def __init__(self, driver):
        self.d = driver
        self.dirty = 0  # pages still to send, one bit each
        self._shown = [None] * len(_REGIONS)
        self._glyphs = {}
        small = bytearray(8)
        small_fb = framebuf.FrameBuffer(small, 8, 8, framebuf.MONO_HLSB)
        for ch in GLYPHS:  # each made once: 8x8 font, every pixel doubled
            buf = bytearray(32)
            big = framebuf.FrameBuffer(buf, 16, 16, framebuf.MONO_VLSB)
            small_fb.fill(0)
            small_fb.text(ch, 0, 0, 1)
            for row in range(8):
                bits = small[row]
                for col in range(8):
                    if bits & (0x80 >> col):
                        big.fill_rect(2 * col, 2 * row, 2, 2, 1)
            self._glyphs[ch] = big
        driver.fill(0)
        self.dirty = 0xFF

    def update(self, v):
        """Draw what changed in view `v` into the frame buffer; its pages wait for `step`."""
        mark = v["mark"]  # the side to move, running or paused (app/display.py)
        lines = (
            ("B " + v["black_sub"], mark == "black"),
            v["black"],
            ("W " + v["white_sub"], mark == "white"),
            v["white"],
            (v.get("detail", ""), False),
            (v["note"], False),
        )
        for i in range(len(_REGIONS)):
            if lines[i] == self._shown[i]:
                continue
            self._shown[i] = lines[i]
            page, pages = _REGIONS[i]
            self.d.fill_rect(0, page * 8, 128, pages * 8, 0)
            if pages == 2:
                self._big(lines[i], page * 8)
            else:
                text, marked = lines[i]
                self.d.text(text[:15], 0, page * 8, 1)
                if marked:
                    self.d.text("<", 120, page * 8, 1)
            for p in range(page, page + pages):
                self.dirty |= 1 << p

    def _big(self, text, y):
        x = 0
        for ch in text:
            g = self._glyphs.get(ch)
            if g is not None and x <= 112:
                self.d.blit(g, x, y)
            x += 16

    def step(self):
        """Send up to PAGES_PER_STEP changed pages; True while some are left."""
        d = self.d
        sent = 0
        for page in range(8):
            if not self.dirty & (1 << page):
                continue
            for c in (_SET_COL_ADDR, 0, 127, _SET_PAGE_ADDR, page, page):
                d.write_cmd(c)
            view = memoryview(d.buffer)
            at = page * 128
            while at < page * 128 + 128:
                d.write_data(view[at : at + PIECE])
                at += PIECE
            self.dirty &= ~(1 << page)
            sent += 1
            if sent >= PAGES_PER_STEP:
                break
        return self.dirty != 0
