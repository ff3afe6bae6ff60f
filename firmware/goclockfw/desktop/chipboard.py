"""A board for app/loop.py that behaves as board/mcu.py does, on a chip model's timeline.

What the loop asks of an RP2040 or ESP32 board, with nothing of `machine`: ticks and
sleeps from the model (desktop/chipmodel.py), button edges and levels from its scripted
inputs, the serial line written as McuBoard.serial_send writes it (only when the line polls
writable, the board's send_piece bytes at a time, up to its send_pieces a pass), the loop's
wake-up period of a board whose buttons do not wake it, and an SSD1306 whose I2C transfers the model charges (`ModelDisplay`).
Tests and `make bench` give the loop their own session (Loop(board, session)); requests
from a host come from `reader`, a callable returning bytes or None.
"""

from goclockfw.app.buttons import DEBOUNCE_MS
from goclockfw.board.base import Board, take_pending
from goclockfw.core.ticks import ticks_add, ticks_diff
from goclockfw.desktop.chipmodel import ChipModel

SEND_PIECE = 64  # board/mcu.py's SEND_PIECE (tests/test_chip_model.py checks they agree)
SEND_PIECE_USB = 256  # board/rp2board.py's: the RP2040's pieces
SEND_PIECES_USB = 2  # board/rp2board.py's: the RP2040 writes up to this many pieces a pass
USB_SERIAL_RING = 1536  # board/rp2board.py's: the RP2040's output ring
WAKE_RUNNING_MS = 20  # board/mcu.py's wake_ms: a board wakes for no button
WAKE_IDLE_MS = 100
WAKE_SLICE_MS = 5  # board/esp32board.py's: an edge in the ring ends the ESP32's sleep


class ChipBoard(Board):
    family = "chip model"

    def __init__(self, chip, ring, t0_ms=0, erase_max=False, display=False):
        Board.__init__(self)
        self.name = chip
        self.send_piece = SEND_PIECE
        self.send_pieces = 1
        if chip == "rp2040":
            self.serial_ring = USB_SERIAL_RING  # board/rp2board.py's
            self.send_piece = SEND_PIECE_USB
            self.send_pieces = SEND_PIECES_USB
        self.ring = ring  # the model's: it puts the edges it times there
        self.model = ChipModel(chip, ring, t0_ms, erase_max)
        self.display = ModelDisplay(self.model) if display else None
        self.reader = lambda: None
        self._pending = bytearray()  # what the reader gave that a pass has not taken yet
        self._held = bytearray(3)
        self._counted = [0, 0, 0]  # each pulse counter's count when `erasing` began
        self._erase_from = 0
        self.kbd = None
        self.led = 0

    def ticks(self):
        return self.model.tick()

    def erasing(self, on):
        """board/esp32board.py's: the button interrupts off while the flash may erase, then
        a pin whose level changed is recorded, a tap its pulse counter counted meanwhile is a
        press a debounce window before the end (not before the start) and a release at the
        end, and the others are armed again (RP2040: nothing)."""
        m = self.model
        if m.pio:
            return
        held = self._held
        now = m.tick()
        if on:
            self._erase_from = now
        for ch in range(3):
            if on:
                if m._armed[ch]:
                    self._counted[ch] = m.pcnt[ch]  # the counter set to 0
                    m._armed[ch] = 0
                    held[ch] = 1 + m._levels[ch]
            elif held[ch]:
                level = m._levels[ch]
                if level != held[ch] - 1:
                    self.ring.put(ch, now, level)
                elif level == 0 and m.pcnt[ch] != self._counted[ch]:
                    at = ticks_add(now, -DEBOUNCE_MS)
                    if ticks_diff(at, self._erase_from) < 0:
                        at = self._erase_from
                    self.ring.put(ch, at, 1)
                    self.ring.put(ch, now, 0)
                else:
                    m._armed[ch] = 1
                held[ch] = 0

    def wait(self, ms):
        m = self.model
        m.sleep(ms, 0 if m.pio else WAKE_SLICE_MS)  # McuBoard.wait / Esp32Board.wait

    def poll_inputs(self, now):
        self.model.poll_inputs()

    def level(self, ch):
        return self.model.level(ch)

    def wake_ms(self, running, now):
        return WAKE_RUNNING_MS if running else WAKE_IDLE_MS

    def read_serial(self, buf):
        if not self._pending:
            self._pending.extend(self.reader() or b"")
        return take_pending(self._pending, buf)  # a pass takes what the line's buffer holds

    def serial_send(self, buf, start, total):
        m = self.model
        sent = 0
        for _ in range(self.send_pieces):  # McuBoard.serial_send's writes
            if not m.serial_ready():
                break
            n = total - sent
            if n > self.send_piece:
                n = self.send_piece
            took = m.serial_write(n)
            sent += took
            if took < n or sent >= total:
                break
        return sent

    def kbd_intr(self, enable):
        self.kbd = bool(enable)

    def set_led(self, on):
        self.led = on


class ModelDisplay:
    """micropython-lib's SSD1306_I2C as app/screen.py uses it: a frame buffer in RAM (drawn
    by framebuf where there is one), commands and pages sent on I2C at the model's cost."""

    width = 128
    height = 64

    def __init__(self, model):
        self.model = model
        self.buffer = bytearray(self.width * self.height // 8)
        self.sent = 0  # I2C bytes
        try:
            import framebuf

            self._fb = framebuf.FrameBuffer(self.buffer, 128, 64, framebuf.MONO_VLSB)
        except ImportError:  # CPython: nothing is drawn, only the transfers are charged
            self._fb = None

    def write_cmd(self, cmd):
        self._i2c(3)  # address, control byte 0x80, the command

    def write_data(self, buf):
        self._i2c(2 + len(buf))  # address, control byte 0x40, the data

    def _i2c(self, n):
        self.sent += n
        self.model.i2c_write(n)

    def fill(self, c):
        if self._fb is not None:
            self._fb.fill(c)

    def fill_rect(self, x, y, w, h, c):
        if self._fb is not None:
            self._fb.fill_rect(x, y, w, h, c)

    def text(self, s, x, y, c=1):
        if self._fb is not None:
            self._fb.text(s, x, y, c)

    def blit(self, fb, x, y, key=-1):
        if self._fb is not None:
            self._fb.blit(fb, x, y, key)
