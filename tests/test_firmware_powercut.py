"""The whole firmware killed (SIGKILL) at random moments while it plays, then booted again.

The real firmware (goclockfw/boot.py under the MicroPython unix port, its flash an image
file) gets a stream of presses, pauses, resumes and config writes over its serial line;
the process is killed right after a request it has not answered. A reply read before
the kill is an acknowledgement. After every boot, over the serial line again:

- the config is intact: the last volume acknowledged, or the one being written;
- every acknowledged press is in its game's log, moves numbered without gaps or repeats,
  unless the game's log was cleared; a game cleared (acknowledged) never comes back, one
  whose clear the kill cut comes back whole or not at all;
- every log verifies; a game that was on comes back paused and says so.

Between the presses the arbiter now and then resets the game to start another, and clears
the finished games' logs (killed in the clear half the time), as the run that found a
log broken at its first line after a cut did (issue 17, item 11; the window itself is
cut exactly in tests/test_storage_cut_windows.py: a kill rarely lands in it).

The kill comes right after a request whose reply is never read (a press, or a config
write), after a seeded random number of acknowledged presses: so the run is the same on
a fast machine and on a loaded one, only slower; where in that request the process dies
is chance, the checks are not. The in-process power-cut
tests (test_powercut.py) cut at every kind of flash operation; this one proves the
firmware as it runs, serial line and all.
"""

import random

from goclockfw.storage.logline import verify_bytes
from support.firmware import boot, notices, pull_log, set_tc, status

ROUNDS = 30
TC = {"type": "byoyomi", "main": 30, "periods": 3, "period": 10}


def check_boot(fw, acked, volumes, cleared, clearing):
    """The problems a boot shows; `cleared`: games whose clear was acknowledged; `clearing`:
    games a clear cut by the kill was removing (whole or gone, either is right)."""
    problems = []
    cfg = fw.request({"cmd": "config.get"})["config"]
    # The last volume acknowledged, or the one whose write the kill cut.
    if cfg["volume"] not in volumes:
        problems.append("volume %r, expected one of %r" % (cfg["volume"], volumes))
    volumes[:] = [cfg["volume"]]  # what the clock holds now is what counts from here
    games = [g["game"] for g in fw.request({"cmd": "logs.list"})["logs"]]
    for game in sorted({g for g, _, _ in acked} - set(games) - cleared - clearing):
        problems.append("game %d is gone" % game)
    for game in games:
        if game in cleared:
            problems.append("game %d was cleared but came back" % game)
        check = verify_bytes(pull_log(fw, game))
        if not check["ok"]:
            problems.append("game %d: %r" % (game, check["errors"][:2]))
        moves = [r["move"] for r in check["records"] if r["event"] == "press"]
        if moves != list(range(1, len(moves) + 1)):
            problems.append("game %d: moves %r" % (game, moves))
        presses = {(r["move"], r["side"]) for r in check["records"] if r["event"] == "press"}
        for g, move, side in acked:
            if g == game and (move, side) not in presses:
                problems.append("acknowledged press lost: game %d move %d" % (game, move))
    clearing.clear()  # what a boot found of them is what counts from here
    cleared.update(g for g, _, _ in acked if g not in games)
    return problems


def finished_games(fw):
    current = status(fw)["game"]
    return {g["game"] for g in fw.request({"cmd": "logs.list"})["logs"]} - {current}


def test_the_firmware_killed_at_random_moments(tmp_path):
    rng = random.Random(11)
    flash = tmp_path / "flash"
    volumes = [7]
    acked = []
    cleared, clearing = set(), set()
    fw = boot(flash)
    set_tc(fw, TC)
    fw.kill()
    resumed = 0
    for _ in range(ROUNDS):
        fw = boot(flash)
        try:
            assert "config_damaged" not in notices(fw.boot)
            assert check_boot(fw, acked, volumes, cleared, clearing) == []
            st = status(fw)
            if st["state"] == "paused":
                resumed += "power_resume" in notices(fw.boot)
                assert fw.request({"cmd": "resume"})["ok"]
            elif st["state"] != "running":
                if st["state"] == "ended":
                    assert fw.request({"cmd": "reset"})["ok"]
                assert fw.request({"cmd": "press", "side": "white"})["accepted"]
            # Play on: a config write while paused, then presses with the clock moving.
            # The kill is placed by acknowledgements, not by a timer: right after a request
            # is sent whose reply is never read (the firmware is somewhere in it, or has not
            # read it yet), so a slow machine changes nothing but the run time.
            vol = rng.randrange(0, 11)
            fw.request({"cmd": "pause"}, timeout=10)
            config = {"id": "v", "cmd": "config.set", "config": {"volume": vol}}
            if rng.random() < 0.25:
                volumes.append(vol)  # being written: the last one or this one may stand
                fw.send(config)
                continue  # killed (finally) with the config write under way
            if fw.request(config, 10)["ok"]:
                volumes[:] = [vol]
            # Now and then the finished games' logs cleared (the kill may come in the
            # clear), or the game reset to start another.
            r = rng.random()
            if r < 0.2 and finished_games(fw):
                games = finished_games(fw)
                if rng.random() < 0.5:
                    clearing.update(games)
                    fw.send({"id": "clear", "cmd": "logs.clear"})
                    continue  # killed (finally) with the clear under way
                assert fw.request({"cmd": "logs.clear"}, timeout=10)["ok"]
                cleared.update(games)
            elif r < 0.4:
                assert fw.request({"cmd": "reset"}, timeout=10)["ok"]
                assert fw.request({"cmd": "press", "side": "white"})["accepted"]
            fw.request({"cmd": "resume"}, timeout=10)
            presses = rng.randrange(1, 12)  # acknowledged presses before the kill
            while True:
                fw.wait(rng.randrange(100, 3000), timeout=10)
                turn = status(fw)["turn"]
                if presses == 0:
                    fw.send({"id": "last", "cmd": "press", "side": turn})
                    break  # killed (finally) while this press is handled
                r = fw.request({"cmd": "press", "side": turn}, timeout=10)
                if r.get("accepted"):
                    st = status(fw)
                    acked.append((st["game"], st["moves"], turn))
                    presses -= 1
        finally:
            fw.kill()
    fw = boot(flash)
    try:
        assert check_boot(fw, acked, volumes, cleared, clearing) == []
        assert resumed > 0 and len(acked) > 20 and cleared
    finally:
        fw.stop()
