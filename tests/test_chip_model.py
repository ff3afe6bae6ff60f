"""The firmware on the chip cost models (desktop/chipmodel.py): whole games and worst cases on an
RP2040 and an ESP32, in virtual time, against the timing targets.

Targets (issue 9): a press charged within 2 ms of its edge, during a flash write too; a call
starts at most 20 ms late at p99, 50 ms at worst, and no clip is cut (no underrun, no stuck
callback); erases only at quiet moments (no clip playing, the running side's next deadline
more than ERASE_QUIET_MS away) and at most 0.2 a move; a serial write never blocks the loop
more than 5 ms, a host that stops reading loses event lines (counted), never replies; a
bounce storm never fills the ESP32 scheduler's queue of 8; a display step at most 10 ms.
Where the firmware missed one, the test was an xfail(strict) with the measured figure; none
is left: an ESP32 tap inside an erase is now counted by the button's pulse counter and
charged by the erase's end (the target there: never lost), and the Pico's USB write no
longer waits for a host that stopped reading.
"""

import ast
import json
import os

import pytest

from goclockfw.app.buttons import EdgeRing
from goclockfw.app.upkeep import ERASE_QUIET_MS
from goclockfw.core.ticks import TICKS_MAX
from goclockfw.desktop import chipboard
from goclockfw.desktop.chipcosts import chip_costs
from goclockfw.desktop.chipmodel import IDLE, IRQ_OFF, ChipModel
from goclockfw.desktop.flash import NorFlash
from goclockfw.storage.journal import RESERVE
from support.chipclock import (
    BYOYOMI,
    CHIPS,
    REPO,
    SIDES,
    ChipClock,
    call_during_record,
    game_presses,
    game_with_spares_ready,
    host_stops_reading,
    press_during_erase,
    press_during_page,
    requests_while_host_stopped,
    storm,
    storm_during_erase,
    whole_game,
)
from support.lfs import lfs_fs
from support.sessions import make_session

MOVES = 200


@pytest.fixture(scope="module", params=CHIPS)
def game(request):
    return whole_game(request.param, MOVES)


def assert_presses_charged_at_their_edges(c, f):
    assert f["presses_lost"] == 0, f
    errs = c.press_errors()
    assert max(abs(e) for e in errs[1:]) <= 2, f  # every move
    # The starter's press comes a second after the reset, while the idle clock prepares its
    # log's chunks (erases). The RP2040's PIO times it through an erase; on the ESP32 a
    # press held through one is charged at the end of its storage step (an erase, and the
    # programs of a chunk made: the button interrupts are off meanwhile; its pulse counter
    # keeps a tap: test_esp32_a_tap_inside_a_400_ms_erase_is_counted_and_charged_by_its_end),
    # exactly that late.
    if c.model.pio:
        assert abs(errs[0]) <= 2, errs[0]
        return
    at = c.presses[0][0]
    step = [(a, b) for a, b in c.ports.storage_steps if a <= at < (b or at + 1)]
    late_ms = (step[0][1] - at) // 1000 if step else 0
    assert step == [] or step[0][1] - step[0][0] <= chip_costs("esp32")["erase_us"] + 20000
    assert 0 <= errs[0] - late_ms <= 2, (errs[0], late_ms, step)


def test_every_press_of_a_game_is_charged_at_its_edge(game):
    c, f = game
    assert len(c.charged) == MOVES + 1
    assert_presses_charged_at_their_edges(c, f)


def test_calls_of_a_game_start_on_time_and_play_whole(game):
    c, f = game
    assert f["calls"] > 40  # the long moves reach the calls
    assert f["call_late_p99_ms"] <= 20 and f["call_late_max_ms"] <= 50, f
    assert f["underruns"] == 0 and f["audio_stuck"] == 0, f


def test_erases_of_a_game_are_few_and_at_quiet_moments(game):
    c, f = game
    assert f["erases"] <= 0.2 * MOVES, f
    assert f["erases_while_playing"] == 0
    for _playing, margin in c.erase_log:
        assert margin is None or margin > ERASE_QUIET_MS, c.erase_log


@pytest.mark.parametrize("chip", ["rp2040", "esp32"])
def test_a_quiet_moment_step_ends_before_the_next_deadline_at_worst_case_erases(chip):
    # Every erase at 400 ms. A step that makes a new chunk can erase 3 blocks (littlefs
    # compacts the logs directory around it): it waits for 3 erases' worth of quiet.
    _, f = whole_game(chip, MOVES, erase_max=True)
    assert f["pass_erases_max"] >= 1 and f["pass_flash_max_ms"] >= 400, f  # they happened
    assert f["flash_over_margin_ms"] == 0, f  # and none reached what was due next
    assert f["call_late_max_ms"] <= 50


def test_a_game_never_blocks_on_serial_or_redraws_long(game):
    c, f = game
    assert f["serial_max_block_ms"] <= 5, f
    assert f["events_dropped"] == 0  # a host that reads loses nothing
    assert 0 < f["redraw_max_ms"] <= 10, f
    assert f["sched_dropped"] == 0 and f["pio_lost"] == 0, f


# ----- worst cases ------------------------------------------------------------------------


def test_rp2040_a_press_during_a_400_ms_erase_is_charged_at_its_edge():
    err = press_during_erase("rp2040")
    assert err is not None and abs(err) <= 2, err  # the PIO edge timer ran on


def test_esp32_a_tap_inside_a_400_ms_erase_is_counted_and_charged_by_its_end():
    """The press that starts a game, a tap wholly inside an erase of the idle clock's
    preparation after a reset. No soft handler runs and the button interrupts are off
    during the erase, but the button's pulse counter (esp32.PCNT) counts the press in
    hardware: it is charged when the storage step ends (a debounce window before), never
    lost and never before the finger went down."""
    for erase_max, bound in ((True, 400 + 20), (False, 45 + 20)):
        err = press_during_erase("esp32", erase_max=erase_max)
        assert err is not None and 0 < err <= bound, (erase_max, err)


@pytest.mark.parametrize("chip", CHIPS)
def test_a_game_started_with_its_spares_ready_erases_nothing_while_it_runs(chip):
    """The ESP32 erases nothing while a clock runs unless the game outgrew its erased chunks:
    a game started with them ready meets no erase, so every press is charged at its edge."""
    c, f = game_with_spares_ready(chip, MOVES)
    assert f["erases"] == 0, f
    assert f["presses_lost"] == 0 and f["press_error_max_ms"] <= 2, f
    assert len(c.charged) == MOVES + 1


def test_esp32_a_running_game_erases_only_down_to_its_reserve():
    """Started before its spares were ready, an ESP32 game erases only when it is down to the
    reserve (an emergency), and no freed chunk is erased while it runs."""
    c = ChipClock("esp32", display=False)
    c.configure(BYOYOMI)
    c.play([(2000, "black")])
    j = c.session.journal
    assert len(j.spares) > RESERVE
    j.dirty.append(j.spares.pop())  # a chunk freed while the game runs
    erases = c.model.erases
    c.run_ms(30000)
    assert c.model.erases == erases and len(j.dirty) == 1  # kept for the idle clock
    del j.spares[RESERVE:]  # down to the reserve: erased at the next quiet moment
    c.run_ms(3000)
    assert c.model.erases > erases and len(j.spares) > RESERVE


@pytest.mark.parametrize("chip", CHIPS)
def test_a_tap_during_an_emergency_erase_of_a_running_game_is_never_lost(chip):
    """A game that outgrew its erased chunks (or started before they were ready) erases at
    quiet moments once it is down to the reserve. The RP2040's PIO times a tap inside such
    an erase at its edge; the ESP32's pulse counter counts it, and it is charged when the
    storage step ends (400 ms at worst)."""
    err = press_during_erase(chip, running=True)
    if chip == "rp2040":
        assert err is not None and abs(err) <= 2, err
    else:
        assert err is not None and 0 < err <= 400 + 20, err


def test_esp32_a_press_held_through_an_emergency_erase_is_charged_by_its_end():
    """The bound where the ESP32 still erases while a clock runs: a press held past the erase
    is recorded when the erase ends (the level check after it), so at most one erase late:
    400 ms at worst, 45 ms typical."""
    for erase_max, bound in ((True, 400), (False, 45)):
        err = press_during_erase("esp32", erase_max=erase_max, hold_ms=500, running=True)
        assert err is not None and 0 < err <= bound, (erase_max, err)


@pytest.mark.parametrize("chip", CHIPS)
def test_a_short_tap_on_an_idle_clock_starts_the_game(chip):
    lost = 0
    for k in range(10):
        c = ChipClock(chip, display=False)
        c.configure(BYOYOMI)
        c.run_ms(20000)  # the chunks of the reset are being made meanwhile (ESP32: minutes)
        starter = SIDES[1 - c.session.tc.first]
        c.model.tap(c.model.us + 1000 + k * 10000 + 137, c.button(starter))
        c.run_ms(2000)
        lost += not c.charged
    assert lost == 0, "%d of 10 taps lost" % lost


@pytest.mark.parametrize("chip", CHIPS)
def test_a_press_during_a_display_transfer_is_charged_at_its_edge(chip):
    err = press_during_page(chip)
    assert err is not None and abs(err) <= 2, err


@pytest.mark.parametrize("chip", CHIPS)
def test_a_call_due_while_a_record_is_written_starts_on_time(chip):
    c, late = call_during_record(chip)
    assert len(late) >= 6
    assert max(late) <= 2, late
    assert c.ports.i2s.underruns == 0


def test_rp2040_host_that_stops_reading_loses_events_only():
    c, f = host_stops_reading("rp2040")
    assert f["events_dropped"] > 0  # the status events of a host that does not read
    assert f["press_error_max_ms"] <= 2 and f["presses_lost"] == 0
    assert f["underruns"] == 0
    assert c.session.line.held == []  # no request waits for an answer: only events were lost


def test_rp2040_host_that_stops_reading_never_blocks_the_loop():
    """goclock's Pico image says writable only with room for a 256-byte piece
    (tools/rp2/patches/0002-usb-cdc-pollout-a-whole-packet.patch), and the board writes a
    piece at a time after each POLLOUT: a write never waits for the host (stock
    MicroPython: POLLOUT with a byte of room, then the 500 ms CDC timeout; tests/rp2
    measures both on the emulated Pico)."""
    c, f = host_stops_reading("rp2040")
    assert f["serial_max_block_ms"] <= 5, f
    assert f["call_late_max_ms"] <= 50, f


# The session reads requests while REPLY_ROOM bytes are free, but one read (256 bytes) can
# complete 8 requests whose replies need more: the protocol holds the lines it has no room
# to answer and answers them, in order, as the host reads again.
@pytest.mark.parametrize("chip", CHIPS)
def test_a_host_that_stops_reading_but_asks_gets_every_reply(chip):
    replies, dropped, ids = requests_while_host_stopped(chip)
    assert sorted(replies) == ids, (len(replies), dropped)


def test_esp32_host_that_stops_reading_never_blocks_the_loop():
    # The DevKitC's UART drains at 115200 baud whatever the host does (its USB bridge drops
    # what the host does not take), so the clock sees a reading host.
    c, f = host_stops_reading("esp32")
    assert f["serial_max_block_ms"] <= 5, f
    assert f["call_late_max_ms"] <= 50 and f["underruns"] == 0, f


@pytest.mark.parametrize("chip", CHIPS)
def test_a_bounce_storm_while_calls_play_fills_no_queue(chip):
    c = ChipClock(chip)
    c.configure({"type": "byoyomi", "main": 0, "periods": 5, "period": 60})
    c.play([(2000, "black")])  # white's minute runs: calls from 30 s on
    m = c.model
    m.reset_figures()
    due = c.us_of(c.session.clock.next_deadline())  # 30 s: a clip plays through the storm
    storm(c, due - 200000, "black")
    c.run_to_us(due + 30000000)
    assert m.sched_max < 8 and m.sched_dropped == 0, (m.sched_max, m.sched_dropped)
    assert c.ports.i2s.underruns == 0 and c.ports.player.stuck == 0
    assert max(c.late) <= 20, c.late
    assert c.session.clock.state == "running" and c.session.clock.turn == 1  # no press came of it


def test_rp2040_a_bounce_storm_during_an_erase_is_held_by_the_pio_fifo():
    m = storm_during_erase("rp2040")
    assert m.sched_dropped == 0
    assert m.pio_lost > 0  # 8 words a FIFO: the rest is lost, the level check catches up


def test_esp32_a_bounce_storm_during_an_erase_fills_no_queue():
    # The button interrupts are off while the flash may erase (Esp32Board.erasing).
    m = storm_during_erase("esp32")
    assert m.erases > 0
    assert m.sched_max < 8 and m.sched_dropped == 0, (m.sched_max, m.sched_dropped)


@pytest.mark.parametrize("chip", CHIPS)
def test_a_lost_audio_callback_is_detected_and_playback_goes_on(chip):
    c = ChipClock(chip, display=False)
    c.configure({"type": "byoyomi", "main": 0, "periods": 5, "period": 60})
    c.play([(2000, "black")])
    due = c.us_of(c.session.clock.next_deadline())
    c.run_to_us(due + 50000)  # "30秒" plays
    i2s, player = c.ports.i2s, c.ports.player
    assert player.busy()
    written = i2s.buffers
    c.model.drop_audio = 1
    c.run_ms(1000)
    assert i2s.dropped == 1 and player.stuck == 1  # the watchdog saw it ...
    assert i2s.buffers > written + 1  # ... and the clip went on


# ----- the model itself ---------------------------------------------------------------------


@pytest.mark.parametrize("board", ["pico", "pico-w", "esp32-devkitc"])
def test_each_board_s_flash_geometry_gives_littlefs_its_inline_limit(board):
    """The board file's flash: littlefs with MicroPython's settings on that geometry keeps a
    file of `inline_max` bytes in its directory, one byte more takes a block of its own."""
    with open(os.path.join(REPO, "boards", board + ".json")) as f:
        g = json.load(f)["flash"]
    flash = NorFlash(g["block_size"], 16)
    fs = lfs_fs(flash, g["progsize"], g["readsize"], cache=g.get("cache"))
    for size, blocks in ((g["inline_max"], 0), (g["inline_max"] + 1, 1)):
        free = fs.free()
        with fs.open("f%d" % size, "wb") as f:
            f.write(b"x" * size)
        assert (free - fs.free()) // g["block_size"] == blocks, size


def _board_consts(name):
    with open(os.path.join(REPO, "firmware", "goclockfw", "board", name)) as f:
        tree = ast.parse(f.read())
    return {
        n.targets[0].id: n.value.value
        for n in tree.body
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
    }


def test_the_model_board_writes_serial_as_the_mcu_board_does():
    assert _board_consts("mcu.py")["SEND_PIECE"] == chipboard.SEND_PIECE
    assert _board_consts("rp2board.py")["SEND_PIECES_USB"] == chipboard.SEND_PIECES_USB
    assert _board_consts("rp2board.py")["SEND_PIECE_USB"] == chipboard.SEND_PIECE_USB
    assert _board_consts("rp2board.py")["USB_SERIAL_RING"] == chipboard.USB_SERIAL_RING


def test_the_model_board_sleeps_as_the_esp32_board_does():
    assert _board_consts("esp32board.py")["WAKE_SLICE_MS"] == chipboard.WAKE_SLICE_MS


@pytest.mark.parametrize("chip", CHIPS)
def test_a_game_across_the_tick_wrap(chip):
    c = ChipClock(chip, t0_ms=TICKS_MAX - 60000)  # the ms counter wraps 1 min in
    c.configure(BYOYOMI)
    c.play(game_presses(20, seed=3))
    f = c.figures(20)
    assert_presses_charged_at_their_edges(c, f)
    assert f["call_late_max_ms"] <= 50 and f["calls"] > 0, f


def test_edges_are_stamped_as_each_chip_stamps_them():
    for chip, stamp in (("rp2040", 10), ("esp32", 55)):
        ring = EdgeRing()
        m = ChipModel(chip, ring)
        m.sleep(10)
        m.edge(10500, 0, 1)  # inside a 45 ms erase from 10 ms
        m.flash_op("erase", 3, 4096)
        m.poll_inputs()
        assert (ring.head, ring.ticks[0], ring.levels[0]) == (1, stamp, 1), chip
        assert m.longest_flash_us == 45000 and m.tick() == 55


def test_a_full_page_program_costs_the_datasheet_page_time():
    m = ChipModel("rp2040", EdgeRing())
    m.flash_op("program", 0, 256)
    assert m.us == 30 + 255 * 2500 // 1000 and m.programs == 1
    m.busy(1000, IRQ_OFF)
    assert m.longest_stall_us == 1000
    m._advance(m.us + 5, IDLE)


# ----- the desktop board under the MicroPython unix port ---------------------------------


@pytest.mark.parametrize("chip,board", [("rp2040", "pico"), ("esp32", "esp32-devkitc")])
def test_the_desktop_board_charges_a_chip_s_costs_on_the_unix_port(tmp_path, chip, board):
    """GOCLOCK_CHIP on the desktop board (MicroPython unix port, its own littlefs): the flash
    operations are counted and their time moves the virtual clock."""
    from support.firmware import boot, set_tc, status

    fw = boot(tmp_path, env={"GOCLOCK_CHIP": chip}, board=board)
    try:
        set_tc(fw, {"type": "sudden_death", "main": 600})  # a reset: chunks made, erased
        fw.keys("l")  # White's button starts Black's clock
        before = fw.wait(0)[-1]["waited"]
        fw.wait(5000)
        fw.keys("!chip\n")
        got = fw.until(lambda x: "chip" in x)[-1]
        assert got["chip"] == chip and got["programs"] > 0
        assert got["flash_ms"] > 0 and got["longest_stall_us"] > 0
        after = fw.wait(0)[-1]["waited"]
        assert after - before >= 5000  # flash time comes on top of the 5 s waited
        assert status(fw)["state"] == "running"
    finally:
        fw.stop()


def test_a_step_that_makes_a_chunk_waits_for_three_erases_of_quiet():
    """Making a chunk can erase 3 blocks (littlefs compacts the logs directory): at 400 ms
    an erase that is 1.2 s of a stopped chip, so it waits for 1.4 s of quiet, where
    recycling a used chunk (one erase) needs 0.6 s."""
    s = make_session(blocks=352)  # the Pico's flash
    s.commands.set_config(
        dict(
            s.store.config, time_control={"type": "byoyomi", "main": 60, "periods": 5, "period": 60}
        )
    )
    s.commands.reset(None)
    assert s.commands.press(1, 0), s.commands.reason
    j = s.journal
    del j.spares[1:]  # the game has used its spares: the next step would make a chunk
    assert j.step_erases() == 3
    calls = []
    work = j.work
    j.work = lambda *a: calls.append(a) or work(*a)
    s.step(500)  # the next progress mark is 1 s away, the flag far off
    assert s.records.mark_due_ms(s.clock, 500) == 1000
    assert s.upkeep.quiet(500, 1) and not s.upkeep.quiet(500, 3)
    assert calls == []  # 1 s: enough for one erase, not for three
    s.step(1500)  # the mark is written at 1.5 s; the next is 1.5 s away
    assert len(calls) == 1
