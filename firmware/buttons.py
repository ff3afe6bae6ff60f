"""Buttons: edge ticks recorded by interrupts, confirmed by the loop after a quiet window.

Pure logic, no pins: the hardware layer calls `EdgeRing.put(channel, tick)` from
its pin interrupt (hard IRQ: no allocation, so only array stores and small ints
here), and reports the pin level when the loop asks. The loop drains the ring
into a `Debouncer`, which confirms a press once the level has been stable for
DEBOUNCE_MS after the last edge of a burst, and dates it at the burst's FIRST
edge: contact bounce and a slow loop (audio, flash writes) add nothing to the
time charged. A held button is one press; edges while it is down (release
bounce, noise) only end in a release.

While an edge waits for confirmation the clock must not be advanced past its
tick (`hold`): a press made just before a deadline is charged before that
deadline fires. A button that chatters for longer than MAX_HOLD_MS stops
holding the clock back, so a broken switch cannot freeze the clock.
"""

from array import array

from ticks import ticks_diff

LEFT = 0
RIGHT = 1
ARBITER = 2
CHANNELS = 3
CHANNEL_NAMES = ("left", "right", "arbiter")

DEBOUNCE_MS = 10  # quiet time after the last edge before a level counts
MAX_HOLD_MS = 60  # at most this long may an unconfirmed edge hold the clock back

NONE = 0
PRESS = 1
RELEASE = 2


class EdgeRing:
    """Edges (channel, tick) from interrupt handlers, in a ring allocated once.

    One writer (the interrupts) and one reader (the loop): the writer fills a
    slot, then moves `head`; the reader moves `tail`. When the ring is full
    the newest edge is dropped and counted; the debouncer's level check
    (`Debouncer.observe`) still catches the change.
    """

    def __init__(self, size=32):
        self.size = size
        self.ticks = array("i", [0] * size)
        self.chans = bytearray(size)
        self.head = 0
        self.tail = 0
        self.dropped = 0

    def put(self, ch, tick):
        # Runs in a hard interrupt: no allocation (array stores, small ints).
        h = self.head
        n = h + 1
        if n == self.size:
            n = 0
        if n == self.tail:
            self.dropped += 1
            return
        self.ticks[h] = tick
        self.chans[h] = ch
        self.head = n

    def drain(self, debouncer):
        """Hand every recorded edge to the debouncer, oldest first."""
        t = self.tail
        while t != self.head:
            debouncer.edge(self.chans[t], self.ticks[t])
            t += 1
            if t == self.size:
                t = 0
            self.tail = t


class Debouncer:
    """Per channel: the confirmed state and the burst of edges awaiting confirmation."""

    def __init__(self, window=DEBOUNCE_MS, max_hold=MAX_HOLD_MS, channels=CHANNELS):
        self.window = window
        self.max_hold = max_hold
        self.down = bytearray(channels)  # confirmed state: 1 while pressed
        self.pending = bytearray(channels)  # 1 while a burst awaits confirmation
        self.first = array("i", [0] * channels)  # tick of the burst's first edge
        self.last = array("i", [0] * channels)  # tick of its latest edge
        self.since = array("i", [0] * channels)  # tick of the last confirmed change

    def edge(self, ch, tick):
        """An edge (either way) on channel `ch` at `tick`."""
        if not self.pending[ch]:
            self.pending[ch] = 1
            self.first[ch] = tick
            self.last[ch] = tick
            return
        # Edges may arrive out of order (an interrupt and a level poll): keep the extremes.
        if ticks_diff(tick, self.first[ch]) < 0:
            self.first[ch] = tick
        if ticks_diff(tick, self.last[ch]) > 0:
            self.last[ch] = tick

    def observe(self, ch, level, now):
        """The loop's view of the pin level (1 = pressed); a change nobody reported is an edge.

        Buttons without an interrupt (the Pico's BOOTSEL) rely on this alone;
        for the others it repairs a missed or dropped interrupt.
        """
        if not self.pending[ch] and level != self.down[ch]:
            self.edge(ch, now)

    def settle(self, ch, level, now):
        """Confirm channel `ch` if its burst is over: PRESS, RELEASE or NONE.

        `level` is the pin level now (1 = pressed). A press is dated
        `first[ch]`, read it right after PRESS is returned.
        """
        if not self.pending[ch] or ticks_diff(now, self.last[ch]) < self.window:
            return NONE
        self.pending[ch] = 0
        if level == self.down[ch]:
            return NONE  # a glitch, or a press and release both inside the burst
        self.down[ch] = level
        self.since[ch] = now
        return PRESS if level else RELEASE

    def hold(self, now):
        """The tick the clock may be advanced to: `now`, or the first edge of a possible press."""
        limit = now
        for ch in range(len(self.pending)):
            if self.pending[ch] and not self.down[ch]:
                f = self.first[ch]
                if ticks_diff(now, f) < self.max_hold and ticks_diff(f, limit) < 0:
                    limit = f
        return limit

    def next_due(self, now):
        """Ms until the earliest pending burst can be confirmed, or -1 when none waits."""
        best = -1
        for ch in range(len(self.pending)):
            if self.pending[ch]:
                d = self.window - ticks_diff(now, self.last[ch])
                if d < 0:
                    d = 0
                if best < 0 or d < best:
                    best = d
        return best

    def held_ms(self, ch, now):
        """How long channel `ch` has been confirmed down (0 when up)."""
        if not self.down[ch]:
            return 0
        return ticks_diff(now, self.since[ch])
