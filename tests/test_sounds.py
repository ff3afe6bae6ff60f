"""The shipped voice packs, the call profiles they serve, the beep profile and the players.

Every phrase a profile can emit (run over periods of 10-60 s, 1-10 periods, and the
countdown) must have a clip; every clip must end before the next call can start; the
manifests must match the files (durations measured from the WAV headers); the default
pack must fit in 600 KB. No speech engine is needed: the clips are committed.
"""

import json
import os
import random
import re
import wave
import zlib

import pytest

from conftest import REPO, run_micropython
from goclock.voice import clips
from goclock.voice import pack as voice
from goclockfw.audio import beep, player_i2s, player_pwm
from goclockfw.core import callplan
from support.wavs import FakeI2S, pcm_wav, samples

SOUNDS = os.path.join(REPO, "sounds")
PACKS = {"zh": "cn", "ja": "jp", "en": "en"}
PERIODS = range(10, 61)
LEFT = range(1, 11)


def manifest(pack):
    with open(os.path.join(SOUNDS, pack, "manifest.json"), encoding="utf-8") as f:
        return json.load(f)


def durations(pack):
    return {p: e["duration_ms"] for p, e in manifest(pack)["phrases"].items()}


def emitted(profile):
    """Every phrase the profile can say, found by running it, not by listing it."""
    said = set()
    for seconds in PERIODS:
        for left in LEFT:
            offsets, phrases = profile.period_calls(seconds * 1000, left)
            said.update(phrases)
    said.update(p for _, p in profile.countdown)
    said.update({profile.byoyomi_start, profile.timeout})
    return said


def sequences(profile):
    """Uninterrupted runs of (offset_ms, phrase): a period and the next, and the countdown."""
    for seconds in PERIODS:
        period = seconds * 1000
        for left in LEFT:
            offsets, phrases = profile.period_calls(period, left)
            run = list(zip(offsets, phrases))
            if left > 1:
                o2, p2 = profile.period_calls(period, left - 1)
                run += [(period + o, p) for o, p in zip(o2, p2)]
            else:
                run.append((period, profile.timeout))
            yield run
    yield [(-before, p) for before, p in profile.countdown] + [(0, profile.timeout)]


@pytest.mark.parametrize("pack", sorted(PACKS))
def test_every_phrase_every_profile_can_emit_has_a_clip(pack):
    profile = callplan.profile(PACKS[pack])
    have = set(manifest(pack)["phrases"])
    missing = emitted(profile) - have
    assert not missing, "%s lacks %s" % (pack, sorted(missing))
    device = set(voice.device_phrases(PACKS[pack]).values())
    assert device <= have
    assert set(manifest(pack)["device"].values()) == device


def test_the_chinese_seconds_are_computed_from_the_rules():
    # P-5 and P-2 for every period of 10-59 s, the tens, and 55/58 of the minute.
    profile = callplan.profile("cn")
    seconds = {int(p[:-1]) for p in emitted(profile) if re.fullmatch(r"\d+秒", p)}
    expected = {10, 20, 30, 40, 50, 55, 58}
    for p in range(10, 60):
        expected |= {p - 5, p - 2}
    assert seconds == expected
    have = set(manifest("zh")["phrases"])
    for k in range(1, 10):
        assert {"还剩%d分" % k, "还剩%d次" % k} <= have
    assert {"1分", "开始读秒", "超时判负"} | {str(i) for i in range(1, 11)} <= have
    assert {"预设%d" % n for n in range(1, 11)} <= have


@pytest.mark.parametrize("pack", sorted(PACKS))
def test_manifest_matches_the_files(pack):
    folder = os.path.join(SOUNDS, pack)
    m = manifest(pack)
    assert m["pack"] == pack and m["profile"] == PACKS[pack]
    # What the shipped packs are: 16 kHz IMA ADPCM in 256-byte blocks (docs/voices.md).
    assert (m["encoding"], m["sample_rate"]) == ("ima-adpcm", 16000)
    assert (m["block_align"], m["samples_per_block"]) == (256, 505)
    files = set()
    for phrase, entry in m["phrases"].items():
        name = entry["file"]
        assert re.fullmatch(r"[a-z0-9_]+\.wav", name), name
        clip = clips.Clip(os.path.join(folder, name))
        assert clip.encoding == m["encoding"] and clip.block_align == m["block_align"]
        assert clip.sample_rate == m["sample_rate"] and "sample_rate" not in entry
        # The duration is the fact chunk's count: the data (whole blocks) holds more.
        held = (clip.size - clip.data_offset) // 256 * 505
        assert clip.frames <= held < clip.frames + 505, phrase
        assert entry["duration_ms"] == round(clip.frames * 1000 / 16000), phrase
        assert entry["crc32"] == clip.crc32, phrase
        files.add(name)
    on_disk = {n for n in os.listdir(folder) if n.endswith(".wav")}
    assert files == on_disk
    assert len(files) == len(m["phrases"])  # one clip per phrase


def test_the_default_pack_fits_600_kb():
    folder = os.path.join(SOUNDS, "zh")
    total = sum(os.path.getsize(os.path.join(folder, n)) for n in os.listdir(folder))
    assert total <= 600 * 1000
    assert manifest("zh")["sample_rate"] in (8000, 11025, 16000)


@pytest.mark.parametrize("pack", sorted(PACKS))
def test_every_pack_fits_its_slots_as_the_issue_states(pack):
    d = durations(pack)
    profile = callplan.profile(PACKS[pack])
    for i in range(1, 11):
        assert d[str(i)] < 800, "count %d" % i
    assert d[profile.byoyomi_start] < 1500
    for run in sequences(profile):
        # Each call (with those said at the same ms) ends before the next one starts.
        i = 0
        while i < len(run):
            at = run[i][0]
            group = [p for o, p in run if o == at]
            later = [o for o, _ in run if o > at]
            if later:
                assert sum(d[p] for p in group) < min(later) - at, (pack, run[i])
            i += len(group)
    if pack == "zh":
        assert d["55秒"] < 1800 and d["58秒"] < 1800
        for p in range(10, 60):
            assert d["%d秒" % (p - 5)] < 1800 and d["%d秒" % (p - 2)] < 1800
        for k in range(1, 10):
            assert d["1分"] + d["还剩%d分" % k] < 2000


@pytest.mark.parametrize("pack", sorted(PACKS))
def test_every_shipped_pack_passes_voice_check(pack):
    report = voice.check(os.path.join(SOUNDS, pack))
    assert report.ok, report.lines()
    assert report.notes == []


@pytest.mark.parametrize("name", ["jp", "en"])
def test_profiles_keep_the_core_interface(name):
    profile = callplan.profile(name)
    assert profile.name == name and profile.byoyomi_start and profile.timeout
    befores = [b for b, _ in profile.countdown]
    assert befores == sorted(befores, reverse=True) and befores[-1] >= 0
    for seconds in PERIODS:
        for left in LEFT:
            offsets, phrases = profile.period_calls(seconds * 1000, left)
            assert isinstance(offsets, tuple) and isinstance(phrases, tuple)
            assert len(offsets) == len(phrases)
            assert list(offsets) == sorted(offsets)
            assert all(0 < o <= seconds * 1000 for o in offsets)


def test_jp_and_en_call_tables():
    jp = callplan.profile("jp")
    assert jp.period_calls(60000, 3) == (
        tuple(range(30000, 60000, 10000)) + tuple(range(51000, 61000, 1000)),
        ("30秒", "40秒", "50秒", "1", "2", "3", "4", "5", "6", "7", "8", "9", "残り2回"),
    )
    assert jp.period_calls(30000, 1)[1][-2:] == ("9", "10")
    en = callplan.profile("en")
    offsets, phrases = en.period_calls(60000, 2)
    assert phrases[:3] == ("30 seconds", "20 seconds", "10") and phrases[-2:] == (
        "1",
        "last period",
    )
    assert offsets[:3] == (30000, 40000, 50000) and offsets[-1] == 60000
    assert en.period_calls(10000, 3)[1][0] == "8"  # the first two seconds are the roll-over's


def test_profiles_run_under_micropython(micropython, tmp_path):
    script = tmp_path / "p.py"
    script.write_text(
        "from goclockfw.core import callplan\n"
        "for n in ('jp', 'en'):\n"
        "    p = callplan.profile(n)\n"
        "    print(n, len(callplan.phrases(p)), p.period_calls(30000, 2))\n"
    )
    out = run_micropython(micropython, str(script))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.decode("utf-8").splitlines()
    for line, name in zip(lines, ("jp", "en")):
        p = callplan.profile(name)
        assert line.startswith("%s %d " % (name, len(callplan.phrases(p))))


# ----- the beep profile -----


@pytest.mark.parametrize("name", ["cn", "jp", "en"])
def test_beep_patterns_fit_every_slot(name):
    profile = voice.load_profile(name)
    phrases = voice.required_phrases(profile)
    d = {p: beep.duration_ms(beep.pattern(p)) for p in phrases}
    for rule in voice.slot_rules(profile):
        assert sum(d[p] for p in rule.phrases) < rule.limit_ms, rule
    for p in emitted(profile):
        steps = beep.pattern(p)
        assert steps and all(f >= 0 and ms > 0 for f, ms in steps)
        assert steps is not beep.pattern("no such phrase"), p  # every call has its own


def test_beep_patterns_say_how_many():
    assert beep.pattern("还剩4分") == beep.pattern("残り4回") == beep.pattern("4 periods left")
    assert len([f for f, _ in beep.pattern("还剩4分") if f]) == 4
    assert [ms for f, ms in beep.pattern("还剩7次") if f] == [200, 60, 60]  # 5 + 2
    assert len([f for f, _ in beep.pattern("30秒") if f]) == 3
    assert beep.pattern("55秒") == beep.pattern("58秒") != beep.pattern("50秒")
    assert beep.duration_ms(beep.pattern("10")) > beep.duration_ms(beep.pattern("9"))
    for notice in ("pause", "resume", "power_resume", "battery_low", "timeout_pass"):
        assert beep.pattern(notice) != beep.pattern("no such phrase")
    assert len([f for f, _ in beep.pattern("preset_3") if f]) == 3
    assert beep.pattern("") == beep.pattern("???")  # unknown: a blip, never an error


# ----- the players, with fake hardware -----


def voice_clip(tmp_path, name="v.wav", frames=1000, seed=1):
    """An 8-bit 8 kHz clip of a recorded pack: a user's pack may be PCM."""
    rnd = random.Random(seed)
    return pcm_wav(tmp_path / name, frames=bytes(rnd.randrange(256) for _ in range(frames)))


def pcm8(path, count=None):
    with wave.open(path, "rb") as w:
        return w.readframes(w.getnframes() if count is None else count)


def test_i2s_streams_an_8bit_clip_widened_and_padded(tmp_path):
    clip = voice_clip(tmp_path)
    raw = pcm8(clip)
    i2s = FakeI2S()
    player = player_i2s.I2SPlayer(i2s, 8000, chunk=256, volume=10)
    assert player.play(clip) and player.busy()
    i2s.drain()
    assert not player.busy()
    out = samples(i2s.out)
    assert len(out) % 256 == 0 and len(out) - len(raw) < 256
    assert out[: len(raw)] == [(b - 128) * 256 for b in raw]
    assert set(out[len(raw) :]) <= {0}


def test_i2s_volume_is_folded_into_the_palette(tmp_path):
    i2s = FakeI2S()
    player = player_i2s.I2SPlayer(i2s, 8000, chunk=64, volume=5)
    assert player._palette is None  # made for the first 8-bit clip only
    clip = voice_clip(tmp_path)
    raw = pcm8(clip, 64)
    player.play(clip)
    out = samples(i2s.out[:128])
    assert out == [(b - 128) * player_i2s.GAIN[5] for b in raw]
    player.set_volume(0)
    assert player.play(clip) is False  # silent mode: nothing is played


def test_i2s_plays_16bit_clips_with_shift(tmp_path):
    frames = b"".join(v.to_bytes(2, "little", signed=True) for v in range(-3000, 3000, 20))
    clip = pcm_wav(tmp_path / "c.wav", rate=16000, width=2, frames=frames)
    i2s = FakeI2S()
    player = player_i2s.I2SPlayer(i2s, 16000, chunk=128, volume=10)
    assert player.play(clip)
    i2s.drain()
    assert samples(i2s.out)[:300] == list(range(-3000, 3000, 20))
    i2s.out = bytearray()
    player.set_volume(7)  # shift 1: half
    player.play(clip)
    i2s.drain()
    assert samples(i2s.out)[:300] == [v >> 1 for v in range(-3000, 3000, 20)]


def test_i2s_refuses_what_it_cannot_play_without_failing(tmp_path):
    i2s = FakeI2S()
    player = player_i2s.I2SPlayer(i2s, 8000)
    stereo = pcm_wav(tmp_path / "s.wav", rate=44100, width=2, channels=2, frames=b"\0" * 400)
    assert player.play(stereo) is False and "2 channels: must be mono" in player.error
    fast = pcm_wav(tmp_path / "f.wav", rate=44100, width=2, frames=b"\0" * 400)
    assert player.play(fast) is False and "44100 Hz: the pack plays at 8000 Hz" in player.error
    assert player.play(str(tmp_path / "none.wav")) is False and "no clip" in player.error
    junk = tmp_path / "j.wav"
    junk.write_bytes(b"RIFF\0\0\0\0WAVEjunk")
    assert player.play(str(junk)) is False and not player.busy()
    assert i2s.out == bytearray()


def test_i2s_skips_extra_chunks_and_stops_at_the_data_end(tmp_path):
    fmt = (1).to_bytes(2, "little") + (1).to_bytes(2, "little") + (8000).to_bytes(4, "little")
    fmt += (8000).to_bytes(4, "little") + (1).to_bytes(2, "little") + (8).to_bytes(2, "little")
    body = b"WAVE" + b"LIST" + (3).to_bytes(4, "little") + b"abc\0"
    body += b"fmt " + (16).to_bytes(4, "little") + fmt
    body += b"data" + (5).to_bytes(4, "little") + bytes([128, 129, 127, 255, 0]) + b"\0"
    body += b"id3 " + (4).to_bytes(4, "little") + b"\xff\xff\xff\xff"
    path = tmp_path / "x.wav"
    path.write_bytes(b"RIFF" + len(body).to_bytes(4, "little") + body)
    i2s = FakeI2S()
    player = player_i2s.I2SPlayer(i2s, 8000, chunk=16, volume=10)
    assert player.play(str(path))
    i2s.drain()
    assert samples(i2s.out) == [0, 256, -256, 127 * 256, -128 * 256] + [0] * 11


def test_i2s_a_new_call_cuts_the_old_one(tmp_path):
    i2s = FakeI2S()
    player = player_i2s.I2SPlayer(i2s, 8000, chunk=128, volume=10)
    player.play(voice_clip(tmp_path, "a.wav", 3000, seed=1))
    first = bytes(i2s.out)
    second = voice_clip(tmp_path, "b.wav", 1000, seed=2)
    player.play(second)  # the first buffer is in flight
    i2s.take()
    head = [(b - 128) * 256 for b in pcm8(second, 128)]
    assert samples(i2s.out[len(first) :]) == head
    player.stop()
    i2s.take()
    assert not i2s.pending and not player.busy()


def test_i2s_plays_beep_patterns_as_square_waves():
    i2s = FakeI2S()
    player = player_i2s.I2SPlayer(i2s, 8000, chunk=100, volume=10)
    assert player.play(((1000, 10), (0, 5), (500, 10)))
    i2s.drain()
    out = samples(i2s.out)
    level = player_i2s.TONE_LEVEL * 256
    assert out[:80] == ([level] * 4 + [-level] * 4) * 10  # 1 kHz: 4 samples a half wave
    assert out[80:120] == [0] * 40
    assert out[120:200] == ([level] * 8 + [-level] * 8) * 5
    assert len(out) == 200  # exactly two chunks: nothing after the pattern


def test_i2s_micropython_framebuf_path_matches_cpython(micropython, tmp_path):
    clip = voice_clip(tmp_path, frames=3000)
    script = tmp_path / "play.py"
    script.write_text(
        "import binascii\n"
        "from goclockfw.audio import player_i2s\n"
        "class I2S:\n"
        "    out = bytearray()\n"
        "    def irq(self, h): self.h = h\n"
        "    def write(self, b): self.out.extend(b); self.pending = True\n"
        "i2s = I2S()\n"
        "p = player_i2s.I2SPlayer(i2s, 8000, chunk=256, volume=6)\n"
        "for what in (%r, ((880, 30), (0, 10), (1320, 25))):\n"
        "    p.play(what)\n"
        "    while p.busy():\n"
        "        p._on_sent(i2s)\n"
        "        p.poll(0)\n"
        "print(len(i2s.out), binascii.crc32(i2s.out))\n" % clip
    )
    out = run_micropython(micropython, str(script))
    assert out.returncode == 0, out.stderr
    i2s = FakeI2S()
    player = player_i2s.I2SPlayer(i2s, 8000, chunk=256, volume=6)
    for what in (clip, ((880, 30), (0, 10), (1320, 25))):
        player.play(what)
        i2s.drain()
    assert out.stdout.decode().split() == [str(len(i2s.out)), str(zlib.crc32(i2s.out))]


class FakePWM:
    def __init__(self):
        self.log = []

    def freq(self, f):
        self.log.append(("freq", f))

    def duty_u16(self, d):
        self.log.append(("duty", d))


def test_pwm_plays_a_pattern_step_by_step_across_the_tick_wrap():
    from goclockfw.core.ticks import TICKS_PERIOD

    now = [TICKS_PERIOD - 50]
    pwm = FakePWM()
    player = player_pwm.PwmPlayer(pwm, lambda: now[0], volume=10)
    pwm.log.clear()
    assert player.play(((1000, 80), (0, 40), (660, 100)))
    assert pwm.log == [("duty", 0), ("freq", 1000), ("duty", player_pwm.DUTY[10])]
    for t, expect in (
        (79, []),
        (80, [("duty", 0)]),
        (119, []),
        (125, [("freq", 660), ("duty", 32768)]),
    ):
        pwm.log.clear()
        player.poll((TICKS_PERIOD - 50 + t) % TICKS_PERIOD)
        assert pwm.log == expect, t
    player.poll((TICKS_PERIOD - 50 + 219) % TICKS_PERIOD)
    assert player.busy()  # the last step ends at 220 ms, not before
    player.poll((TICKS_PERIOD - 50 + 220) % TICKS_PERIOD)
    assert not player.busy() and pwm.log[-1] == ("duty", 0)


def test_pwm_refuses_clips_and_silent_mode():
    pwm = FakePWM()
    player = player_pwm.PwmPlayer(pwm, lambda: 0, volume=0)
    assert player.play(beep.pattern("1")) is False
    player.set_volume(3)
    assert player.play("/sounds/zh/count_1.wav") is False
    assert player.play(beep.pattern("1")) and player.busy()
    player.stop()
    assert not player.busy() and pwm.log[-1] == ("duty", 0)


def test_i2s_watchdog_goes_on_when_a_callback_is_lost():
    """An ESP32 with a full scheduler queue drops the I2S callback: without the watchdog the
    player would wait for it for ever, silent for the rest of the game."""
    clip = os.path.join(SOUNDS, "zh", "sec_58.wav")  # IMA ADPCM: 1010 bytes a block
    i2s = FakeI2S()
    player = player_i2s.I2SPlayer(i2s, 16000, chunk=256, volume=10)
    player.poll(1000)
    assert player.play(clip)
    i2s.pending = False  # the callback for the first buffer never comes
    player.poll(1001)  # the first pass after the write: the buffer's time
    player.poll(1001 + player_i2s.STUCK_MS - 1)
    assert player.stuck == 0 and len(i2s.out) == 1010  # not yet: it may only be slow
    player.poll(1001 + player_i2s.STUCK_MS)
    assert player.stuck == 1 and len(i2s.out) == 2020  # taken as lost: the next buffer
    i2s.drain()  # callbacks come again: the clip plays to its end
    assert not player.busy()
    assert player.play(clip)  # and the next call plays as usual
    i2s.drain()
    assert player.stuck == 1 and not player.busy()


def test_i2s_watchdog_never_takes_a_fresh_buffer_for_a_lost_one():
    """A call started after the loop slept long (a deadline's pass: the call is made before
    the announcer polls) is not stuck: its buffer is timed from the pass that first sees
    it, not from the last poll, long ago. (It was: the buffer was written over at once.)"""
    clip = os.path.join(SOUNDS, "zh", "sec_58.wav")
    i2s = FakeI2S()  # asserts that no write comes while a buffer is out
    player = player_i2s.I2SPlayer(i2s, 16000, volume=10)
    player.poll(1000)
    assert player.play(clip)  # 2 s later, at the deadline
    player.poll(3000)
    player.poll(3000 + player_i2s.STUCK_MS - 1)
    assert player.stuck == 0 and i2s.sizes == [1010]
    i2s.drain()
    assert player.stuck == 0 and not player.busy()
