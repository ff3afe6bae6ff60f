"""`make bench`: the firmware on the chip cost models (RP2040, ESP32), figures per chip.

The real loop and session run on desktop/chipboard.py's board in virtual time, with each
chip's costs (desktop/chipcosts.py: flash erases and programs with interrupts off or soft
handlers held, the serial line, the display's I2C, the I2S buffer, the scheduler queue),
on a flash with the board's littlefs geometry. Modelled, not measured: docs/chip-model.md.

  a game        GAME_MOVES moves of byo-yomi (60 s periods), a host watching and reading,
                the display on, every press bouncing twice; again with every erase at
                its worst-case 400 ms; again at 400 ms, started once the reset's erased
                chunks are ready
  press/erase   a press half way through a 400 ms erase (tests/support/chipclock.py): the
                game's first, in the idle clock's preparation; a running game's, in an
                emergency erase (down to its reserve of erased chunks), a tap and a press
                held 500 ms
  press/page    a press at the start of a display page's I2C transfer
  call/record   calls falling due in the pass that programs another record
  host stops    a watched game whose host stops reading at the worst moment; one whose
                host stops reading but sends a request a second
  storm/erase   1,000 bounces in a second, starting with an erase

Figures, never asserted here (tests/test_chip_model.py asserts the targets).
"""

import sys
import time

# The scenarios live with the tests' support code (tests/support/chipclock.py).
from tests.support.chipclock import (
    CHIPS,
    call_during_record,
    game_with_spares_ready,
    host_stops_reading,
    press_during_erase,
    press_during_page,
    requests_while_host_stopped,
    storm_during_erase,
    whole_game,
)

GAME_MOVES = 400


def ms(v):
    return "lost" if v is None else "%g ms" % v


def game_rows(g, worst, ready):
    """The flash and the loop: the game, with every erase at 400 ms, with spares ready first."""
    return [
        (
            "erased chunks ready at the start (a second after the reset)",
            "%d" % g["spares_at_start"],
        ),
        ("erases per 100 moves", "%.1f" % g["erases_per_100_moves"]),
        ("longest interrupts-off window", ms(g["longest_irq_off_ms"])),
        ("longest interrupts-off window (every erase 400 ms)", ms(worst["longest_irq_off_ms"])),
        ("longest soft-handler stall (flash, I2C, UART)", ms(g["longest_stall_ms"])),
        ("longest loop pass", ms(g["longest_pass_ms"])),
        ("erases in one loop pass, max (every erase 400 ms)", "%d" % worst["pass_erases_max"]),
        ("flash time in one loop pass, max (every erase 400 ms)", ms(worst["pass_flash_max_ms"])),
        ("press timestamp error max (every erase 400 ms)", ms(worst["press_error_max_ms"])),
        ("call onset lateness max (every erase 400 ms)", ms(worst["call_late_max_ms"])),
        ("erases while it runs (400 ms, spares ready first)", "%d" % ready["erases"]),
        ("press timestamp error max (400 ms, spares ready first)", ms(ready["press_error_max_ms"])),
    ]


def press_rows(g, erase_err, run_err, held_err, page_err):
    """The press timestamp errors: the game's, each worst-moment press's, the max of all."""
    press_max = g["press_error_max_ms"]
    errs = (erase_err, run_err, held_err, page_err)
    if None in errs or g["presses_lost"]:
        press_all = None
    else:
        press_all = max([press_max] + [abs(e) for e in errs])
    return [
        ("press timestamp error, game max", ms(press_max)),
        ("press timestamp error, first press during an erase", ms(erase_err)),
        ("press timestamp error, tap in an emergency erase", ms(run_err)),
        ("press timestamp error, press held through one", ms(held_err)),
        ("press timestamp error, press during a display page", ms(page_err)),
        ("press timestamp error, max of all", ms(press_all)),
    ]


def output_rows(g, late):
    """The game's calls, sound, display and serial line; a call during a record write."""
    return [
        ("calls in the game", "%d" % g["calls"]),
        (
            "call onset lateness p99 / max (game)",
            "%d / %d ms" % (g["call_late_p99_ms"], g["call_late_max_ms"]),
        ),
        ("call onset lateness max (call during a record write)", ms(max(late))),
        (
            "audio underruns / stuck callbacks (game)",
            "%d / %d" % (g["underruns"], g["audio_stuck"]),
        ),
        ("display step max", ms(g["redraw_max_ms"])),
        ("bytes that may block the loop (game)", "%d" % g["serial_blocking_bytes"]),
        ("serial max blocking (game)", ms(g["serial_max_block_ms"])),
    ]


def host_stops_rows(h, replies, asked):
    """A host that stops reading: silent, then still sending requests."""
    return [
        ("bytes that may block the loop (host stops)", "%d" % h["serial_blocking_bytes"]),
        ("serial max blocking (host stops)", ms(h["serial_max_block_ms"])),
        ("event lines dropped (host stops)", "%d" % h["events_dropped"]),
        ("call onset lateness max (host stops)", ms(h["call_late_max_ms"])),
        (
            "replies lost (host stops, still asking)",
            "%d of %d" % (len(asked) - len(replies), len(asked)),
        ),
    ]


def scheduler_rows(g, storm):
    """The scheduler queue and the PIO FIFO: the game's, and a bounce storm's."""
    return [
        ("scheduler queue max / dropped (game)", "%d / %d" % (g["sched_max"], g["sched_dropped"])),
        (
            "scheduler queue max / dropped (storm during erase)",
            "%d / %d" % (storm.sched_max, storm.sched_dropped),
        ),
        ("PIO FIFO words lost (storm during erase)", "%d" % storm.pio_lost),
    ]


def measure(chip):
    """Every scenario on `chip`: its figures as (name, value) rows, and the run time in s."""
    start = time.perf_counter()
    _, g = whole_game(chip, GAME_MOVES)
    _, worst = whole_game(chip, GAME_MOVES, erase_max=True)
    _, ready = game_with_spares_ready(chip, GAME_MOVES)
    erase_err = press_during_erase(chip)
    run_err = press_during_erase(chip, running=True)
    held_err = press_during_erase(chip, hold_ms=500, running=True)
    page_err = press_during_page(chip)
    _, late = call_during_record(chip)
    _, h = host_stops_reading(chip)
    storm = storm_during_erase(chip)
    replies, _, asked = requests_while_host_stopped(chip)
    rows = (
        game_rows(g, worst, ready)
        + press_rows(g, erase_err, run_err, held_err, page_err)
        + output_rows(g, late)
        + host_stops_rows(h, replies, asked)
        + scheduler_rows(g, storm)
    )
    return rows, time.perf_counter() - start


def main():
    print("chip cost models: the firmware on an RP2040 and an ESP32 in virtual time")
    print("(a %d-move game and the worst-case replays; modelled, not measured)" % GAME_MOVES)
    results = {}
    for chip in CHIPS:
        results[chip] = measure(chip)
    names = [name for name, _ in results[CHIPS[0]][0]]
    width = max(len(n) for n in names)
    print()
    print("  %-*s  %14s  %14s" % (width, "", CHIPS[0], CHIPS[1]))
    for i, name in enumerate(names):
        print(
            "  %-*s  %14s  %14s"
            % (width, name, results[CHIPS[0]][0][i][1], results[CHIPS[1]][0][i][1])
        )
    print()
    print("  run time: %s" % ", ".join("%s %.1f s" % (c, results[c][1]) for c in CHIPS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
