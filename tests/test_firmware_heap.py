"""The hot paths allocate nothing: proved under micropython.heap_lock() (tools/bench/heap.py).

With the heap locked any allocation raises MemoryError. The firmware's loop
runs 5 s of a running clock that way (progress marks written to the flash), and
40 presses are charged that way
(interrupt record, debounce, the core's press): both must go through. The
other numbers of the bench (heap after boot, per second, per press) are
reported by `make bench`, not asserted here.
"""

from tools.bench import heap as bench_heap


def test_tick_and_press_paths_allocate_nothing():
    m = bench_heap.measure()
    assert m["tick_locked"] == 0
    assert m["press_locked"] == 0
    assert m["charged_moves"] == 44  # 4 warm-up presses and the 40 under the lock
    assert m["moves"] == 22  # the presses the bench played through the whole app
    assert 0 < m["boot"] and 0 < m["per_press"]
