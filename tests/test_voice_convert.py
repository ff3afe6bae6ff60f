"""`goclock voice convert`: recordings in any common WAV format into a pack the clock plays.

The recordings are made here (tests/support/recordings.py): tone and noise bursts with
silence around them, in 8/16/24/32-bit PCM, 32/64-bit float and WAVE_FORMAT_EXTENSIBLE, at
8 to 48 kHz, mono and stereo, at peaks from -34 to -1 dBFS. What comes out is read back
through the firmware's own header parser and ADPCM decoder, as the clock would play it.
"""

import array
import json
import math
import os
import shutil
import struct

import pytest

from conftest import REPO
from goclock.cli import main
from goclock.voice import adpcmenc, clips, dsp, resample, wavin
from goclock.voice import convert as voiceconvert
from goclock.voice import pack as voice
from goclockfw.audio import adpcm
from support.recordings import record_pack, utterance, wav_bytes

FORMATS = (
    ("s16", 16000, 1),
    ("u8", 8000, 1),
    ("s24x", 44100, 2),
    ("s32", 48000, 1),
    ("f32", 22050, 2),
    ("f64", 11025, 1),
    ("s24", 24000, 1),
    ("s16", 32000, 2),
)
PEAKS = (0.5, 0.02, 0.9, 0.05, 0.2)  # -6, -34, -1, -26, -14 dBFS
TOLERANCE_LU = 1.0


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def decoded(path):
    """(Clip, samples as ints) of a pack's clip, decoded by the firmware's decoder."""
    clip = clips.Clip(str(path))
    pcm = array.array("h")
    pcm.frombytes(clips.decode(clip))
    return clip, list(pcm)


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """An English pack recorded in every format, converted once: (src, out, recorded)."""
    root = tmp_path_factory.mktemp("mixed")
    made = record_pack(root / "takes", "en", FORMATS, PEAKS)
    assert main(["voice", "convert", str(root / "takes"), str(root / "mine")]) == 0
    return root / "takes", root / "mine", made


@pytest.fixture(scope="module")
def plain_takes(tmp_path_factory):
    """An English pack recorded at 16 kHz 16-bit, made once; tests take copies."""
    folder = tmp_path_factory.mktemp("plain") / "takes"
    record_pack(folder, "en")
    return folder


@pytest.fixture
def takes(plain_takes, tmp_path):
    folder = tmp_path / "takes"
    shutil.copytree(plain_takes, folder)
    return folder


# ----- the pack that comes out -----


def test_every_clip_is_16k_adpcm_and_voice_check_passes(mixed, capsys):
    _, out, made = mixed
    assert sorted(p.name for p in out.glob("*.wav")) == sorted(made)
    rc, text, err = run(capsys, "voice", "check", out)
    assert rc == 0 and text.splitlines()[-1] == "ok", (text, err)
    m = voice.read_manifest(str(out))
    assert (m["profile"], m["encoding"], m["sample_rate"]) == ("en", "ima-adpcm", 16000)
    assert (m["block_align"], m["samples_per_block"], m["pack"]) == (256, 505, "mine")
    shipped = voice.read_manifest(os.path.join(REPO, "sounds", "zh"))
    assert sorted(m) == sorted(shipped)  # the shipped packs' manifest, field for field
    assert sorted(m["phrases"]["1"]) == sorted(shipped["phrases"]["1"])
    with open(out / "manifest.json", encoding="utf-8") as f:
        assert f.read() == voice.manifest_text(m)
    for name in made:
        clip, samples = decoded(out / name)
        assert (clip.sample_rate, clip.encoding, clip.block_align) == (16000, "ima-adpcm", 256)
        assert len(samples) == clip.frames and clip.frames > 0


def test_silence_is_trimmed_to_the_burst(mixed):
    _, out, made = mixed
    for name, (_kind, _rate, _ch, _peak, burst) in made.items():
        clip, samples = decoded(out / name)
        # The burst, 10 ms kept before it and 30 ms after (the recordings had 150 and 200 ms),
        # give or take a 10 ms frame.
        assert abs(clip.duration_ms - (burst * 1000 + 40)) <= 20, (name, clip.duration_ms)
        # The first 7.5 ms are the silence kept before the burst, faded in: 20 dB under
        # it at least (an 8-bit take at -34 dBFS brings its own hiss).
        head = max(abs(v) for v in samples[:120])
        assert head < 0.1 * max(abs(v) for v in samples), (name, head)


def test_loudness_is_even_across_very_different_levels(mixed):
    _, out, made = mixed
    levels = {}
    for name in made:
        _, samples = decoded(out / name)
        levels[name] = dsp.loudness([v / 32768 for v in samples], 16000)
    off = {n: round(v - voiceconvert.TARGET_LUFS, 2) for n, v in levels.items()}
    assert all(abs(d) <= TOLERANCE_LU for d in off.values()), off
    peaks = {p for *_, p, _b in made.values()}
    assert max(peaks) / min(peaks) > 40  # more than 32 dB apart going in


def test_no_sample_clips(mixed):
    _, out, made = mixed
    ceiling = 32768 * 10 ** (voiceconvert.CEILING_DB / 20)
    for name in made:
        _, samples = decoded(out / name)
        peak = max(abs(v) for v in samples)
        # The limiter's ceiling, and a little for the ADPCM's own error: far from 32767.
        assert peak < ceiling * 1.06 < 32767, (name, peak)


def test_a_quieter_target_and_a_fixed_gain(tmp_path):
    path = tmp_path / "take.wav"
    path.write_bytes(wav_bytes([utterance(44100, 0.4, 0.3, seed=2)], 44100, "s24"))
    clip = voiceconvert.convert_clip(voiceconvert.Converted("1", "count_1.wav", str(path)), -23)
    assert abs(clip.lufs_out + 23) < 0.1 and clip.limited_db == 0
    out = tmp_path / "count_1.wav"
    out.write_bytes(clip.wav)
    _, samples = decoded(out)
    assert abs(dsp.loudness([v / 32768 for v in samples], 16000) + 23) < TOLERANCE_LU
    fixed = voiceconvert.convert_clip(
        voiceconvert.Converted("1", "count_1.wav", str(path)), gain_db=6.0
    )
    assert fixed.gain_db == 6.0 and abs(fixed.lufs_out - (clip.lufs_in + 6)) < 0.1


# ----- what is reported -----


def test_a_clip_too_long_for_its_slot_is_named(takes, tmp_path, capsys):
    long_five = utterance(16000, 0.9, 0.5, seed=3)  # "5" lasting 0.94 s: counts get 0.8 s
    (takes / "count_5.wav").write_bytes(wav_bytes([long_five], 16000))
    out = tmp_path / "mine"
    rc, text, err = run(capsys, "voice", "convert", takes, out)
    assert rc == 2
    assert "count_5.wav (5): 940 ms, must be under 800 ms" in err, err
    assert "1 clip too long for its slot" in err
    assert any(line.startswith("problem: too long: 5: 940 ms") for line in text.splitlines())
    assert (out / "count_5.wav").exists() and not (out / "manifest.json").exists()
    # Said again, shorter: OUT is not empty, so --force is needed to replace it.
    (takes / "count_5.wav").write_bytes(wav_bytes([utterance(16000, 0.3, 0.5)], 16000))
    rc, _, err = run(capsys, "voice", "convert", takes, out)
    assert rc == 2 and "is not empty: --force replaces the pack in it" in err
    (out / "stale.wav").write_bytes(b"old")
    rc, text, err = run(capsys, "voice", "convert", "--force", takes, out)
    assert rc == 0, err
    assert "profile en (guessed from the file names)" in text
    assert (out / "manifest.json").exists() and not (out / "stale.wav").exists()


def test_json_gives_each_clip_and_the_too_long_ones(takes, tmp_path, capsys):
    long_five = utterance(16000, 0.9, 0.5, seed=3)
    (takes / "count_5.wav").write_bytes(wav_bytes([long_five], 16000))
    rc, text, err = run(capsys, "voice", "convert", "--json", takes, tmp_path / "mine")
    assert rc == 2 and "1 clip too long for its slot" in err
    got = json.loads(text)
    assert (got["profile"], got["ok"], got["dir"]) == ("en", False, str(tmp_path / "mine"))
    assert got["clips"]["count_5.wav"]["phrase"] == "5"
    assert got["clips"]["count_5.wav"]["duration_ms"] == 940
    assert got["too_long"] and "count_5.wav" in got["too_long"][0]
    assert any(p.startswith("too long: 5: 940 ms") for p in got["problems"])


def test_missing_recordings_are_listed_and_nothing_is_written(takes, tmp_path, capsys):
    os.remove(takes / "sec_20.wav")
    os.remove(takes / "resume.wav")
    out = tmp_path / "mine"
    rc, _, err = run(capsys, "voice", "convert", takes, out)
    assert rc == 2
    assert "2 recordings missing for profile en" in err
    assert "20 seconds (sec_20.wav)" in err and "resumed (resume.wav)" in err
    assert not out.exists()


def test_another_profile_asks_for_its_own_phrases(takes, tmp_path, capsys):
    rc, _, err = run(capsys, "voice", "convert", "--like", "ja", takes, tmp_path / "o")
    assert rc == 2 and "missing for profile jp (like ja)" in err and "10秒 (sec_10.wav)" in err
    rc, _, err = run(capsys, "voice", "convert", "--profile", "cn", takes, tmp_path / "o")
    assert rc == 2 and "missing for profile cn (--profile)" in err


def test_a_bad_recording_stops_the_run_before_anything_is_written(takes, tmp_path, capsys):
    (takes / "count_3.wav").write_bytes(b"ID3\x04 an mp3 renamed")
    out = tmp_path / "mine"
    rc, _, err = run(capsys, "voice", "convert", takes, out)
    assert rc == 2
    assert err.count("\n") == 1, err  # one line
    assert err.startswith("goclock: ") and "count_3.wav: not a WAV file" in err
    assert not out.exists()
    (takes / "sec_20.wav").write_bytes(b"RIFF\0\0\0\0WAVEfmt ")
    rc, _, err = run(capsys, "voice", "convert", takes, out)
    assert rc == 2 and err.startswith("goclock: 2 recordings cannot be used:\n")
    assert "count_3.wav: not a WAV file" in err and "sec_20.wav: no fmt chunk" in err
    assert not out.exists()


def _fmt_tag(data, tag):
    data = bytearray(data)
    data[20:22] = struct.pack("<H", tag)
    return bytes(data)


BAD = {
    "not a WAV": (b"just some text", "not a WAV file"),
    "mu-law": (
        _fmt_tag(wav_bytes([utterance(8000, 0.2, 0.5)], 8000, "u8"), 7),
        "mu-law: not supported",
    ),
    "empty": (wav_bytes([[]], 16000), "no samples in it"),
    "silent": (wav_bytes([[0.0] * 8000], 16000), "no sound in it"),
    "clipped": (
        wav_bytes([[max(-1.0, min(1.0, 3 * math.sin(i / 10))) for i in range(8000)]], 16000),
        "clipped (",
    ),
    "clipped 24-bit": (
        wav_bytes([[max(-1.0, min(1.0, 2 * math.sin(i / 7))) for i in range(8000)]], 8000, "s24"),
        "clipped (",
    ),
    "clipped float": (
        wav_bytes([[1.0 if (i // 20) % 2 else -0.3 for i in range(8000)]], 16000, "f32"),
        "clipped (",
    ),
    "cut header": (wav_bytes([[0.1] * 100], 16000)[:30], "a damaged WAV file"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_recordings_are_refused_with_their_reason(case, tmp_path):
    data, message = BAD[case]
    path = tmp_path / "take.wav"
    path.write_bytes(data)
    with pytest.raises(wavin.WavError, match=message.replace("(", r"\(")):
        voiceconvert.convert_clip(voiceconvert.Converted("1", "count_1.wav", str(path)))


def test_a_loud_float_take_is_not_clipping(tmp_path):
    # Float samples may go over 1.0 without having clipped: scaled down, not refused.
    path = tmp_path / "take.wav"
    path.write_bytes(wav_bytes([[2 * v for v in utterance(16000, 0.3, 0.9)]], 16000, "f32"))
    clip = voiceconvert.convert_clip(voiceconvert.Converted("1", "count_1.wav", str(path)))
    assert clip.gain_db < -6


def test_usage_errors(takes, tmp_path, capsys):
    rc, _, err = run(capsys, "voice", "convert", tmp_path / "nowhere", tmp_path / "o")
    assert rc == 2 and "neither a folder nor a shipped voice pack" in err
    rc, _, err = run(capsys, "voice", "convert", takes, takes)
    assert rc == 2 and "another folder than SRC" in err
    rc, _, err = run(capsys, "voice", "convert", "--target-lufs", "3", takes, tmp_path / "o")
    assert rc == 2 and "--target-lufs: from -40 to -6" in err
    (tmp_path / "file").write_text("x")
    rc, _, err = run(capsys, "voice", "convert", takes, tmp_path / "file")
    assert rc == 2 and "is a file" in err
    empty = tmp_path / "empty"
    empty.mkdir()
    rc, _, err = run(capsys, "voice", "convert", empty, tmp_path / "o")
    assert rc == 2 and "has no .wav files" in err
    with pytest.raises(SystemExit):  # argparse: one level option or the other
        main(["voice", "convert", "--gain", "3", "--target-lufs", "-20", str(takes), "o"])


def test_voice_phrases_lists_what_to_record(capsys):
    rc, text, _ = run(capsys, "voice", "phrases", "--profile", "en", "--json")
    rows = {r["file"]: r for r in json.loads(text)}
    assert rc == 0 and len(rows) == len(voice.required_phrases(voice.load_profile("en")))
    assert rows["count_5.wav"] == {
        "file": "count_5.wav",
        "phrase": "5",
        "alone_ms": 800,
        "together": None,
    }
    assert rows["resume.wav"]["phrase"] == "resumed" and rows["resume.wav"]["alone_ms"] == 3000
    rc, text, _ = run(capsys, "voice", "phrases", "--like", "zh")
    assert rc == 0 and "profile cn: 110 recordings" in text and "left_min_4.wav" in text
    assert "2.0 s with 1分" in text  # 还剩4分 is said right after 1分


# ----- the pieces -----


def test_the_loudness_meter_reads_a_1khz_sine_as_bs1770_says():
    for rate in (48000, 16000):
        sine = [math.sin(2 * math.pi * 1000 * i / rate) for i in range(rate)]
        assert abs(dsp.loudness(sine, rate) + 3.01) < 0.06, rate
        # Two seconds of silence around it are gated out (counted, they would make it
        # -27.8); the blocks that straddle the tone's ends stay in, as the standard says.
        quiet = [0.0] * rate + [0.1 * v for v in sine] + [0.0] * rate
        assert -24.5 < dsp.loudness(quiet, rate) < -23.0, rate
    assert dsp.loudness([0.0] * 100, 16000) == -math.inf


def test_the_resampler_keeps_speech_and_stops_aliases():
    def tone(f, rate):
        return [0.5 * math.sin(2 * math.pi * f * i / rate) for i in range(rate // 4)]

    def rms(x):
        x = x[400:-400]  # away from the ends
        return math.sqrt(sum(v * v for v in x) / len(x))

    for rate in (44100, 48000, 8000):
        out = resample.resample(tone(1000, rate), rate, 16000)
        assert len(out) == 4000
        assert abs(dsp.db(rms(out) / (0.5 / math.sqrt(2)))) < 0.05, rate
    # 10 kHz is over the new Nyquist frequency (8 kHz): it must not fold back as 6 kHz.
    alias = resample.resample(tone(10000, 44100), 44100, 16000)
    assert dsp.db(rms(alias) / (0.5 / math.sqrt(2))) < -60


def test_the_encoder_writes_what_the_firmware_decodes():
    rate = 16000
    x = [int(12000 * math.sin(2 * math.pi * 440 * i / rate)) for i in range(1200)]
    data = adpcmenc.wav_bytes(x, rate)
    assert data[:4] == b"RIFF" and b"fact" in data
    body = data[data.index(b"data") + 8 :]
    assert len(body) == 3 * 256  # 1200 samples: three blocks of 505, the last padded
    out, buf = [], bytearray(2 * 505)
    for pos in range(0, len(body), 256):
        n = adpcm.decode_block(body[pos : pos + 256], 256, buf)
        out += struct.unpack("<%dh" % n, bytes(buf[: 2 * n]))
    out = out[:1200]
    err = sum((a - b) ** 2 for a, b in zip(x, out))
    snr = 10 * math.log10(sum(v * v for v in x) / err)
    assert snr > 30, snr
    assert [out[0], out[505], out[1010]] == [x[0], x[505], x[1010]]  # each block's header
