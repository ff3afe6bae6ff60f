"""Power cuts: the firmware is killed (SIGKILL) at random moments while it writes, then booted again.

Each round boots the firmware on the same flash directory, checks what a
power cut may not break, and plays on: presses (log records and
checkpoints), pauses and config changes (atomic config writes) are streamed
in while a timer kills the process a random few ms later. After every boot:

- the config is intact: one of the values written, never a damaged file;
- a game that had a checkpoint comes back paused, with exactly the times of
  its last checkpoint (read from the flash before the boot), and says so;
- every game log verifies (a torn last record is repaired at boot);
- the log holds at least every press of the checkpointed game.

The kill moments are random (seeded: the same moments are aimed at, though
the process is never at the same instruction twice); the checks are not.
"""

import json
import os
import random
import threading

from firmware_helpers import boot, notices, set_tc, status
from goclockfw.storage.checkpoint import decode
from goclockfw.storage.gamelog import verify_bytes

ROUNDS = 14
TC = {"type": "byoyomi", "main": 30, "periods": 3, "period": 10}


def checkpoint_on_flash(flash):
    for name in ("checkpoint.json", "checkpoint.json.new"):
        path = os.path.join(flash, name)
        if os.path.exists(path):
            try:
                with open(path, "rb") as f:
                    return decode(f.read())["data"]
            except ValueError:
                continue  # the main copy torn: the firmware falls back to ".new" too
    return None


def all_logs(flash):
    d = os.path.join(flash, "logs")
    out = {}
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else ():
        if name.endswith(".log"):
            with open(os.path.join(d, name), "rb") as f:
                out[int(name[:5])] = f.read()
    return out


def script(rng):
    """Keys for a stretch of play: moves, the arbiter's pauses, waits in virtual time."""
    keys = []
    for _ in range(rng.randrange(20, 60)):
        r = rng.random()
        if r < 0.1:
            keys.append(" !wait 300\n ")  # pause, then resume (on the release)
        keys.append(rng.choice("al"))
        keys.append("!wait %d\n" % rng.randrange(100, 4000))
    return "".join(keys)


def test_random_power_cuts_keep_config_game_and_log(tmp_path):
    rng = random.Random(11)
    flash = str(tmp_path)
    volumes = {7}
    fw = boot(flash)
    set_tc(fw, TC)
    fw.keys("l")
    fw.wait(100)
    fw.kill()
    for _ in range(ROUNDS):
        expected = checkpoint_on_flash(flash)
        fw = boot(flash)
        try:
            # Config: intact, and one of the values ever written.
            assert "config_damaged" not in notices(fw.boot)
            cfg = fw.request({"cmd": "config.get"})["config"]
            assert cfg["volume"] in volumes and cfg["time_control"]["main"] == 30
            st = status(fw)
            # The game: as of its last checkpoint, paused.
            if expected is not None and expected["clock"]["state"] in ("paused", "running"):
                assert "power_resume" in notices(fw.boot)
                assert st["state"] == "paused" and st["game"] == expected["game"]
                assert st["moves"] == expected["clock"]["moves_made"]
                for i, side in enumerate(("black", "white")):
                    assert st[side]["main_ms"] == expected["clock"]["sides"][i]["main"]
                    assert st[side]["periods"] == expected["clock"]["sides"][i]["periods"]
            # Every log verifies, and keeps every press of the game.
            for gid, data in all_logs(flash).items():
                check = verify_bytes(data)
                assert check["ok"], (gid, check["errors"])
                if gid == st["game"]:
                    presses = [r for r in check["records"] if r["event"] == "press"]
                    assert len(presses) >= st["moves"]
            # Play on; a new game now and then, and config writes while paused.
            if st["state"] == "paused":
                fw.keys(" !wait 200\n ")
            elif st["state"] != "running":
                fw.request({"cmd": "reset"})
                fw.keys("l")
            fw.wait(50)
            vol = rng.randrange(0, 11)
            volumes.add(vol)
            fw.request({"cmd": "pause"})
            fw.send({"id": "v", "cmd": "config.set", "config": {"volume": vol}})
            fw.send({"cmd": "resume"})
            fw.keys(script(rng))
            timer = threading.Timer(rng.uniform(0.005, 0.25), fw.proc.kill)
            timer.start()
            fw.proc.wait(20)
            timer.cancel()
        finally:
            fw.kill()
    # A last clean boot: the game is all there.
    fw = boot(flash)
    try:
        st = status(fw)
        assert st["state"] in ("paused", "ended", "idle", "running")
        for data in all_logs(flash).values():
            assert verify_bytes(data)["ok"]
        assert json.loads(open(os.path.join(flash, "config.json"), "rb").read())["config"]
    finally:
        fw.stop()
