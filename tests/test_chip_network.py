"""The network never delays a press, a deadline or a call (docs/hall.md): a game on each
chip model with the clock in a hall whose link stalls for 10 s and drops for 30 s
(desktop/chiplink.py: modelled socket costs, deterministic model time)."""

import pytest

from goclockfw.app.upkeep import ERASE_WORST_MS
from support.chipnet import hall_log, networked_game

MOVES = 12


@pytest.mark.parametrize("chip", ["rp2040", "esp32"])
def test_a_stalling_dropping_link_delays_nothing(chip):
    c, link, fig = networked_game(chip, MOVES)
    q, _, quiet = networked_game(chip, MOVES, network=False)
    # The network's own step stays far inside the loop's 5 ms bound, stalled or dropped.
    assert fig["hall_step_max_us"] <= 5000, fig
    assert fig["link_refused_sends"] > 0 and fig["drops"] >= 1 and fig["connects"] >= 2, fig
    # Every move charged as near its edge as without a network, every call as on time. (The
    # press that starts the game comes while the clock still prepares its log's chunks: on
    # the ESP32 one that falls in an erase is charged at the erase's end, by its pulse
    # counter, with or without a network; when the erases fall differs between two runs.)
    assert fig["presses_lost"] == 0
    moves, moves_quiet = c.press_errors()[1:], q.press_errors()[1:]
    assert max(abs(e) for e in moves) <= max(abs(e) for e in moves_quiet), (moves, moves_quiet)
    for errors in (c.press_errors(), q.press_errors()):
        assert abs(errors[0]) <= ERASE_WORST_MS, errors
    assert fig["call_late_max_ms"] <= quiet["call_late_max_ms"] + 1, (fig, quiet)
    assert fig["calls"] == quiet["calls"] and fig["underruns"] == 0
    # The hall ends with the whole log, every record once after dedup by rec.
    s = c.session
    game = s.journal.current
    want, _ = s.journal.read(game, 0, 1 << 20)
    got, dup = hall_log(link, game)
    assert got == want


def test_a_game_reset_while_offline_is_finished_at_the_next_stop():
    """Game 1 half sent, the link down, a reset and game 2 running when it comes back: game
    2 goes out live, game 1's rest (a finished game: its log is read by scanning) waits
    for the next stop; in the end the broker has both whole, every record once."""
    from goclockfw.desktop.chiplink import ModelLink
    from support.chipclock import BYOYOMI, ChipClock
    from support.chipnet import NET

    c = ChipClock("rp2040", display=False)
    c.configure(BYOYOMI)
    link = ModelLink(c.model)
    c.ports.network = lambda wifi=None: link
    c.ask("config.set", config={"network": NET})
    s = c.session
    c.ask("press", side="white")
    for side in ("black", "white", "black"):
        c.run_ms(2000)
        c.ask("press", side=side)
    c.run_ms(1000)
    g1 = s.journal.current
    link.drop(c.model.us + 3600 * 10**6)  # gone for an hour (of model time)
    for side in ("white", "black"):
        c.run_ms(2000)
        c.ask("press", side=side)
    c.ask("pause")
    s.gestures.menu = -1
    c.session.commands.reset()  # as "reset" over serial: game 1 is closed
    g2 = s.journal.current
    c.ask("press", side="white")
    c.run_ms(1000)
    link._down_until = 0  # back
    c.run_ms(35000)  # past the backoff: connected, game 2 live
    c.ask("press", side="black")
    c.run_ms(2000)
    got2, _ = hall_log(link, g2)
    want2, _ = s.journal.read(g2, 0, 1 << 20)
    assert got2 == want2
    got1, _ = hall_log(link, g1)
    want1, _ = s.journal.read(g1, 0, 1 << 20)
    assert len(got1) < len(want1)  # its rest waits: the clock runs
    c.ask("pause")
    c.run_ms(2000)
    got1, _ = hall_log(link, g1)
    assert got1 == want1
    assert g1 not in s.hall.cursor.games  # the broker has it whole: it left the cursor
