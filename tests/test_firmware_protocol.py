"""Every protocol command, then a few hundred malformed lines, over a real pty to the firmware.

The firmware runs under the MicroPython unix port on the desktop board in
virtual time, so the clock stands still while requests are answered: a
refused request must leave the status exactly as it was, and the clock must
run on exactly afterwards.
"""

import base64
import json
import random

from goclockfw.protocol.commands import PROTOCOL_VERSION
from goclockfw.storage.logline import verify_bytes
from support.firmware import boot, set_tc, status

TC = {"type": "byoyomi", "main": 60, "periods": 3, "period": 30}


def test_every_command_over_the_pty(tmp_path):
    fw = boot(tmp_path)
    try:
        info = fw.request({"cmd": "info"})
        assert info["ok"] and info["protocol"] == PROTOCOL_VERSION and info["board"] == "desktop"
        assert info["flash_free"] > 0 and info["ram_free"] > 0 and info["battery_mv"] is None
        set_tc(fw, TC)
        assert fw.request({"cmd": "config.get"})["config"]["time_control"]["main"] == 60
        assert fw.request({"cmd": "watch", "on": True})["on"] is True
        r = fw.request({"cmd": "press", "side": "black"})
        assert r == {"id": r["id"], "ok": True, "accepted": False, "reason": r["reason"]}
        assert fw.request({"cmd": "press", "side": "white"})["accepted"] is True  # starts Black
        fw.wait(3000)
        assert fw.request({"cmd": "press", "side": "black"})["accepted"] is True
        st = status(fw)
        assert st["state"] == "running" and st["turn"] == "white" and st["moves"] == 1
        assert st["black"]["main_ms"] == 57000
        # Refused while a clock runs; the config stays.
        r = fw.request({"cmd": "config.set", "config": {"volume": 2}})
        assert not r["ok"] and "pause" in r["error"]
        assert fw.request({"cmd": "time.set", "side": "black", "main": 100})["ok"] is False
        assert fw.request({"cmd": "pause"})["state"] == "paused"
        assert fw.request({"cmd": "pause"})["ok"] is False
        r = fw.request({"cmd": "time.set", "side": "black", "main": 100, "periods": 2})
        assert r["ok"] and r["main_ms"] == 100000 and r["periods"] == 2
        assert fw.request({"cmd": "config.set", "config": {"volume": 2}})["config"]["volume"] == 2
        presets = fw.request({"cmd": "presets.get"})["presets"]
        mine = presets[:2] + [
            {"name": "blitz", "time_control": {"type": "fischer", "main": 180, "increment": 2}}
        ]
        assert fw.request({"cmd": "presets.set", "presets": mine})["presets"][2]["name"] == "blitz"
        assert fw.request({"cmd": "resume"})["state"] == "running"
        fw.wait(500)
        events = [e for e in fw.serial_lines(0.3) + fw.events if "event" in e]
        kinds = {e["event"] for e in events}
        assert {"pause", "resume", "adjust", "status"} <= kinds
        game = status(fw)["game"]
        r = fw.request({"cmd": "reset", "preset": 3})  # numbered from 1: the third
        assert not r["ok"] and "pause" in r["error"]  # never while a clock runs
        assert fw.request({"cmd": "pause"})["state"] == "paused"
        r = fw.request({"cmd": "reset", "preset": 3})
        assert r["state"] == "idle" and r["time_control"]["type"] == "fischer"
        logs = fw.request({"cmd": "logs.list"})["logs"]
        assert [g["game"] for g in logs] == [game]
        data = b""
        while True:  # chunked and resumable
            r = fw.request({"cmd": "logs.get", "game": game, "offset": len(data), "length": 100})
            data += base64.b64decode(r["data"])
            if r["eof"]:
                break
        assert len(data) == logs[0]["size"]
        check = verify_bytes(data)
        assert check["ok"] and check["records"][-1]["event"] == "end"
        kinds = [rec["event"] for rec in check["records"]]
        assert kinds.count("press") == 1 and "config" in kinds and "adjust" in kinds
        assert fw.request({"cmd": "logs.clear"})["removed"] == 1
        assert fw.request({"cmd": "watch", "on": False})["on"] is False
    finally:
        fw.stop()


def malformed_lines(rng, n):
    """Lines that are each certainly refused."""
    cmds = (
        "info status config.get config.set presets.get presets.set logs.list logs.get "
        "logs.clear watch time.set pause resume reset press"
    ).split()
    bad_args = {
        "config.set": [{"config": 5}, {"config": {"volume": "loud"}}, {"config": {"nope": 1}}],
        "presets.set": [{"presets": {}}, {"presets": [1, 2]}, {"presets": [{"name": ""}]}],
        "logs.get": [{}, {"game": "1"}, {"game": 99999}, {"game": 1, "length": 0}],
        "logs.clear": [{"game": -1}, {"game": 4242}],
        "watch": [{"on": "yes"}, {}],
        "time.set": [{"side": "red", "main": 5}, {"side": "black"}, {"side": "black", "main": -1}],
        "reset": [{"preset": 99}, {"preset": "x"}, {"preset": True}],
        "press": [{"side": 0}, {}, {"side": "BLACK"}],
        "resume": [{}],  # the clock runs: nothing to resume
    }
    out = []
    while len(out) < n:
        kind = rng.randrange(9)
        if kind == 0:  # random bytes, line ends excluded, some not UTF-8
            b = bytes(
                rng.choice([x for x in range(256) if x not in (10, 13)])
                for _ in range(rng.randrange(1, 80))
            )
            if b.strip(b" \t") and not b.lstrip().startswith((b"{", b"[")):
                out.append(b)
        elif kind == 1:  # truncated JSON
            full = json.dumps({"id": 1, "cmd": rng.choice(cmds), "side": "black"})
            out.append(full[: rng.randrange(1, len(full) - 1)].encode())
        elif kind == 2:  # JSON but not an object
            out.append(json.dumps(rng.choice([1, "status", [1, 2], None, True, 2.5])).encode())
        elif kind == 3:  # no cmd, or a cmd of the wrong type
            out.append(
                json.dumps({"id": rng.randrange(99), "cmd": rng.choice([None, 5, [], {}])}).encode()
            )
        elif kind == 4:  # unknown command
            out.append(json.dumps({"id": "x", "cmd": "reboot" + str(rng.randrange(99))}).encode())
        elif kind == 5:  # a real command with wrong arguments
            cmd = rng.choice(sorted(bad_args))
            req = {"id": rng.randrange(1000), "cmd": cmd}
            req.update(rng.choice(bad_args[cmd]))
            out.append(json.dumps(req).encode())
        elif kind == 6:  # over 1 KiB
            out.append(
                json.dumps({"cmd": "status", "pad": "x" * rng.randrange(1030, 3000)}).encode()
            )
        elif kind == 7:  # bad id types
            out.append(
                json.dumps({"id": rng.choice([True, 1.5, [1], {"a": 1}]), "cmd": "status"}).encode()
            )
        else:  # Ctrl-C, Ctrl-D and friends in the middle of text
            out.append(b'\x03\x04{\x03"cmd": "status"\x03')
    return out


def test_hundreds_of_malformed_lines_change_nothing_and_the_clock_runs_on(tmp_path):
    fw = boot(tmp_path)
    try:
        set_tc(fw, TC)
        fw.keys("l")
        fw.wait(1000)
        before = status(fw)
        config = fw.request({"cmd": "config.get"})["config"]
        presets = fw.request({"cmd": "presets.get"})["presets"]
        lines = malformed_lines(random.Random(3), 400)
        replies = []
        for i in range(0, len(lines), 25):  # batches: the line's buffers are finite
            batch = lines[i : i + 25]
            fw.send(b"\n".join(batch) + b"\n")
            got = []
            while len(got) < len(batch):
                more = fw.serial_lines(5.0)
                assert more, "no reply to %r" % batch[len(got)]
                got += more
            replies += got
        assert len(replies) == len(lines)
        for line, reply in zip(lines, replies):
            assert reply.get("ok") is False and reply.get("error"), (line, reply)
        after = status(fw)
        before.pop("id")
        after.pop("id")
        assert after == before
        assert fw.request({"cmd": "config.get"})["config"] == config
        assert fw.request({"cmd": "presets.get"})["presets"] == presets
        fw.wait(2500)
        st = status(fw)
        assert (
            st["state"] == "running" and st["black"]["main_ms"] == before["black"]["main_ms"] - 2500
        )
    finally:
        fw.stop()
