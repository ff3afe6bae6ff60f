"""Button edges timed by a PIO state machine on the RP2040, even while the CPU is stalled.

An RP2040 flash erase or program stops the CPU with interrupts off (the code runs from
flash): a pin interrupt that fires then is served when the flash is done, up to 400 ms
late, and the move would be charged late. A PIO state machine runs on regardless. Each
player button gets one, running `edge_timer`: X counts down one step every two cycles,
whatever the program is doing (every path through it is a pair of instructions whose
second one decrements X), so X is a clock. On each edge the machine pushes one word:

    bit 29      which edge: 0 the button went down, 1 it came up (the pins pull up)
    bits 28-0   the low 29 bits of X, two steps after the edge was sampled

Thirty bits, so that the word is a small int on a 32-bit port (31-bit signed there: up to
2**30 - 1): reading it, and every sum the loop makes of it, allocates nothing. (A 32-bit
word would be a long integer on the heap at each read.) The input shift register starts
empty (the state machine's restart clears it) and every push empties it again, so the
word is exactly the 30 bits shifted in since the last push.

Pushing takes 8 cycles (0.4 ms) in which the pin is not looked at: a bounce inside them
is not an edge of its own, so the words are presses and releases in turn.

At 20 kHz a step is 100 us: the edge is known to 0.1 ms, the 29 bits wrap after 14.9 h.
`EdgeClock` turns a word into the edge's tick (`time.ticks_ms()`), from the steps
counted since a reference the loop moves forward on every pass. The machine's clock and
the tick counter both come from the board's one crystal: they do not drift apart.

The FIFO holds 8 words (joined): eight edges while the CPU cannot read. More are lost
(`push noblock`: the machine never stalls, so its clock never stops); the loop's level
check still sees where the button is, later.
"""

FREQ = 20000  # state-machine clock: one count of X per 2 cycles = 100 us
STEP_US = 1000000 * 2 // FREQ
CAPTURE_STEPS = 2  # X is read two counts after the pin was sampled
COUNT_BITS = 29
COUNT_MASK = (1 << COUNT_BITS) - 1  # 0x1FFFFFFF: a small int on a 32-bit port


def edge_timer():
    # The body of a PIO program, in MicroPython's rp2.asm_pio language: assembled by
    # rp2.asm_pio on the board, by tests/support/pioasm.py in the tests. Every second
    # instruction counts X down once; a jump whose count reaches 0 falls through to the
    # instruction it would have jumped to (or to one that goes there).
    mov(x, invert(null))  # noqa: F821 (the names are the PIO assembler's)
    set(y, 1)  # noqa: F821  Y stays 1: the bit pushed for a release
    wrap_target()  # noqa: F821
    label("released")  # noqa: F821
    jmp(pin, "released_count")  # noqa: F821  still up: count and look again
    jmp(x_dec, "pressed_edge")  # noqa: F821  down: an edge (this is the pair's count)
    label("pressed_edge")  # noqa: F821
    in_(null, 1)  # noqa: F821  0: went down
    jmp(x_dec, "p1")  # noqa: F821
    label("p1")  # noqa: F821
    in_(x, 29)  # noqa: F821  COUNT_BITS
    jmp(x_dec, "p2")  # noqa: F821
    label("p2")  # noqa: F821
    push(noblock)  # noqa: F821
    jmp(x_dec, "pressed")  # noqa: F821
    jmp("pressed")  # noqa: F821  (only when X reached 0 just now)
    label("released_count")  # noqa: F821
    jmp(x_dec, "released")  # noqa: F821  X at 0: falls through, wraps to "released"
    wrap()  # noqa: F821
    label("pressed")  # noqa: F821
    jmp(pin, "released_edge")  # noqa: F821  up: an edge
    jmp(x_dec, "pressed")  # noqa: F821  still down: count and look again
    jmp("pressed")  # noqa: F821  (X reached 0)
    label("released_edge")  # noqa: F821
    jmp(x_dec, "r1")  # noqa: F821  the pair's count
    label("r1")  # noqa: F821
    in_(y, 1)  # noqa: F821  1: came up
    jmp(x_dec, "r2")  # noqa: F821
    label("r2")  # noqa: F821
    in_(x, 29)  # noqa: F821  COUNT_BITS
    jmp(x_dec, "r3")  # noqa: F821
    label("r3")  # noqa: F821
    push(noblock)  # noqa: F821
    jmp(x_dec, "released")  # noqa: F821
    jmp("released")  # noqa: F821  (X reached 0)


class EdgeClock:
    """Words of one edge timer -> (tick in ms, level pressed) of each edge.

    `start(now_us)` at the moment the machine starts (`start(now_us, steps)`: its count
    already at `steps`); `forward(now_us)` on every loop pass keeps the reference within
    reach of the us counter's wrap; `edge(word, now_ms, now_us)` -> (tick, pressed).
    Small ints only (tests/rp2 runs a pass under micropython.heap_lock() on the chip):
    counts are taken modulo 2**29 and a word's age stays within a pass's reach.
    """

    def __init__(self, ticks_add, ticks_diff):
        self._add = ticks_add
        self._diff = ticks_diff
        self.ref_us = 0  # a us tick ...
        self.ref_steps = 0  # ... and the count (0..COUNT_MASK) the machine had reached then

    def start(self, now_us, steps=0):
        """The machine starts now (its count at `steps`: 0 as it sets X, tests start later)."""
        self.ref_us = now_us
        self.ref_steps = steps & COUNT_MASK

    def forward(self, now_us):
        steps = self._diff(now_us, self.ref_us) // STEP_US
        if steps > 0:
            self.ref_steps = (self.ref_steps + steps) & COUNT_MASK
            self.ref_us = self._add(self.ref_us, steps * STEP_US)

    def edge(self, word, now_ms, now_us):
        """The ms tick of the edge in `word`, and whether the button is down after it."""
        self.forward(now_us)
        steps = (COUNT_MASK - (word & COUNT_MASK)) - CAPTURE_STEPS  # counts done when sampled
        back = (self.ref_steps - steps) & COUNT_MASK  # counts from the edge to the reference
        if back > COUNT_MASK >> 1:
            back -= COUNT_MASK + 1  # the edge is newer than the reference (by a few counts)
        age_us = self._diff(now_us, self.ref_us) + back * STEP_US
        tick = self._add(now_ms, -((age_us + 500) // 1000))
        return tick, 0 if word >> COUNT_BITS else 1
