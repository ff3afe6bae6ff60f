"""A networked clock on a chip model (tests/support/chipclock.py), its link modelled by
desktop/chiplink.py: a game played while the link stalls, drops for 30 s and comes back.
tests/test_chip_network.py asserts the figures, tools/bench/chips.py prints them."""

from goclockfw.desktop.chiplink import ModelLink

from .chipclock import BYOYOMI, SIDES, ChipClock, game_presses

NET = {"mqtt": {"host": "127.0.0.1", "port": 1883}, "hall": "h", "clock": "c1"}
START_GAP_MS = 1000


class FaultyLink(ModelLink):
    """A ModelLink whose faults come from a script of (start µs, end µs, kind) windows,
    kind "stall" or "drop", looked at on every call."""

    def __init__(self, model, windows):
        ModelLink.__init__(self, model)
        self.windows = windows
        self._done = set()

    def _charge(self, nbytes=0):
        us = self.m.us
        for i, (start, end, kind) in enumerate(self.windows):
            if start <= us < end:
                if kind == "stall":
                    self._stall_until = end
                elif i not in self._done:
                    self._done.add(i)
                    self.drop(end)
        ModelLink._charge(self, nbytes)


def networked_game(chip, moves, faults=True, network=True, seed=5):
    """A byo-yomi game of `moves` moves with the display on, the clock in a hall whose
    link (when `faults`) stalls 10 s from 5 s into the game and drops for 30 s from 40 s:
    (clock, link or None, figures). The figures are ChipClock's plus the longest hall step
    (µs of the model's timeline a Hall.step took, its flash work apart: the cursor's
    write at a quiet moment, `hall_cursor_flash_max_us`) and the link's counts."""
    c = ChipClock(chip)
    c.configure(BYOYOMI)
    m = c.model
    t0 = m.us + START_GAP_MS * 1000
    link = None
    steps = [0, 0]
    if network:
        windows = []
        if faults:
            windows = [
                (t0 + 5000000, t0 + 15000000, "stall"),
                (t0 + 40000000, t0 + 70000000, "drop"),
            ]
        link = FaultyLink(m, windows)
        c.ports.network = lambda wifi=None: link
        c.ask("config.set", config={"network": NET})
        hall = c.session.hall
        step = hall.step

        def timed(now):
            t = m.us
            f = m.flash_us
            step(now)
            flash = m.flash_us - f  # the cursor's write, at a quiet moment (upkeep's rule)
            d = m.us - t - flash
            if d > steps[0]:
                steps[0] = d
            if flash > steps[1]:
                steps[1] = flash

        hall.step = timed
    presses = game_presses(moves, seed)
    c.play(presses)
    c.run_ms(40000)  # after the game: the link is back, the log catches up
    fig = c.figures(moves)
    fig["hall_step_max_us"] = steps[0]
    fig["hall_cursor_flash_max_us"] = steps[1]
    if link is not None:
        h = c.session.hall
        fig.update(
            link_calls=link.calls,
            link_refused_sends=link.refused_sends,
            link_longest_call_us=link.longest_call_us,
            connects=h.c.connects,
            drops=h.c.drops,
            events_dropped_offline=h.events_dropped,
            broker_messages=len(link.broker.published),
        )
    return c, link, fig


def hall_log(link, game):
    """The game's log as a hall collects the broker's slices (dedup by rec)."""
    data = b""
    rec = 0
    dup = 0
    for topic, payload, _ in link.broker.published:
        if topic != "goclock/v1/h/c1/log/%d" % game:
            continue
        head, _, body = payload.partition(b"\n")
        r, off = (int(x) for x in head.split())
        if r <= rec:
            dup += 1
            continue
        assert off == len(data) and r == rec + 1, (r, off, rec, len(data))
        data += body
        rec = r
    return data, dup


__all__ = ["SIDES", "networked_game", "hall_log"]
