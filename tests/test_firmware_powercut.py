"""The whole firmware killed (SIGKILL) at random moments while it plays, then booted again.

The real firmware (goclockfw/boot.py under the MicroPython unix port, its flash an image
file) gets a stream of presses, pauses, resumes and config writes over its serial line;
a timer kills the process a random few ms later. A reply read before the kill is an
acknowledgement. After every boot, over the serial line again:

- the config is intact: the last volume acknowledged, or the one being written;
- every acknowledged press is in its game's log, moves numbered without gaps or repeats;
- every log verifies; a game that was on comes back paused and says so.

The kill moments are random (seeded: the same moments are aimed at, though the process
is never at the same instruction twice); the checks are not. The in-process power-cut
tests (test_powercut.py) cut at every kind of flash operation; this one proves the
firmware as it runs, serial line and all.
"""

import random
import threading

from goclockfw.storage.logline import verify_bytes
from support.firmware import boot, notices, pull_log, set_tc, status

ROUNDS = 12
TC = {"type": "byoyomi", "main": 30, "periods": 3, "period": 10}


def check_boot(fw, acked, volumes):
    problems = []
    cfg = fw.request({"cmd": "config.get"})["config"]
    if cfg["volume"] not in volumes[-2:]:
        problems.append("volume %r after %r" % (cfg["volume"], volumes))
    games = [g["game"] for g in fw.request({"cmd": "logs.list"})["logs"]]
    for game in games:
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
    return problems


def test_the_firmware_killed_at_random_moments(tmp_path):
    rng = random.Random(11)
    flash = tmp_path / "flash"
    volumes = [7]
    acked = []
    fw = boot(flash)
    set_tc(fw, TC)
    fw.kill()
    resumed = 0
    for _ in range(ROUNDS):
        fw = boot(flash)
        try:
            assert "config_damaged" not in notices(fw.boot)
            assert check_boot(fw, acked, volumes) == []
            st = status(fw)
            if st["state"] == "paused":
                resumed += "power_resume" in notices(fw.boot)
                assert fw.request({"cmd": "resume"})["ok"]
            elif st["state"] != "running":
                if st["state"] == "ended":
                    assert fw.request({"cmd": "reset"})["ok"]
                assert fw.request({"cmd": "press", "side": "white"})["accepted"]
            # Play on: presses with the clock moving, a config write while paused.
            vol = rng.randrange(0, 11)
            timer = threading.Timer(rng.uniform(0.02, 0.4), fw.proc.kill)
            timer.start()
            try:
                fw.request({"cmd": "pause"}, timeout=2)
                volumes.append(vol)  # being written: the last or this one may stand
                r = fw.request({"id": "v", "cmd": "config.set", "config": {"volume": vol}}, 2)
                if not r["ok"]:
                    volumes.pop()
                fw.request({"cmd": "resume"}, timeout=2)
                for _ in range(200):
                    fw.wait(rng.randrange(100, 3000), timeout=2)
                    turn = status(fw)["turn"]
                    r = fw.request({"cmd": "press", "side": turn}, timeout=2)
                    if r.get("accepted"):
                        acked.append((status(fw)["game"], status(fw)["moves"], turn))
            except (TimeoutError, OSError):
                pass  # killed mid-request: what was answered before is what counts
            timer.cancel()
        finally:
            fw.kill()
    fw = boot(flash)
    try:
        assert check_boot(fw, acked, volumes) == []
        assert resumed > 0 and len(acked) > 20
    finally:
        fw.stop()
