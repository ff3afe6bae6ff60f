"""Generate the voice packs in sounds/ with neural voices (`make sounds`).

For every phrase a pack needs (goclock.voice.pack.required_phrases) this
  1. speaks it with Kokoro-82M (tools/voice/kokoro.py) from the phonemes of
     tools/voice/texts.py (engine "openjtalk", the HTS voice "Mei" of pyopenjtalk-plus,
     stays available for Japanese: it scored lower, see docs/voices.md);
  2. trims the silence around it (frames 45 dB under the clip's loudest, 10 ms kept
     before and 30 ms after), then with sox: cuts below 100 Hz, speeds it up (tempo,
     pitch kept) only when it would not fit its slot, evens the level (norm -1 dB) and
     resamples to 16 kHz;
  3. writes it into sounds/<pack>/ as 16 kHz IMA ADPCM (tag 0x11, 256-byte blocks, 505
     samples a block), which the players decode (firmware/goclockfw/audio/adpcm.py).
The manifest is goclock.voice.pack.build_manifest's (it checks the pack as `goclock voice
check` does: every phrase, every slot, 600 KB). The slot limits come from
goclock.voice.pack.slot_rules, shared out as tools/voice/espeak_packs.py does. A pack's
LICENSE/CREDITS files name the voice and its licence.

The output is reproducible: the models run on the CPU with fixed inputs, sox runs with -R
and no dither. Run: python -m tools.voice.make_packs [PACK ...] (default: all).
"""

import os
import shutil
import subprocess
import sys
import tempfile
import wave
import zlib

import numpy as np

from goclock.voice import pack as voice

from .. import ROOT
from . import credits, texts, wavio
from . import espeak_packs as make_sounds

RATE = 16000
SAFETY = 0.9  # aim this far under each slot limit
MAX_TEMPO = 1.6  # faster than this is no longer clear speech: the pack is refused
ADPCM_BLOCK = 256

PACKS = {
    "zh": {
        "profile": "cn",
        "engine": "kokoro",
        "voice": "zm_yunxi",
        "speed": 1.0,  # the synthesizer's own speed
        "tempo": 1.15,  # then sox's tempo (pitch kept), for every clip
        # phrase -> another voice for that phrase: zm_yunxi's 8秒, 9秒 and 17秒 were heard
        # as 翻证, 修秒 and 十几秒; zm_yunyang's (another man's voice) were heard right.
        "voices": {"8秒": "zm_yunyang", "9秒": "zm_yunyang", "17秒": "zm_yunyang"},
    },
    "ja": {
        "profile": "jp",
        "engine": "kokoro",
        "voice": "jf_alpha",
        "speed": 1.0,  # the synthesizer's own speed
        "tempo": 1.25,  # then sox's tempo (pitch kept), for every clip
        # The counts at the synthesizer's own pace, without the pack's tempo: short as they
        # are, a second apart, they need no hurry (docs/voices.md: speed 0.9 was tried).
        "count_speed": 1.0,
        "count_tempo": 1.0,
        # jf_alpha's 到着 was heard as どうぞ (or 動作) at tempo 1.0, 1.1 and 1.25 and at speed
        # 0.9, as near to other phrases as to its own; jf_gongitsune's (another woman's
        # voice) as どうじゃぐ, nearest to 到着 (docs/voices.md).
        "voices": {"到着": "jf_gongitsune"},
    },
    "en": {
        "profile": "en",
        "engine": "kokoro",
        "voice": "af_heart",
        "speed": 1.0,  # the synthesizer's own speed
        "tempo": 1.0,  # then sox's tempo (pitch kept), for every clip
        "voices": {},
    },
}


def need(tool):
    if not shutil.which(tool):
        sys.exit("make_packs: %s is missing: apt-get install -y sox" % tool)


def speak(pack, phrase, engine, voice_name, speed, preset_pause=False):
    """(float32 samples, rate) of the raw synthesis."""
    if engine == "kokoro":
        from . import kokoro

        phonemes = texts.PHONEMES[pack](phrase)
        if preset_pause:
            phonemes = texts.preset_pause(pack, phrase, phonemes)
        return kokoro.synth(phonemes, voice_name, speed), kokoro.SAMPLE_RATE
    if engine == "openjtalk":
        import pyopenjtalk

        # "mei_normal": the kana of sounds_text; "mei_phrase": the phrase itself (Open JTalk
        # reads the kanji and places the accents by its dictionary).
        text = phrase if voice_name == "mei_phrase" else texts.ja_kana(phrase)
        audio, rate = pyopenjtalk.tts(text, speed=speed)
        audio = np.asarray(audio, np.float32)
        return audio * (0.9 / max(1.0, float(np.abs(audio).max()))), rate
    raise ValueError(engine)


def trim(audio, rate, floor_db=-45.0, lead_ms=10, tail_ms=30):
    """The audio between the first and last 5 ms frame within `floor_db` of the loudest."""
    frame = max(1, rate // 200)
    n = len(audio) // frame
    if n == 0:
        return audio
    rms = np.sqrt(np.mean(audio[: n * frame].reshape(n, frame) ** 2, axis=1) + 1e-12)
    loud = np.nonzero(20 * np.log10(rms / rms.max()) > floor_db)[0]
    start = max(0, loud[0] * frame - rate * lead_ms // 1000)
    end = min(len(audio), (loud[-1] + 1) * frame + rate * tail_ms // 1000)
    return audio[start:end]


def write_wav16(path, audio, rate):
    pcm = (np.clip(audio, -1.0, 1.0) * 32767.0).round().astype("<i2")
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())


def finish(src, dst, tempo):
    """sox: highpass, tempo, level, 16 kHz 16-bit."""
    effects = ["gain", "-3", "highpass", "100"]
    if tempo > 1.0:
        effects += ["tempo", "-s", "%.3f" % tempo]
    effects += ["norm", "-1", "rate", "-v", str(RATE), "fade", "t", "0.003", "-0", "0.010"]
    cmd = ["sox", "-R", "-D", src, "-b", "16", "-e", "signed-integer", dst] + effects
    subprocess.run(cmd, check=True)


def to_adpcm(src, dst):
    cmd = ["sox", "-R", "-D", src, "-e", "ima-adpcm", "-b", "4", dst]
    subprocess.run(cmd, check=True)
    rate, align, per_block, _ = wavio.adpcm_info(dst)
    if (rate, align, per_block) != (RATE, ADPCM_BLOCK, 505):
        raise RuntimeError("%s: sox wrote %d Hz, %d-byte blocks" % (dst, rate, align))


def pack_tempo(settings, phrase):
    """sox's tempo for `phrase` before any slot asks for more (counts have their own)."""
    if phrase.isdigit():
        return settings.get("count_tempo", settings["tempo"])
    return settings["tempo"]


def render(pack, phrase, settings, tmp, tempo=1.0):
    """The finished 16 kHz 16-bit clip of `phrase` in `tmp`; (path, natural_ms, tempo).

    natural_ms is the trimmed synthesis' length at the pack's own tempo; `tempo` (for
    the slot) applies when faster than the pack's. The synthesis is kept in `tmp`."""
    raw = os.path.join(tmp, "raw-%08x.wav" % zlib.crc32(phrase.encode()))
    if not os.path.exists(raw):
        voice_name = settings["voices"].get(phrase, settings["voice"])
        speed = settings["speed"]
        if phrase.isdigit():
            speed = settings.get("count_speed", speed)
        pause = settings.get("preset_pause", False)
        audio, rate = speak(pack, phrase, settings["engine"], voice_name, speed, pause)
        write_wav16(raw, trim(audio, rate), rate)
    base = pack_tempo(settings, phrase)
    with wave.open(raw, "rb") as w:
        natural = w.getnframes() * 1000 / w.getframerate() / base
    tempo = max(tempo, base)
    out = raw.replace("raw-", "fin-%.3f-" % tempo)
    finish(raw, out, tempo)
    return out, natural, tempo


def clear(pack_dir):
    os.makedirs(pack_dir, exist_ok=True)
    for old in os.listdir(pack_dir):
        if old.endswith(".wav") or old in ("manifest.json", "LICENSE", "CREDITS"):
            os.remove(os.path.join(pack_dir, old))


def make_pack(name, settings, sounds):
    profile = voice.load_profile(settings["profile"])
    phrases = voice.required_phrases(profile)
    pack_dir = os.path.join(sounds, name)
    clear(pack_dir)
    files = {}
    sped = []
    with tempfile.TemporaryDirectory() as tmp:
        rendered = {p: render(name, p, settings, tmp) for p in phrases}
        natural = {p: r[1] for p, r in rendered.items()}
        limit = make_sounds.budgets(profile, natural)
        for phrase in phrases:
            path, nat, tempo = rendered[phrase]
            base = pack_tempo(settings, phrase)
            tempo = base * max(1.0, nat / (limit[phrase] * SAFETY))
            if tempo > base:
                path = render(name, phrase, settings, tmp, tempo=tempo)[0]
                sped.append("%s x%.2f" % (phrase, tempo))
            if tempo > MAX_TEMPO:
                sys.exit("make_packs: %s %r needs tempo %.2f" % (name, phrase, tempo))
            fname = voice.file_name(phrase, profile)
            files[phrase] = fname
            to_adpcm(path, os.path.join(pack_dir, fname))
    # build_manifest checks the pack as `goclock voice check` does, and stops on a problem.
    write_manifest(pack_dir, voice.build_manifest(pack_dir, settings["profile"]))
    credits.write(pack_dir, name, settings, sped)
    report = voice.check(pack_dir)
    samples = sum(wavio.adpcm_info(os.path.join(pack_dir, f))[3] for f in files.values())
    print(
        "%s: %d clips, %.1f s of speech, %d bytes; sped up: %s"
        % (name, len(files), samples / RATE, report.total_bytes, ", ".join(sped) or "none")
    )
    if not report.ok:
        sys.exit("\n".join(report.lines()))


def write_manifest(pack_dir, manifest):
    with open(os.path.join(pack_dir, "manifest.json"), "w", encoding="utf-8") as f:
        f.write(voice.manifest_text(manifest))


def main(argv):
    need("sox")
    names = argv or sorted(PACKS)
    for name in names:
        if name not in PACKS:
            sys.exit("make_packs: unknown pack %r (one of %s)" % (name, ", ".join(sorted(PACKS))))
        make_pack(name, PACKS[name], os.path.join(ROOT, "sounds"))


if __name__ == "__main__":
    main(sys.argv[1:])
