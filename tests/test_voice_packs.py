"""The 16 kHz IMA ADPCM packs in sounds/adpcm/ (made by tools/voice/make_packs.py).

`goclock voice check` does not read ADPCM yet, so these tests check what it checks for the
PCM packs: every phrase has a clip (but the ones main added since the packs were made:
MADE_SINCE), the manifest matches the files, every clip fits its slot
(goclock.voice.slot_rules), the pack fits 600 KB, and a LICENSE and CREDITS in each.
"""

import json
import os
import struct
import sys
import zlib

import pytest

from conftest import REPO
from goclock import voice
from goclockfw.audio import adpcm

SOUNDS = os.path.join(REPO, "sounds")
PACKS = {"zh": "cn", "ja": "jp", "en": "en"}
# Device notices and penalty calls main added after these packs were generated: the merge
# brings them as espeak clips in the live packs (sounds/<pack>/) only, until they are made.
MADE_SINCE = {"confirm", "late", "late_marked", "arrive", "maintenance"}
PENALTY = {"cn": "共罚%d点", "jp": "ペナルティ%d目", "en": "%d penalty points"}


def manifest(folder):
    with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as f:
        return json.load(f)


def wav_chunks(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:4] == b"RIFF" and data[8:12] == b"WAVE"
    assert struct.unpack_from("<I", data, 4)[0] == len(data) - 8, path
    out, pos = {}, 12
    while pos + 8 <= len(data):
        ident, size = struct.unpack_from("<4sI", data, pos)
        out[ident] = data[pos + 8 : pos + 8 + size]
        pos += 8 + size + (size & 1)
    return data, out


@pytest.mark.parametrize("pack", sorted(PACKS))
def test_adpcm_manifest_matches_the_files(pack):
    folder = os.path.join(SOUNDS, "adpcm", pack)
    m = manifest(folder)
    assert (m["pack"], m["profile"], m["encoding"]) == (pack, PACKS[pack], "ima-adpcm")
    assert (m["sample_rate"], m["block_align"], m["samples_per_block"]) == (16000, 256, 505)
    for phrase, entry in m["phrases"].items():
        data, c = wav_chunks(os.path.join(folder, entry["file"]))
        rate, align, per_block = adpcm.parse_fmt(c[b"fmt "])
        assert (rate, align, per_block) == (16000, 256, 505), phrase
        samples = struct.unpack("<I", c[b"fact"][:4])[0]
        blocks = -(-len(c[b"data"]) // align)
        assert (blocks - 1) * per_block < samples <= blocks * per_block, phrase
        assert entry["duration_ms"] == (samples * 1000 + 8000) // 16000, phrase
        assert entry["crc32"] == "%08x" % zlib.crc32(data), phrase
    on_disk = {n for n in os.listdir(folder) if n.endswith(".wav")}
    assert on_disk == {e["file"] for e in m["phrases"].values()}


@pytest.mark.parametrize("pack", sorted(PACKS))
def test_adpcm_pack_has_every_phrase_and_fits_every_slot_and_600_kb(pack):
    folder = os.path.join(SOUNDS, "adpcm", pack)
    m = manifest(folder)
    profile = voice.load_profile(PACKS[pack])
    device = voice.device_phrases(PACKS[pack])
    new = {device[k] for k in MADE_SINCE} | {PENALTY[PACKS[pack]] % n for n in (2, 4, 6)}
    assert set(m["phrases"]) == set(voice.required_phrases(profile)) - new
    assert m["device"] == {k: v for k, v in device.items() if k not in MADE_SINCE}
    d = {p: e["duration_ms"] for p, e in m["phrases"].items()}
    for rule in voice.slot_rules(profile):
        if not set(rule.phrases) & new:
            assert sum(d[p] for p in rule.phrases) < rule.limit_ms, rule
    total = sum(os.path.getsize(os.path.join(folder, n)) for n in os.listdir(folder))
    assert total <= voice.PACK_LIMIT_BYTES


@pytest.mark.parametrize("pack", sorted(PACKS))
def test_each_adpcm_pack_states_its_licence(pack):
    folder = os.path.join(SOUNDS, "adpcm", pack)
    with open(os.path.join(folder, "CREDITS"), encoding="utf-8") as f:
        credits = f.read()
    with open(os.path.join(folder, "LICENSE"), encoding="utf-8") as f:
        licence = f.read()
    assert "Licence:" in credits and "Training data" in credits
    assert "Apache License 2.0" in licence or "Creative Commons Attribution" in licence


def test_timeout_pass_is_read_xu_zhao():
    # 虚着 (a pass) is xū zhāo; the synthesizer is given the reading, not the characters.
    sys.path.insert(0, os.path.join(REPO, "tools"))
    try:
        import sounds_text
    finally:
        sys.path.remove(os.path.join(REPO, "tools"))
    assert sounds_text.zh("超时改判虚着").endswith("xu1 zhao1")
