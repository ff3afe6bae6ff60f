"""The hot paths allocate nothing: proved under micropython.heap_lock() (tools/bench/heap.py).

With the heap locked any allocation raises MemoryError. The firmware's loop
runs 5 s of a running clock that way (progress marks written to the flash), 5 s
of a paused one, 5 s of an idle one whose next game's chunks are made, and 40
presses are charged that way (interrupt record, debounce, the core's press): all
must go through. The other numbers of the bench (heap after boot, per second,
per press) are reported by `make bench`, not asserted here.

The one thing that does allocate between games is the preparation of the next game's
erased chunks (each a file created through littlefs): under the lock each of its steps
fails, and the upkeep must back off (1 s, then 2 s, ...) instead of failing every pass.
"""

from tools.bench import heap as bench_heap


def test_tick_and_press_paths_allocate_nothing():
    m = bench_heap.measure()
    assert m["tick_locked"] == 0
    assert m["press_locked"] == 0
    # The game started right after boot, its chunks not all made: its pause makes none
    # (storage/journal.py _target), and its passes allocate nothing.
    at_pause, after, wanted = m["paused_spares"]
    assert 2 <= at_pause < wanted and after == at_pause, m["paused_spares"]
    assert m["paused_locked"] == 0
    # The next game's preparation under the lock: a step at 0, 1 s and 3 s, no more.
    errors, passes, failures = m["setup_locked"]
    assert 1 <= errors <= 3 and passes > 50 and failures == errors, m["setup_locked"]
    # Unlocked, the preparation ends (all made), and an idle pass allocates nothing.
    assert m["idle_spares"] == [wanted, wanted, False], m["idle_spares"]
    assert m["idle_locked"] == 0
    assert m["charged_moves"] == 44  # 4 warm-up presses and the 40 under the lock
    assert m["moves"] == 22  # the presses the bench played through the whole app
    assert 0 < m["boot"] and 0 < m["per_press"]
