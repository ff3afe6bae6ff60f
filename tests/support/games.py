"""Games played on the real firmware for the host's tests: a clock that holds a game's log
is a clock on which that game was played (vclock.py), so the log is the firmware's own,
marks, calls and checksums included.
"""

from support.vclock import VirtualClock


def play_game(clock, time_control, presses, pause=None):
    """Play a game on `clock`; its game id.

    The clock is set to `time_control`; the side that does not move first starts the game
    at the current tick, t = 0 of the game. `presses` is [(t_ms, side)] with side "black" or
    "white" (or 0/1); `pause` an optional (t_pause, t_resume), both before the next press.
    A millisecond after the last press the game is paused (if its clock runs) and reset, so
    its log has its "end" record and the next game is set up (it has no log until it starts).
    """
    clock.configure(time_control)
    t0 = clock.now
    clock.start()
    for t, side in presses:
        if pause and pause[0] <= t:
            clock.run_to(t0 + pause[0])
            clock.ask("pause")
            clock.run_to(t0 + pause[1])
            clock.ask("resume")
            pause = None
        clock.play([(t0 + t, side if isinstance(side, str) else ("black", "white")[side])])
    gid = clock.session.journal.current
    clock.run(1)
    if clock.state() == "running":
        clock.ask("pause")
    clock.ask("reset")
    return gid


def game_log(time_control, presses, pause=None):
    """(game id, the bytes of its log as the clock serves them) of a game played on a clock
    of its own (see play_game)."""
    clock = VirtualClock()
    gid = play_game(clock, time_control, presses, pause)
    return gid, clock.log(gid)
