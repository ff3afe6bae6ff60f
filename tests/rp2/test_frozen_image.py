"""The firmware frozen into the MicroPython image (boards/manifest.py) on the emulated Pico.

The storage holds only main.py, /board.json and the voice pack, as boards/manifest.py says
to copy for a frozen build: the modules must come from the image. A short game shows the
clock works from there, and the heap is measured after boot and during the game.
"""

import pytest
from rp2_helpers import boot, emu, figure, layout

from goclockfw.protocol.commands import PROTOCOL_VERSION

pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def frozen(frozen_image, tmp_path_factory):
    pico, s = boot(frozen_image, layout.frozen_firmware_files(), tmp_path_factory.mktemp("frz"))
    return {"pico": pico, "s": s}


def test_only_main_py_board_json_and_the_voice_on_the_storage(frozen):
    files = emu.read_fs(frozen["pico"].fs_image())
    firmware = sorted(p for p in files if not p.startswith("/sounds/"))
    # boot.py, goclock_probe.mpy and stackpaint.mpy are the test probe, not the firmware.
    assert firmware == [
        "/board.json",
        "/boot.py",
        "/goclock_probe.mpy",
        "/main.py",
        "/stackpaint.mpy",
    ]
    assert "/sounds/zh/clips.bin" in files and "/sounds/zh/manifest.json" in files


def test_boots_from_the_frozen_modules(frozen):
    pico, s = frozen["pico"], frozen["s"]
    info = s.wait_ready(timeout=30)
    assert info["board"] == "pico" and info["protocol"] == PROTOCOL_VERSION
    figure("boot to first reply, frozen image", "%.3f emulated s" % pico.now_s)
    p = s.request("probe")
    assert not p["app_file"].endswith(".mpy")  # app comes from the image
    figure("heap free, frozen image, after boot (gc.mem_free)", _free(p))
    assert not s.noise, s.noise


def test_a_short_game(frozen):
    s = frozen["s"]
    tc = {"type": "byoyomi", "main": 5, "periods": 3, "period": 10}
    s.request("config.set", config={"time_control": tc})
    assert s.request("reset")["state"] == "idle"
    assert s.request("press", side="white")["accepted"] is True
    s.run_for(1.0)
    p = s.request("probe")
    figure("heap free, frozen image, during a game (gc.mem_free)", _free(p))
    assert s.request("press", side="black")["accepted"] is True
    st = s.request("status")
    assert st["state"] == "running" and st["turn"] == "white" and st["moves"] == 1
    assert 3800 <= st["black"]["main_ms"] < 4000  # about 1.1 s of Black's 5 s are gone
    # The heap as the commands of every game leave it (what a boot defers is in it now).
    assert s.request("pause")["state"] == "paused"
    s.run_for(1.0)
    assert s.request("resume")["state"] == "running"
    s.run_for(1.0)
    assert s.request("status")["moves"] == 1
    assert [g for g in s.request("logs.list")["logs"] if g["game"] == st["game"]]
    p = s.request("probe")
    figure("heap free, frozen image, in a game: pause/resume, status, logs.list", _free(p))


def _free(p):
    return "%d bytes (%d without the probe)" % (p["mem_free"], p["mem_free"] + p["probe_bytes"])


def test_a_host_that_stops_reading_for_2_s_never_blocks_the_loop(frozen):
    """The host stops reading for 2 s while the clock runs and status events pour out: the
    chip's USB writes find TinyUSB's FIFO full. The image says the line is writable only
    with room for a 256-byte piece (tools/rp2/patches/0002) and the loop writes a piece at
    most, so no write waits (stock MicroPython: up to 500 ms a write, more for a stream write's
    retries). A request sent meanwhile is answered once the host reads again."""
    pico, s = frozen["pico"], frozen["s"]
    if s.request("status")["state"] == "running":
        s.request("pause")
    s.request(
        "config.set",
        config={"time_control": {"type": "byoyomi", "main": 600, "periods": 3, "period": 30}},
    )
    s.request("reset")
    assert s.request("press", side="white")["accepted"] is True  # Black's clock runs
    assert s.request("watch", on=True)["on"] is True
    s.run_for(0.5)
    s.request("probe")  # the longest write counted from here
    pico.host_reads(False)
    rid = s.send("status")
    s.run_for(2.0)
    pico.host_reads(True)
    st = s.reply(rid, timeout=5.0)
    assert st["state"] == "running" and st["turn"] == "black"
    p = s.request("probe")
    figure(
        "longest USB write while the host stopped reading 2 s, frozen image",
        "%d us" % p["max_send_us"],
    )
    assert p["max_send_us"] <= 5000, p["max_send_us"]
    assert s.request("watch", on=False)["on"] is False
