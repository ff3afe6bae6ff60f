"""`goclock voice check` and `goclock voice push` logic (goclock/voice.py) on real and broken packs."""

import json
import os
import shutil
import wave

import pytest

from conftest import REPO
from goclock.errors import GoclockError
from goclock.voice import pack as voice
from support.wavs import adpcm_blocks, adpcm_wav_bytes

SOUNDS = os.path.join(REPO, "sounds")


def write_wav(path, ms, rate=8000, width=1, channels=1):
    frames = rate * ms // 1000
    silence = (b"\x80" if width == 1 else b"\0\0") * channels
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(silence * frames)


@pytest.fixture
def zh(tmp_path):
    """A copy of the shipped default pack, to break."""
    folder = tmp_path / "zh"
    shutil.copytree(os.path.join(SOUNDS, "zh"), folder)
    return folder


def problems(folder, profile=None):
    return voice.check(str(folder), profile).problems


def test_the_good_pack_passes(zh):
    report = voice.check(str(zh))
    assert report.ok and report.profile == "cn"
    assert len(report.clips) == len(list(zh.glob("*.wav")))
    assert 0 < report.total_bytes <= voice.PACK_LIMIT_BYTES
    assert report.lines()[-1] == "ok"


def test_a_missing_clip_is_named(zh):
    os.remove(zh / "sec_55.wav")
    assert problems(zh) == ["missing: 55秒 (no file sec_55.wav)"]


def test_a_phrase_missing_from_the_manifest_is_named(zh):
    m = json.loads((zh / "manifest.json").read_text(encoding="utf-8"))
    del m["phrases"]["还剩7分"]
    (zh / "manifest.json").write_text(json.dumps(m, ensure_ascii=False), encoding="utf-8")
    found = problems(zh)
    assert found[0] == "missing: 还剩7分 (not in manifest.json)"
    assert any("left_min_7.wav is not used" in n for n in voice.check(str(zh)).notes)


def test_a_stereo_44k_clip_is_a_bad_format(zh):
    write_wav(zh / "count_3.wav", 300, rate=44100, width=2, channels=2)
    found = problems(zh)
    assert any(p.startswith("bad format: count_3.wav: 2 channels") for p in found), found


def test_a_mono_44k_clip_is_a_bad_format_too(zh):
    write_wav(zh / "count_3.wav", 300, rate=44100, width=2)
    assert any("44100 Hz: must be one of 8000, 11025, 16000 Hz" in p for p in problems(zh))


def test_a_non_pcm_or_broken_file_is_a_bad_format(zh):
    data = bytearray((zh / "count_4.wav").read_bytes())
    data[20] = 3  # format tag 3: IEEE float
    (zh / "count_4.wav").write_bytes(bytes(data))
    (zh / "count_6.wav").write_bytes(b"this is not audio")
    found = problems(zh)
    assert "bad format: count_4.wav: format tag 3: must be PCM (1) or IMA ADPCM (17)" in found
    assert "bad format: count_6.wav: not a WAV file" in found


def test_a_clip_too_long_for_its_slot(zh):
    write_wav(zh / "count_5.wav", 900)
    write_wav(zh / "min_1.wav", 700)
    write_wav(zh / "left_min_4.wav", 1400)
    found = [p for p in problems(zh) if p.startswith("too long")]
    assert "too long: 5: 900 ms, must be under 800 ms (the next call comes 1000 ms later)" in found
    assert any(
        p.startswith("too long: 1分 + 还剩4分: 2100 ms, must be under 2000 ms") for p in found
    )


def test_a_manifest_out_of_step_with_its_files(zh):
    m = json.loads((zh / "manifest.json").read_text(encoding="utf-8"))
    m["phrases"]["30秒"]["crc32"] = "00000000"
    m["phrases"]["40秒"]["duration_ms"] += 5
    (zh / "manifest.json").write_text(json.dumps(m, ensure_ascii=False), encoding="utf-8")
    found = problems(zh)
    assert any(p.startswith("manifest: 30秒: crc32 is '00000000'") for p in found)
    assert any(p.startswith("manifest: 40秒: duration_ms") for p in found)


def test_mixed_formats_and_a_pack_too_big(zh):
    write_wav(zh / "count_7.wav", 300, rate=16000, width=2)
    write_wav(zh / "power_resume.wav", 2900, rate=8000)
    big = zh / "filler.wav"  # unused, so not counted: only clips in use count
    write_wav(big, 100)
    found = problems(zh)
    assert any(p.startswith("bad format: the clips mix formats") for p in found)
    for name in os.listdir(zh):
        if name.endswith(".wav") and name != "filler.wav":
            write_wav(zh / name, 700, rate=16000, width=2)
    os.remove(zh / "manifest.json")
    assert any(p.startswith("too big:") for p in problems(zh))


def test_a_recorded_pack_needs_no_manifest(tmp_path):
    # What a user records: one 16-bit WAV per phrase, named as the README says.
    folder = tmp_path / "mine"
    folder.mkdir()
    profile = voice.load_profile("en")
    for phrase in voice.required_phrases(profile):
        ms = 300 if phrase.isdigit() else 600
        write_wav(folder / voice.file_name(phrase, profile), ms, rate=8000, width=2)
    report = voice.check(str(folder), "en")
    assert report.ok, report.problems
    m = voice.build_manifest(str(folder), "en")
    assert m["pack"] == "mine" and m["profile"] == "en" and m["sample_width"] == 2
    assert m["encoding"] == "pcm" and "block_align" not in m
    assert m["phrases"]["last period"]["file"] == "left_periods_1.wav"
    assert m["device"]["battery_low"] == "battery low"
    assert voice.check(str(folder)).profile == "cn"  # no manifest, unknown name: cn
    assert not voice.check(str(folder)).ok


def test_file_names_of_the_shipped_packs_are_the_standard_ones():
    for pack, name in voice.PACK_PROFILES.items():
        profile = voice.load_profile(name)
        with open(os.path.join(SOUNDS, pack, "manifest.json"), encoding="utf-8") as f:
            entries = json.load(f)["phrases"]
        for phrase, entry in entries.items():
            assert entry["file"] == voice.file_name(phrase, profile)
    cn = voice.load_profile("cn")
    assert voice.file_name("还剩4分", cn) == "left_min_4.wav"
    assert voice.file_name("还剩4次", cn) == "left_times_4.wav"
    assert voice.file_name("开始读秒", cn) == "byoyomi_start.wav"
    assert voice.file_name("预设10", cn) == "preset_10.wav"
    assert voice.file_name("unheard of", cn).startswith("phrase_")


def test_check_refuses_what_is_not_a_pack(tmp_path):
    with pytest.raises(GoclockError, match="not a folder"):
        voice.check(str(tmp_path / "nope"))
    (tmp_path / "manifest.json").write_text("{not json")
    with pytest.raises(GoclockError, match="unreadable manifest"):
        voice.check(str(tmp_path))
    with pytest.raises(GoclockError, match="unknown call profile"):
        voice.check(str(SOUNDS + "/zh"), "xx")


def test_push_uploads_the_clips_file_then_the_manifest(zh):
    sent = []

    def put(local, remote):
        with open(local, "rb") as f:
            sent.append((remote, f.read()))

    made = []
    ticks = []
    written = voice.push(str(zh), put, mkdir=made.append, progress=lambda *a: ticks.append(a))
    assert made == ["/sounds", "/sounds/zh"]
    assert [r for r, _ in sent] == written == ["/sounds/zh/clips.bin", "/sounds/zh/manifest.json"]
    assert ticks[-1] == (2, 2, "/sounds/zh/manifest.json")
    clips = dict(sent)["/sounds/zh/clips.bin"]
    pushed = json.loads(sent[-1][1])
    original = json.loads((zh / "manifest.json").read_text(encoding="utf-8"))
    assert pushed["clips"] == "clips.bin"
    assert set(pushed["phrases"]) == set(original["phrases"])
    for phrase, entry in pushed["phrases"].items():
        # Each phrase's "at" is where its own file's samples start in the clips file, and
        # "frames" how many there are; its whole file is in there, before them.
        clip = voice.Clip(str(zh / entry["file"]))
        data = (zh / entry["file"]).read_bytes()
        start = entry["at"] - clip.data_offset
        assert clips[start : start + len(data)] == data, phrase
        assert start % 2 == 0 and entry["frames"] == clip.frames
        rest = dict(entry)
        del rest["at"], rest["frames"]
        assert rest == original["phrases"][phrase]
    # Each clip once: the clips file is the files' sizes (and even-byte padding) at most.
    files = {entry["file"] for entry in pushed["phrases"].values()}
    assert len(clips) <= sum((zh / f).stat().st_size + 1 for f in files)


def test_push_of_a_recorded_pack_makes_its_manifest(tmp_path):
    folder = tmp_path / "voice"
    folder.mkdir()
    profile = voice.load_profile("jp")
    for phrase in voice.required_phrases(profile):
        write_wav(folder / voice.file_name(phrase, profile), 400, rate=11025)
    sent = {}

    def put(local, remote):
        with open(local, "rb") as f:
            sent[remote] = f.read()

    with pytest.raises(GoclockError, match="missing: 5秒"):
        voice.push(str(folder), put)  # no manifest, no profile given: taken for "cn"
    voice.push(str(folder), put, profile_name="jp", remote_dir="/sounds/ja2/")
    m = json.loads(sent["/sounds/ja2/manifest.json"])
    assert m["sample_rate"] == 11025 and m["pack"] == "voice" and m["profile"] == "jp"
    clip = voice.Clip(str(folder / "left_periods_3.wav"))
    data = (folder / "left_periods_3.wav").read_bytes()[clip.data_offset :]
    at = m["phrases"]["残り3回"]["at"]
    assert sent["/sounds/ja2/clips.bin"][at : at + len(data)] == data
    assert m["phrases"]["残り3回"]["frames"] == clip.frames
    assert not (folder / "manifest.json").exists()  # the user's folder is left as it was


def test_push_of_a_bad_pack_uploads_nothing(zh):
    os.remove(zh / "count_9.wav")
    sent = []
    with pytest.raises(GoclockError, match="missing: 9"):
        voice.push(str(zh), lambda local, remote: sent.append(remote))
    assert sent == []


# ----- IMA ADPCM packs (the shipped ones are) -----


def test_an_adpcm_pack_has_its_encoding_in_the_manifest(zh):
    m = voice.build_manifest(str(zh))
    assert (m["encoding"], m["sample_rate"]) == ("ima-adpcm", 16000)
    assert (m["block_align"], m["samples_per_block"]) == (256, 505)
    assert "sample_width" not in m  # 4-bit codes: the width of PCM does not apply
    entry = m["phrases"]["超时判负"]
    with open(zh / "timeout.wav", "rb") as f:
        data = f.read()
    # The duration is the fact chunk's sample count, not the padded blocks' length.
    fact = int.from_bytes(data[data.index(b"fact") + 8 :][:4], "little")
    assert entry["duration_ms"] == round(fact * 1000 / 16000)


def test_adpcm_header_faults_are_named_per_clip(zh):
    good = adpcm_blocks(3, 256, seed=4)
    (zh / "count_1.wav").write_bytes(adpcm_wav_bytes(good, 1200, fact=False))
    (zh / "count_2.wav").write_bytes(adpcm_wav_bytes(good, 1200, align=300))
    (zh / "count_3.wav").write_bytes(adpcm_wav_bytes(good, 1200)[:-300])  # cut short
    (zh / "count_4.wav").write_bytes(adpcm_wav_bytes(good, 0))
    found = problems(zh)
    assert "bad format: count_1.wav: IMA ADPCM without a fact chunk (the clip's length)" in found
    assert "bad format: count_2.wav: IMA ADPCM blocks of 300 bytes: must be 256 or 512" in found
    assert "bad format: count_3.wav: cut short: 1200 samples said, the file holds 922" in found
    assert "bad format: count_4.wav: no sound in it" in found


def test_one_encoding_per_pack(zh):
    # A clip in 512-byte blocks plays, but not in a pack of 256-byte ones; nor PCM at 16 kHz.
    (zh / "count_5.wav").write_bytes(adpcm_wav_bytes(adpcm_blocks(1, 512, seed=2), 900, 512))
    write_wav(zh / "count_6.wav", 300, rate=16000, width=2)
    mixed = [p for p in problems(zh) if "mix formats" in p]
    assert mixed == [
        "bad format: the clips mix formats (16000 Hz IMA ADPCM in 256-byte blocks, 16000 Hz"
        " IMA ADPCM in 512-byte blocks, 16000 Hz 16-bit): use one for all"
    ]


def test_a_recorded_adpcm_pack_in_512_byte_blocks_passes(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    profile = voice.load_profile("en")
    for i, phrase in enumerate(voice.required_phrases(profile)):
        samples = 4000 if phrase.isdigit() else 9000  # 0.25 s, 0.56 s
        data = adpcm_blocks(-(-samples // 1017), 512, seed=i)
        (folder / voice.file_name(phrase, profile)).write_bytes(
            adpcm_wav_bytes(data, samples, align=512)
        )
    report = voice.check(str(folder), "en")
    assert report.ok, report.problems
    m = voice.build_manifest(str(folder), "en")
    assert (m["encoding"], m["block_align"], m["samples_per_block"]) == ("ima-adpcm", 512, 1017)
    assert m["phrases"]["1"]["duration_ms"] == 250
