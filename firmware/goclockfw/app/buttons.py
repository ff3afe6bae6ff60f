"""Buttons: edge ticks recorded by interrupts, confirmed by the loop after a quiet window.

Pure logic, no pins: the hardware layer calls `EdgeRing.put(channel, tick,
level)` from its pin interrupt (hard IRQ: no allocation, so only array stores
and small ints here), and reports the pin level when the loop asks. The loop
drains the ring into a `Debouncer`, which confirms a press once the level has
been stable for DEBOUNCE_MS after the last edge of a burst, and dates it at the
burst's FIRST edge: contact bounce and a slow loop (audio, flash writes) add
nothing to the time charged. A burst is also concluded by the next edge when
a full window of quiet lies between them, so a press the loop did not look at
in time (a short tap during a 50 ms stall) still counts, at its own tick.
A held button is one press; edges while it is down (release bounce, noise)
only end in a release.

A pin may change without an edge being recorded: an ESP32 pin is not watched
between its first edge and the loop's next look (board/mcu.py), and a full ring
drops edges. The loop's look at the level (`observe`) repairs that. Within a
window of the burst's last edge, a change nobody reported is an edge of the
burst at the tick the loop saw it, so a glitch whose end went unreported is still
a glitch. Once the loop could not look for a whole window, the level an interrupt
recorded with the last edge has stood that long as far as anyone can tell: a
burst recorded as a change (down, for a button that was up) that the pin no
longer shows is that change, then the change back, dated when seen (`settle`).
A level the loop only sampled (the Pico's BOOTSEL) must still be seen again.

Confirmed presses and releases wait in a small queue; `pop` hands them out in the order
of their ticks, not the order they were confirmed in: a tap on one button confirmed in
the same pass as an earlier press on another (a loop that was busy) comes after it.

While an edge waits for confirmation the clock must not be advanced past its
tick (`hold`): a press made just before a deadline is charged before that
deadline fires. A button that chatters for longer than MAX_HOLD_MS stops
holding the clock back, so a broken switch cannot freeze the clock.
"""

from array import array

from goclockfw.core.ticks import ticks_diff

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
    """Edges (channel, tick, level after the edge) from interrupt handlers, in a ring allocated once.

    One writer (the interrupts) and one reader (the loop): the writer fills a
    slot, then moves `head`; the reader moves `tail`. When the ring is full
    the newest edge is dropped and counted; the debouncer's level check
    (`Debouncer.observe`) still catches the change.
    """

    def __init__(self, size=32):
        self.size = size
        self.ticks = array("i", [0] * size)
        self.chans = bytearray(size)
        self.levels = bytearray(size)
        self.head = 0
        self.tail = 0
        self.dropped = 0

    def put(self, ch, tick, level):
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
        self.levels[h] = level
        self.head = n

    def drain(self, debouncer):
        """Hand every recorded edge to the debouncer, oldest first."""
        t = self.tail
        while t != self.head:
            debouncer.edge(self.chans[t], self.ticks[t], self.levels[t])
            t += 1
            if t == self.size:
                t = 0
            self.tail = t


class Debouncer:
    """Per channel: the confirmed state and the burst of edges awaiting confirmation."""

    def __init__(self, window=DEBOUNCE_MS, max_hold=MAX_HOLD_MS, channels=CHANNELS, queue=8):
        self.window = window
        self.max_hold = max_hold
        self.down = bytearray(channels)  # confirmed state: 1 while pressed
        self.pending = bytearray(channels)  # 1 while a burst awaits confirmation
        self.level = bytearray(channels)  # level after the latest edge
        self.sampled = bytearray(channels)  # 1: that level was read by the loop, not recorded
        self.first = array("i", [0] * channels)  # tick of the burst's first edge
        self.last = array("i", [0] * channels)  # tick of its latest edge
        # Confirmed changes not handed out yet (`_qlen` of them, in no particular order):
        # channel, PRESS/RELEASE, tick (a press: its first edge).
        self._qn = queue
        self._qch = bytearray(queue)
        self._qkind = bytearray(queue)
        self._qtick = array("i", [0] * queue)
        self._qlen = 0
        self.channel = 0  # of the change `pop` returned
        self.tick = 0  # of the change `pop` returned
        self.waiting = 0  # bursts awaiting confirmation (how many `pending` are 1)
        self.down_mask = 0  # `down` as bits (channel ch: bit ch), for `look`
        self.queued = 0  # confirmed changes not handed out yet (`pop`)

    def edge(self, ch, tick, level):
        """An edge on channel `ch` at `tick`, after which the pin read `level` (1 = pressed)."""
        if self.pending[ch] and ticks_diff(tick, self.last[ch]) >= self.window:
            # Quiet for a whole window since the last edge: that burst is over.
            self._conclude(ch, self.level[ch])
        if not self.pending[ch]:
            self.pending[ch] = 1
            self.waiting += 1
            self.first[ch] = tick
            self.last[ch] = tick
        else:
            # Edges may arrive out of order (an interrupt and a level poll): keep the extremes.
            if ticks_diff(tick, self.first[ch]) < 0:
                self.first[ch] = tick
            if ticks_diff(tick, self.last[ch]) > 0:
                self.last[ch] = tick
        self.level[ch] = level
        self.sampled[ch] = 0

    def observe(self, ch, level, now):
        """The loop's view of the pin level; a change nobody reported is an edge.

        Buttons without an interrupt (the Pico's BOOTSEL) rely on this alone;
        for the others it repairs a missed or dropped interrupt.
        """
        if not self.pending[ch]:
            if level != self.down[ch]:
                self.edge(ch, now, level)
                self.sampled[ch] = 1
        elif level != self.level[ch] and ticks_diff(now, self.last[ch]) < self.window:
            self.edge(ch, now, level)  # an unreported change inside the burst: an edge now
            self.sampled[ch] = 1

    def look(self, levels, now):
        """The loop's look at every channel's level (`levels`: bit ch set while channel ch is
        pressed): `observe` and `settle` each. A pass where no burst waits and every level
        is as confirmed (nearly every pass) costs one comparison."""
        if not self.waiting and levels == self.down_mask:
            return
        for ch in range(len(self.pending)):
            level = (levels >> ch) & 1
            self.observe(ch, level, now)
            self.settle(ch, level, now)

    def settle(self, ch, level, now):
        """Conclude channel `ch`'s burst if it has been quiet for a window; `level` is the pin now."""
        if self.pending[ch] and ticks_diff(now, self.last[ch]) >= self.window:
            was = self.level[ch]
            if level != was and was != self.down[ch] and not self.sampled[ch]:
                # Recorded as a change, seen back where it was a window or more later:
                # the change (a tap whose release went unreported), then the change back.
                self._conclude(ch, was)
                self.edge(ch, now, level)
                self.sampled[ch] = 1
            else:
                self._conclude(ch, level)

    def _conclude(self, ch, level):
        self.pending[ch] = 0
        self.waiting -= 1
        if level == self.down[ch]:
            return  # a glitch, or a press and release both inside the burst
        self.down[ch] = level
        self.down_mask ^= 1 << ch
        if level:
            self._push(ch, PRESS, self.first[ch])
        else:
            self._push(ch, RELEASE, self.last[ch])

    def _push(self, ch, kind, tick):
        n = self._qlen
        if n == self._qn:
            return  # eight changes unread: the loop is gone anyway
        self._qch[n] = ch
        self._qkind[n] = kind
        self._qtick[n] = tick
        self._qlen = self.queued = n + 1

    def pop(self):
        """The confirmed change with the earliest tick: PRESS or RELEASE (see `channel`,
        `tick`), or NONE. (Rarely more than one waits: a search, no sorted insert.)"""
        n = self._qlen
        if not n:
            return NONE
        ticks = self._qtick
        pick = 0
        for i in range(1, n):
            if ticks_diff(ticks[i], ticks[pick]) < 0:
                pick = i
        self.channel = self._qch[pick]
        self.tick = ticks[pick]
        kind = self._qkind[pick]
        n -= 1  # the last one takes the slot handed out
        self._qch[pick] = self._qch[n]
        self._qkind[pick] = self._qkind[n]
        ticks[pick] = ticks[n]
        self._qlen = self.queued = n
        return kind

    def hold(self, now):
        """The tick the clock may be advanced to: `now`, or the first edge of a possible press."""
        if not self.waiting:
            return now
        limit = now
        for ch in range(len(self.pending)):
            if self.pending[ch] and not self.down[ch]:
                f = self.first[ch]
                if ticks_diff(now, f) < self.max_hold and ticks_diff(f, limit) < 0:
                    limit = f
        return limit

    def next_due(self, now):
        """Ms until the earliest pending burst can be confirmed, or -1 when none waits."""
        if not self.waiting:
            return -1
        best = -1
        for ch in range(len(self.pending)):
            if self.pending[ch]:
                d = self.window - ticks_diff(now, self.last[ch])
                if d < 0:
                    d = 0
                if best < 0 or d < best:
                    best = d
        return best
