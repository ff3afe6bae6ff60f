"""The shipped packs as made by tools/voice/make_packs.py: their licence, their manifest as
`goclock voice push` would write it, and readings the synthesizer was given.

What `goclock voice check` checks of them (every phrase, every slot, 600 KB, the manifest
against the files) is in test_sounds.py; the decoding of every clip against sox in
test_voice_adpcm.py.
"""

import json
import os

import pytest

from conftest import REPO
from goclock.voice import pack as voice

SOUNDS = os.path.join(REPO, "sounds")
PACKS = {"zh": "cn", "ja": "jp", "en": "en"}


@pytest.mark.parametrize("pack", sorted(PACKS))
def test_each_pack_states_its_licence(pack):
    folder = os.path.join(SOUNDS, pack)
    with open(os.path.join(folder, "CREDITS"), encoding="utf-8") as f:
        credits = f.read()
    with open(os.path.join(folder, "LICENSE"), encoding="utf-8") as f:
        licence = f.read()
    assert "Kokoro-82M" in credits and "Licence:" in credits and "Training data" in credits
    assert "Apache License 2.0" in licence


@pytest.mark.parametrize("pack", sorted(PACKS))
def test_the_manifest_is_the_one_voice_push_would_write(pack):
    folder = os.path.join(SOUNDS, pack)
    with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as f:
        text = f.read()
    made = voice.build_manifest(folder)
    assert text == voice.manifest_text(made)
    assert json.loads(text)["encoding"] == "ima-adpcm"


def test_readings_given_to_the_synthesizer():
    from tools.voice import readings

    # 虚着 (a pass) is xū zhāo; the synthesizer is given the reading, not the characters.
    assert readings.zh("超时改判虚着").endswith("xu1 zhao1")
    assert readings.zh("共罚2点") == "gong4 fa2 liang3 dian3"  # 两 for two of a thing
    assert readings.ja("もう一度押して確定").startswith("もー")  # a long o, not mo-u
