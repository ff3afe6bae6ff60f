"""Generate the voice packs in sounds/ with neural voices (`make sounds`).

For every phrase a pack needs (goclock.voice.required_phrases) this
  1. speaks it with Kokoro-82M (tools/voice/kokoro.py) from the phonemes of
     tools/voice/texts.py (engine "openjtalk", the HTS voice "Mei" of pyopenjtalk-plus,
     stays available for Japanese: it scored lower, see docs/voices.md);
  2. trims the silence around it (frames 45 dB under the clip's loudest, 10 ms kept
     before and 30 ms after), then with sox: cuts below 100 Hz, speeds it up (tempo,
     pitch kept) only when it would not fit its slot, evens the level (norm -1 dB) and
     resamples to 16 kHz;
  3. writes it twice:
     - sounds/adpcm/<pack>/: 16 kHz IMA ADPCM (tag 0x11, 256-byte blocks, 505 samples a
       block), the packs' format once the players decode it (firmware/goclockfw/audio/
       adpcm.py); its manifest.json says "encoding": "ima-adpcm";
     - sounds/<pack>/: the same clips as 8-bit PCM (8 kHz for zh, 16 kHz for ja and en),
       what today's players and `goclock voice check` accept, within 600 KB.
The slot limits come from goclock.voice.slot_rules, shared out as tools/make_sounds.py
does. A pack's LICENSE/CREDITS files name the voice and its licence.

The output is reproducible: the models run on the CPU with fixed inputs, sox runs with -R
and no dither. Run: python tools/voice/make_packs.py [PACK ...] (default: all).
"""

import os
import shutil
import subprocess
import sys
import tempfile
import wave
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "host"))

import credits  # noqa: E402
import texts  # noqa: E402
import wavio  # noqa: E402

import make_sounds  # noqa: E402
from goclock import voice  # noqa: E402

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
        "pcm_rate": 8000,
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
        "count_speed": 0.9,  # the counts a little slower, and without the pack's tempo
        "count_tempo": 1.0,
        "pcm_rate": 16000,
        "voices": {},
    },
    "en": {
        "profile": "en",
        "engine": "kokoro",
        "voice": "af_heart",
        "speed": 1.0,  # the synthesizer's own speed
        "tempo": 1.0,  # then sox's tempo (pitch kept), for every clip
        "pcm_rate": 16000,
        "voices": {},
    },
}


def need(tool):
    if not shutil.which(tool):
        sys.exit("make_packs: %s is missing: apt-get install -y sox" % tool)


def speak(pack, phrase, engine, voice_name, speed, preset_pause=False):
    """(float32 samples, rate) of the raw synthesis."""
    if engine == "kokoro":
        import kokoro

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


def to_pcm8(src, dst, rate):
    tmp = dst + ".sox.wav"
    cmd = ["sox", "-R", "-D", src, "-b", "8", "-e", "unsigned-integer", tmp]
    if rate != RATE:
        cmd += ["lowpass", str(rate * 45 // 100), "rate", "-v", str(rate)]
    subprocess.run(cmd, check=True)
    with wave.open(tmp, "rb") as r:
        params, frames = r.getparams(), r.readframes(r.getnframes())
    with wave.open(dst, "wb") as w:  # a plain 44-byte header, whatever sox wrote
        w.setnchannels(1)
        w.setsampwidth(1)
        w.setframerate(params.framerate)
        w.writeframes(frames)
    os.remove(tmp)


def duration_ms(path):
    with wave.open(path, "rb") as w:
        return w.getnframes() * 1000 // w.getframerate()


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


def adpcm_manifest(pack_dir, name, profile_name, files):
    """The manifest of an ADPCM pack: like goclock.voice's, plus the encoding."""
    phrases = {}
    for phrase, fname in files.items():
        path = os.path.join(pack_dir, fname)
        rate, align, per_block, samples = wavio.adpcm_info(path)
        with open(path, "rb") as f:
            crc = "%08x" % zlib.crc32(f.read())
        phrases[phrase] = {
            "file": fname,
            "duration_ms": (samples * 1000 + rate // 2) // rate,
            "sample_rate": rate,
            "crc32": crc,
        }
    return {
        "format": 1,
        "pack": name,
        "profile": profile_name,
        "sample_rate": RATE,
        "sample_width": 2,
        "encoding": "ima-adpcm",
        "block_align": ADPCM_BLOCK,
        "samples_per_block": 505,
        "device": voice.device_phrases(profile_name),
        "phrases": phrases,
    }


def clear(pack_dir):
    os.makedirs(pack_dir, exist_ok=True)
    for old in os.listdir(pack_dir):
        if old.endswith(".wav") or old in ("manifest.json", "LICENSE", "CREDITS"):
            os.remove(os.path.join(pack_dir, old))


def make_pack(name, settings, sounds):
    profile = voice.load_profile(settings["profile"])
    phrases = voice.required_phrases(profile)
    pcm_dir = os.path.join(sounds, name)
    adpcm_dir = os.path.join(sounds, "adpcm", name)
    clear(pcm_dir)
    clear(adpcm_dir)
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
            to_adpcm(path, os.path.join(adpcm_dir, fname))
            to_pcm8(path, os.path.join(pcm_dir, fname), settings["pcm_rate"])
    write_manifest(pcm_dir, voice.build_manifest(pcm_dir, settings["profile"]))
    write_manifest(adpcm_dir, adpcm_manifest(adpcm_dir, name, settings["profile"], files))
    for d in (pcm_dir, adpcm_dir):
        credits.write(d, name, settings, sped)
    report = voice.check(pcm_dir)
    adpcm_bytes = sum(os.path.getsize(os.path.join(adpcm_dir, f)) for f in os.listdir(adpcm_dir))
    total_ms = sum(duration_ms(os.path.join(pcm_dir, f)) for f in files.values())
    print(
        "%s: %d clips, %.1f s of speech; ADPCM %d bytes, PCM %d bytes; sped up: %s"
        % (
            name,
            len(files),
            total_ms / 1000,
            adpcm_bytes,
            report.total_bytes,
            ", ".join(sped) or "none",
        )
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
