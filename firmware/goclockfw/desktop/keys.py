"""Buttons worked by keys, or by a page's clicks, rather than by springs: the desktop
board's keyboard (desktop/board.py) and the browser board's page (browser/board.py).

A tap holds its button down TAP_MS, as a finger would; a hold keeps it down until it is
let go. Each level change goes into the board's edge ring, as a pin's interrupt would put
it, so the firmware's debouncer sees what it sees on a chip.

    keys = KeyButtons(board.ring, held=(ARBITER,))  # held at power-up
    keys.tap(LEFT, now); keys.hold(ARBITER, True, now)
    keys.release(now)          # in poll_inputs: taps whose time is up let go
    keys.next_release_ms(now)  # in wake_ms: ms until the next one does, or None
"""

from goclockfw.app.buttons import CHANNEL_NAMES
from goclockfw.core.ticks import ticks_add, ticks_diff

TAP_MS = 80  # how long a tap holds its button down
CHANNELS = len(CHANNEL_NAMES)  # left, right, the arbiter key


class KeyButtons:
    def __init__(self, ring, held=()):
        self.ring = ring
        self.down = bytearray(CHANNELS)  # held until let go
        for ch in held:
            self.down[ch] = 1
        self.tap_end = [None] * CHANNELS  # the tick a tap lets its button go

    def level(self, ch):
        return 1 if self.down[ch] or self.tap_end[ch] is not None else 0

    def held(self, ch):
        return self.down[ch] == 1

    def tap(self, ch, now):
        was = self.level(ch)
        self.tap_end[ch] = ticks_add(now, TAP_MS)
        if not was:
            self.ring.put(ch, now, 1)

    def hold(self, ch, down, now):
        was = self.level(ch)
        self.down[ch] = 1 if down else 0
        if self.level(ch) != was:
            self.ring.put(ch, now, self.level(ch))

    def toggle(self, ch, now):
        self.hold(ch, not self.down[ch], now)

    def release(self, now):
        """Taps whose time is up let their buttons go (at the tick they were due)."""
        for ch in range(CHANNELS):
            end = self.tap_end[ch]
            if end is not None and ticks_diff(now, end) >= 0:
                self.tap_end[ch] = None
                if not self.down[ch]:
                    self.ring.put(ch, end, 0)

    def next_release_ms(self, now):
        """Ms until a tap lets its button go (0 when one is due), or None."""
        best = None
        for end in self.tap_end:
            if end is not None:
                d = ticks_diff(end, now)
                d = d if d > 0 else 0
                if best is None or d < best:
                    best = d
        return best
