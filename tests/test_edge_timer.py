"""The RP2040 edge timer (board/edgetimer.py): the PIO program in an emulator, and the
arithmetic that turns its words into ticks.

The program runs in `pioemu` (rp2040-pio-emulator, from PyPI) as the board runs it:
20 kHz, the button's pin pulled up, shifted left. Edges come at chosen cycles, long
apart and in bursts (bounce); the words it pushes are read back when the CPU would
read them, late (after a 400 ms flash erase) or at once, and `EdgeClock` must date each
edge to the millisecond tick it happened in, give or take one, and say whether the
button is down after it.
"""

import functools

import pytest
from pioemu import emulate

from goclockfw.board.edgetimer import COUNT_MASK, FREQ, EdgeClock, edge_timer
from goclockfw.core.ticks import TICKS_PERIOD, ticks_add, ticks_diff
from support.pioasm import assemble

CYCLE_US = 1000000 // FREQ  # 50 us
PROGRAM, WRAP_TARGET, WRAP_TOP = assemble(edge_timer)


@functools.lru_cache(maxsize=None)
def _run(edges, until):
    return run(edges, until)


def run(edges, until, initial=None):
    """Emulate the program with the pin low (pressed) during [down, up) spans: `edges` are
    the cycles at which the pin changes, starting high. Returns [(cycle pushed, word)]."""
    changes = list(edges)

    def level(cycle: int) -> int:
        n = sum(1 for c in changes if c <= cycle)
        return 1 if n % 2 == 0 else 0  # starts released (high)

    pushed = []
    gen = emulate(
        PROGRAM,
        stop_when=lambda _op, state: state.clock >= until,
        input_source=level,
        jmp_pin=0,
        shift_isr_right=False,
        wrap_target=WRAP_TARGET,
        wrap_top=WRAP_TOP,
        initial_state=initial,
    )
    for _before, after in gen:
        if after.receive_fifo:
            pushed.append((after.clock, after.receive_fifo[-1]))
            after.receive_fifo.clear()  # the CPU takes it (the FIFO never fills here)
    return pushed


def ms_tick(t_us):
    return (t_us // 1000) % TICKS_PERIOD


def us_tick(t_us):
    return t_us % TICKS_PERIOD


def check(edges, pushed, start_us, read_delay_us):
    """Each word dates its edge (the first of a burst) to the ms tick, presses and releases in turn."""
    clock = EdgeClock(ticks_add, ticks_diff)
    clock.start(us_tick(start_us))
    assert len(pushed) == len(edges)
    for i, (cycle, word) in enumerate(pushed):
        now = start_us + cycle * CYCLE_US + read_delay_us  # when the CPU reads the word
        tick, down = clock.edge(word, ms_tick(now), us_tick(now))
        true = start_us + edges[i] * CYCLE_US
        assert abs(ticks_diff(tick, ms_tick(true))) <= 1, (i, tick, ms_tick(true))
        assert down == (1 if i % 2 == 0 else 0)  # presses and releases in turn


@pytest.mark.parametrize("read_delay_us", [0, 1500, 400000])  # at once, soon, after an erase
@pytest.mark.parametrize("start_us", [0, TICKS_PERIOD - 3000, 123456789])
def test_each_edge_dated_to_its_millisecond(start_us, read_delay_us):
    # presses of 100 ms to 1 s, 2 s apart, and a bouncing press (edges 1 to 3 cycles apart:
    # the bounce ends inside the 0.4 ms the push takes, so it is one press)
    edges = [400, 2400, 40000, 44000, 80001, 80003, 80004, 80006, 80007, 98000]
    pushed = _run(tuple(edges), 100000)  # emulated once, read nine ways
    check([400, 2400, 40000, 44000, 80001, 98000], pushed, start_us, read_delay_us)


def test_the_count_never_slows_down_whatever_the_pin_does():
    # X steps once every two cycles, in every path: after 60 edges it is where time says.
    edges = [1000 + 37 * i for i in range(60)]
    pushed = run(edges, 4000)
    assert len(pushed) == 60
    for cycle, word in pushed:
        steps = COUNT_MASK - (word & COUNT_MASK)
        assert steps == (cycle - 1) // 2 - 2, (cycle, steps)


def test_the_count_going_through_zero_keeps_its_pace():
    from pioemu.state import State

    # Start just before X reaches 0 (the board would take 119 hours to get there).
    start = State(program_counter=WRAP_TARGET, x_register=20, y_register=1, pin_values=1)
    edges = [100, 200]
    pushed = run(edges, 400, initial=start)
    clock = EdgeClock(ticks_add, ticks_diff)
    clock.start(0, steps=COUNT_MASK - 20)  # the count as X = 20 says
    for i, (cycle, word) in enumerate(pushed):
        tick, _ = clock.edge(word, ms_tick(cycle * CYCLE_US), us_tick(cycle * CYCLE_US))
        assert abs(ticks_diff(tick, ms_tick(edges[i] * CYCLE_US))) <= 1


def test_a_full_fifo_loses_edges_but_never_the_count():
    # The CPU reads nothing for a while: the 4-word FIFO of the emulator fills; the words
    # that got in still date their edges right, and the machine's clock never stalled.
    edges = [100 + 10 * i for i in range(12)]
    words = []
    gen = emulate(
        PROGRAM,
        stop_when=lambda _op, state: state.clock >= 1000,
        input_source=lambda cycle: 0 if sum(c <= cycle for c in edges) % 2 else 1,
        jmp_pin=0,
        shift_isr_right=False,
        wrap_target=WRAP_TARGET,
        wrap_top=WRAP_TOP,
    )
    last = None
    for _before, after in gen:
        last = after
    words = list(last.receive_fifo)
    assert len(words) == 4  # the first four edges; the rest were lost, not waited for
    clock = EdgeClock(ticks_add, ticks_diff)
    clock.start(0)
    for i, word in enumerate(words):
        tick, _ = clock.edge(word, ms_tick(1000 * CYCLE_US), us_tick(1000 * CYCLE_US))
        assert abs(ticks_diff(tick, ms_tick(edges[i] * CYCLE_US))) <= 1
    assert abs((0xFFFFFFFF - last.x_register) - 1000 // 2) <= 1  # the clock never stalled
