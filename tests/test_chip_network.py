"""The network never delays a press, a deadline or a call (docs/hall.md): a game on each
chip model with the clock in a hall whose link stalls for 10 s and drops for 30 s
(desktop/chiplink.py: modelled socket costs, deterministic model time)."""

import pytest

from support.chipnet import hall_log, networked_game

MOVES = 12


@pytest.mark.parametrize("chip", ["rp2040", "esp32"])
def test_a_stalling_dropping_link_delays_nothing(chip):
    c, link, fig = networked_game(chip, MOVES)
    _, _, quiet = networked_game(chip, MOVES, network=False)
    # The network's own step stays far inside the loop's 5 ms bound, stalled or dropped.
    assert fig["hall_step_max_us"] <= 5000, fig
    assert fig["link_refused_sends"] > 0 and fig["drops"] >= 1 and fig["connects"] >= 2, fig
    # Every press charged as near its edge as without a network, every call as on time.
    assert fig["presses_lost"] == 0 and fig["press_error_max_ms"] <= quiet["press_error_max_ms"]
    assert fig["call_late_max_ms"] <= quiet["call_late_max_ms"] + 1, (fig, quiet)
    assert fig["calls"] == quiet["calls"] and fig["underruns"] == 0
    # The hall ends with the whole log, every record once after dedup by rec.
    s = c.session
    game = s.journal.current
    want, _ = s.journal.read(game, 0, 1 << 20)
    got, dup = hall_log(link, game)
    assert got == want
