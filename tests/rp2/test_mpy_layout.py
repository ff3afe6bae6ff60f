"""The firmware as `goclock deploy` lays it out (.mpy files in /lib) on the emulated Pico,
which moves the package into its ROMFS partition at the first boot (goclockfw/inplace.py).

One Pico boots for the whole module and the tests follow one game in order, as a host
would: info, status, config.set, a game of virtual presses with byo-yomi calls, pause and
resume, the game log, then a reboot from the same flash that brings the game back. (A
test that fails leaves the ones after it to fail with it.) Time control: main 5 s, then 3
periods of 10 s, "cn" calls: in a 10 s period "5秒" at 5 s, "8秒" at 8 s, "还剩2次" at 10 s.
"""

import base64

import pytest
from rp2_helpers import MOVED, boot, emu, figure, layout

from goclockfw.protocol.commands import PROTOCOL_VERSION
from goclockfw.storage import logline

TC = {"type": "byoyomi", "main": 5, "periods": 3, "period": 10}

pytestmark = pytest.mark.timeout(1500)


@pytest.fixture(scope="module")
def clock(plain_image, tmp_path_factory):
    pico, s = boot(plain_image, layout.firmware_files(), tmp_path_factory.mktemp("mpy"))
    return {"pico": pico, "s": s, "image": plain_image}


def heap(s, label):
    p = s.request("probe")
    figure(
        "heap free, .mpy layout, %s (gc.mem_free)" % label,
        "%d bytes (%d without the probe)" % (p["mem_free"], p["mem_free"] + p["probe_bytes"]),
    )
    return p


def test_boot_answers_info(clock):
    pico, s = clock["pico"], clock["s"]
    info = s.wait_ready(timeout=30)
    assert info["board"] == "pico"
    assert info["protocol"] == PROTOCOL_VERSION
    assert isinstance(info["version"], str) and info["version"]
    assert info["flash_free"] > 0
    figure("boot to first reply, .mpy layout", "%.3f emulated s" % pico.now_s)
    p = heap(s, "after boot")
    # the compiled layout is what runs, moved by the Pico from /lib into its ROMFS partition
    assert p["app_file"] == "/rom/lib/goclockfw/app/session.mpy"
    assert 0 < p["mem_free"] < 264 * 1024
    figure("the probe's own heap (not in the firmware)", "%d bytes" % p["probe_bytes"])
    assert s.noise == MOVED, s.noise  # the move's soft reset; no traceback, no REPL


def test_status_idle_with_default_time_control(clock):
    st = clock["s"].request("status")
    assert st["state"] == "idle"
    assert st["turn"] is None
    assert st["time_control"]["type"] == "byoyomi"
    assert st["black"]["main_ms"] == st["time_control"]["main"] * 1000


def test_config_set_stores_the_time_control(clock):
    s = clock["s"]
    bad = s.request("config.set", ok=False, config={"time_control": dict(TC, period=0)})
    assert not bad["ok"] and "time_control.period" in bad["error"]
    r = s.request("config.set", config={"time_control": TC})
    assert {k: r["config"]["time_control"][k] for k in TC} == TC
    assert s.request("config.get")["config"]["time_control"] == r["config"]["time_control"]
    r = s.request("reset")
    assert r["state"] == "idle"
    st = s.request("status")
    assert st["black"] == {"main_ms": 5000, "periods": 3, "period_ms": 10000, "flagged": False}


def test_a_game_of_presses_with_calls(clock):
    pico, s = clock["pico"], clock["s"]
    assert s.request("watch", on=True)["on"] is True
    assert s.request("press", side="white")["accepted"] is True  # Black's clock starts
    refused = s.request("press", side="white")
    assert refused["accepted"] is False and refused["reason"]
    heap(s, "during a game")
    # Black thinks through main time and one whole period: the rules' calls, at their
    # game times, then the period used up.
    ev = s.wait_event(lambda e: e.get("event") == "period", timeout=20)
    assert ev == {"event": "period", "t": 15000, "side": "black", "left": 2}
    calls = [(e["t"], e["side"], e["phrase"]) for _t, e in s.events if e.get("event") == "call"]
    assert calls == [
        (5000, "black", "开始读秒"),
        (10000, "black", "5秒"),
        (13000, "black", "8秒"),
        (15000, "black", "还剩2次"),
    ]
    assert any(e.get("event") == "byoyomi" and e["t"] == 5000 for _t, e in s.events)
    t_press = pico.now_s
    assert s.request("press", side="black")["accepted"] is True
    press = [e for _t, e in s.events if e.get("event") == "press"][-1]
    assert press["side"] == "black"
    assert 15000 <= press["used_ms"] <= 15000 + 1000 * (pico.now_s - t_press) + 50
    st = s.request("status")
    assert st["state"] == "running" and st["turn"] == "white" and st["moves"] == 1
    assert st["black"]["periods"] == 2 and st["black"]["main_ms"] == 0
    s.run_for(1.0)
    assert s.request("press", side="white")["accepted"] is True
    heap(s, "during a game, 2 moves")
    clock["game"] = st["game"]


def test_pause_freezes_both_clocks_and_resume_restarts(clock):
    s = clock["s"]
    assert s.request("pause")["state"] == "paused"
    before = s.request("status")
    s.run_for(1.0)
    after = s.request("status")
    assert after["state"] == "paused"
    assert after["black"] == before["black"] and after["white"] == before["white"]
    assert s.request("resume")["state"] == "running"
    assert s.request("resume", ok=False)["error"] == "the clocks are not paused"
    s.run_for(0.5)
    running = s.request("status")
    assert running["state"] == "running" and running["turn"] == "black"
    assert running["black"]["period_ms"] < before["black"]["period_ms"]


def test_logs_list_and_get(clock):
    s = clock["s"]
    logs = s.request("logs.list")["logs"]
    game = [g for g in logs if g["game"] == clock["game"]]
    assert game and game[0]["records"] > 0
    data = b""
    while True:
        r = s.request("logs.get", game=clock["game"], offset=len(data), length=512)
        assert r["size"] == game[0]["size"] or r["size"] >= len(data)
        data += base64.b64decode(r["data"])
        if r["eof"]:
            break
    check = logline.verify_bytes(data)
    assert check["ok"], check["errors"][:3]
    kinds = [r["event"] for r in check["records"]]  # (lines of dots are progress marks)
    assert "start" in kinds and kinds.count("press") == 2
    assert "pause" in kinds and "resume" in kinds
    # The heap as the commands of every game leave it (what a boot defers is in it now).
    heap(s, "in a game: presses, pause/resume, status, logs.list and get")


def test_reboot_from_the_same_flash_resumes_the_game(clock, tmp_path):
    pico, s = clock["pico"], clock["s"]
    moves = s.request("status")["moves"]
    fs = pico.fs_image()  # the power goes: what the flash holds is all that is left
    assert any(p.startswith("/sounds/zh/") for p in emu.read_fs(fs))
    pico2, s2 = boot(clock["image"], None, tmp_path, fs=fs, romfs=pico.romfs_image())
    s2.wait_ready(timeout=30)
    st = s2.request("status")
    assert st["state"] == "paused"  # a game cut off by a power loss comes back paused
    assert st["game"] == clock["game"] and st["moves"] == moves
    assert st["black"]["periods"] == 2
    assert s2.request("resume")["state"] == "running"
    s2.run_for(0.5)
    assert s2.request("press", side="black")["accepted"] is True
    assert s2.request("status")["moves"] == moves + 1
    assert not s2.noise, s2.noise  # the package is not moved again
