"""The simulator page: the real firmware in MicroPython's WebAssembly port, in chromium.

Time is Playwright's fake clock (simpage.py): every deadline is met at its millisecond, so
what the page played can be compared with `goclock simulate` exactly.
"""

import json
import os
import subprocess
import sys

from web.conftest import REPO
from web.simpage import (
    advance,
    attach_line,
    lines,
    open_simulator,
    played,
    request,
    said,
    tick,
    view,
    wait_running,
)

TC = {"type": "byoyomi", "main": 30, "periods": 2, "period": 30}
GOCLOCK = os.path.join(os.path.dirname(sys.executable), "goclock")
CHECKED = ("start", "call", "byoyomi", "period", "timeout", "press", "pause", "resume")


def _clips(pack="zh"):
    """clip path in the page -> phrase, from the pack's manifest."""
    with open(os.path.join(REPO, "sounds", pack, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    return {"/sounds/%s/%s" % (pack, v["file"]): k for k, v in manifest["phrases"].items()}


def _simulate(tmp_path, scenario):
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(scenario))
    out = subprocess.run(
        [GOCLOCK, "simulate", str(path)], capture_output=True, check=True, timeout=60
    )
    return [json.loads(x) for x in out.stdout.decode().splitlines()]


def _set_time_control(page, tc):
    attach_line(page)
    reply = request(page, {"id": 1, "cmd": "config.set", "config": {"time_control": tc}})
    assert reply["ok"], reply
    assert request(page, {"id": 2, "cmd": "reset"})["ok"]
    assert request(page, {"id": 3, "cmd": "watch", "on": True})["ok"]
    assert request(page, {"id": 4, "cmd": "status"})["time_control"]["type"] == tc["type"]


def test_byoyomi_ending_plays_the_calls_goclock_simulate_makes(browser_context, site, tmp_path):
    page = open_simulator(browser_context, site)
    _set_time_control(page, TC)
    # The set-up's reset, sent by a host, is said at the board as the arbiter key's is; the
    # game's sounds are what comes after it.
    assert [_clips().get(c) for _, c, _ in played(page)] == ["重新开局"]
    setup_played, setup_said = len(played(page)), len(said(page))
    t0 = tick(page)
    page.keyboard.press("l")  # White's button: Black's clock starts at this tick
    advance(page, 38_000)
    page.keyboard.press("a")  # Black moves in its first byo-yomi period
    advance(page, 12_000)
    page.keyboard.press(" ")  # the arbiter stops both clocks
    advance(page, 5_000)
    page.keyboard.press(" ")  # and starts them again
    advance(page, 100_000)  # White lets every period run out
    assert view(page)["note"] == "WHITE FLAG"

    events = [e for e in lines(page) if "event" in e]
    kinds = [e["event"] for e in events]
    assert kinds.count("timeout") == 1 and "pause" in kinds and "resume" in kinds
    # The same presses, in the game time the firmware logged them, through `goclock simulate`.
    actions = []
    for e in events:
        if e["event"] == "start":
            actions.append({"t": e["t"], "do": "start"})
        elif e["event"] == "press":
            actions.append({"t": e["t"], "do": "press", "side": e["side"]})
        elif e["event"] in ("pause", "resume"):
            actions.append({"t": e["t"], "do": e["event"]})
    assert [a["do"] for a in actions] == ["start", "press", "pause", "resume"]
    assert actions[1]["t"] == 38_000  # charged from the key's first edge
    expected = _simulate(tmp_path, {"time_control": TC, "events": actions, "until": 200_000})

    def pick(rows):
        return [
            {k: v for k, v in r.items() if k in ("event", "t", "side", "phrase", "left")}
            for r in rows
            if r["event"] in CHECKED
        ]

    assert pick(events) == pick(expected)

    # What the speaker played: every call, in order, each at its moment (a call that
    # follows another of the same moment, "10" then "超时判负", when the first has ended).
    calls = [e for e in expected if e["event"] == "call"]
    clips = _clips()
    heard = [(t - t0, clips.get(clip, clip)) for t, clip, _ in played(page, setup_played)]
    heard = [(t, p) for t, p in heard if p not in ("暂停", "继续")]  # the arbiter's notices
    assert [p for _, p in heard] == [c["phrase"] for c in calls]
    assert calls[-1]["phrase"] == "超时判负" and calls[0]["phrase"] == "开始读秒"
    for (t, phrase), call, before in zip(heard, calls, [None] + calls):
        if before is not None and before["t"] == call["t"]:
            assert call["t"] < t <= call["t"] + 2_500, (phrase, t, call)
        else:
            assert t == call["t"], (phrase, t, call)
    # The arbiter's pause and resume were said too, when they happened.
    notices = [
        clips.get(c) for _, c, _ in played(page, setup_played) if clips.get(c) in ("暂停", "继续")
    ]
    assert notices == ["暂停", "继续"]
    game_said = said(page)[setup_said:]
    assert [s["phrase"] for s in game_said if s["phrase"] not in ("暂停", "继续")] == [
        c["phrase"] for c in calls
    ]
    assert page.errors == []


def test_a_reload_resumes_the_game_paused_like_a_power_cut(browser_context, site):
    page = open_simulator(browser_context, site)
    attach_line(page)
    page.keyboard.press("l")  # White starts Black's clock (the default cn 2h/5)
    advance(page, 5_000)
    page.keyboard.press("a")  # Black: 5 s
    advance(page, 3_000)
    page.keyboard.press("l")  # White: 3 s
    advance(page, 2_000)  # Black's clock runs 2 s more, then the power goes
    before = request(page, {"id": 1, "cmd": "status"})
    assert before["state"] == "running" and before["moves"] == 2
    page.evaluate("goclockSim.store.flushed()")  # every pass's files are in IndexedDB

    page.reload()
    wait_running(page)
    attach_line(page)
    after = request(page, {"id": 2, "cmd": "status"})
    assert after["state"] == "paused" and after["moves"] == 2 and after["turn"] == "black"
    assert after["game"] == before["game"]
    main = 6_900_000
    assert after["white"]["main_ms"] == main - 3_000
    # Black is given back at most the 2 s since its last progress mark.
    assert main - 7_000 <= after["black"]["main_ms"] <= main - 5_000, after["black"]
    advance(page, 3_000)
    assert "断电恢复，对局已暂停" in [s["phrase"] for s in said(page)]
    assert view(page)["note"] == "PAUSED"
    page.keyboard.press(" ")  # the arbiter resumes the game
    advance(page, 500)
    assert view(page)["state"] == "running" and view(page)["turn"] == "black"
    assert page.errors == []


def test_the_clock_works_with_the_keyboard_alone(browser_context, site):
    page = open_simulator(browser_context, site)
    # Tab reaches the on-screen buttons; Enter on White's starts Black's clock.
    for _ in range(12):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "right":
            break
    assert page.evaluate("document.activeElement.id") == "right"
    page.keyboard.press("Enter")
    advance(page, 200)
    assert view(page)["state"] == "running" and view(page)["turn"] == "black"
    page.keyboard.press("a")  # Black's button by its key
    advance(page, 200)
    assert view(page)["turn"] == "white"
    page.keyboard.press(" ")  # Space is the arbiter key, even with a button focused
    advance(page, 200)
    assert view(page)["note"] == "PAUSED"
    assert page.evaluate("document.activeElement.id") == "right"
    page.keyboard.press("h")  # hold the arbiter key down ...
    advance(page, 100)
    assert page.get_attribute("#arbiter", "aria-pressed") == "true"
    page.keyboard.press("h")  # ... and let it go: a tap of the key, which resumes
    advance(page, 200)
    assert page.get_attribute("#arbiter", "aria-pressed") == "false"
    assert view(page)["state"] == "running"
    assert page.errors == []


def test_the_display_shows_the_firmware_screen(browser_context, site):
    page = open_simulator(browser_context, site)
    page.keyboard.press("l")
    advance(page, 61_000)
    assert view(page)["black"] == "1:53:59"
    # The canvas holds the panel's memory as the firmware sent it: the marker "<" of the
    # running side on Black's line (page 0, x 120-127), nothing on White's line there.
    lit = page.evaluate(
        """() => { const o = goclockSim.oled; const n = (y0) => { let c = 0;
            for (let y = y0; y < y0 + 8; y++) for (let x = 120; x < 128; x++) c += o.lit(x, y);
            return c; }; return [n(0), n(24)]; }"""
    )
    assert lit[0] > 0 and lit[1] == 0
    # and the canvas shows what the memory holds (drawn at the next animation frame)
    advance(page, 50)
    drawn = page.evaluate(
        """() => { const c = document.getElementById('oled').getContext('2d');
            const d = c.getImageData(0, 0, 128, 64).data; let on = 0;
            for (let i = 0; i < d.length; i += 4) if (d[i] > 128) on++;
            let mem = 0; const o = goclockSim.oled;
            for (let y = 0; y < 64; y++) for (let x = 0; x < 128; x++) mem += o.lit(x, y);
            return [on, mem]; }"""
    )
    assert drawn[0] == drawn[1] > 200


def test_the_page_decoder_and_the_firmware_decoder_agree_on_every_clip(browser_context, site):
    """Clips play through the page's JavaScript IMA ADPCM decoder (the firmware's viper
    decoder cannot compile on the WebAssembly port, and its plain-Python one runs at about
    ten times the speed of speech there: too slow for a loop pass). Both decode every clip
    of every pack here, the firmware's in MicroPython in the page, and must agree."""
    page = open_simulator(browser_context, site, fake_time=False)
    page.evaluate("goclockSim.backgroundPacks")
    result = page.evaluate(
        """async () => {
            const { decodeWav } = await import('./js/sim/adpcm.js');
            const sim = goclockSim;
            const crc = (bytes) => { let c = ~0; for (const b of bytes) { c ^= b;
                for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1)); }
                return (~c) >>> 0; };
            const js = {};
            for (const [path, bytes] of sim.speaker.files) {
                if (!path.endsWith('.wav')) continue;
                const { samples } = decodeWav(bytes);
                js[path] = [crc(new Uint8Array(samples.buffer, samples.byteOffset, samples.length * 2)), samples.length];
            }
            sim.mp.runPython(`
import binascii, json, os
from goclockfw.audio import adpcm, wavhead
assert adpcm.decode_block is adpcm._decode_py
_out = {}
for _pack in sorted(os.listdir("/sounds")):
    for _name in sorted(os.listdir("/sounds/" + _pack)):
        if not _name.endswith(".wav"):
            continue
        _path = "/sounds/%s/%s" % (_pack, _name)
        with open(_path, "rb") as _f:
            _bits, _rate, _frames, _align = wavhead.read_header(_f)
            _block = bytearray(_align)
            _buf = bytearray(2 * adpcm.samples_per_block(_align))
            _crc = 0
            _left = _frames
            while _left > 0:
                _n = _f.readinto(_block)
                if not _n:
                    break
                _got = adpcm.decode_block(_block, _n, _buf)
                _take = _got if _got < _left else _left
                _crc = binascii.crc32(memoryview(_buf)[: 2 * _take], _crc)
                _left -= _take
        _out[_path] = [_crc & 0xFFFFFFFF, _frames - _left]
_json = json.dumps(_out)
`);
            return [js, JSON.parse(sim.mp.globals.get('_json'))];
        }"""
    )
    js, firmware = result
    assert len(firmware) >= 200  # zh, ja and en: every clip
    assert js == firmware
