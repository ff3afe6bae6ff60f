"""The first generator of the voice packs, with espeak-ng and sox (no make target: `make
sounds` runs tools/voice/make_packs.py, which shares this one's slot budgets).

For every phrase a pack needs (goclock.voice.pack.required_phrases: the call profile run over
every period, plus the device notices) this speaks the text of tools/voice/readings.py with
espeak-ng, then with sox: trims the silence around it, cuts rumble and hiss, evens out
loudness (compand, norm), speeds it up (tempo, pitch kept) only when it would not fit its
slot, and writes 8-bit mono PCM (8 kHz for zh: its 66 s of speech would need 1 MB as
16-bit, 540 KB as 8-bit; the players widen 8-bit samples to 16 on the fly). The
slot limits come from goclock.voice.pack.slot_rules, so the clips fit what the profile calls.
Then the pack is checked like any user pack and its manifest.json written.

The output is reproducible: espeak-ng is deterministic, sox runs with -R and no dither
(-D: silence stays silent in 8 bits, no hiss), and the WAV headers are rewritten by
Python's wave module. Run: python -m tools.voice.espeak_packs [PACK ...] (default: all).
"""

import os
import shutil
import subprocess
import sys
import tempfile
import wave

from goclock.voice import pack as voice

from .. import ROOT
from . import readings as sounds_text

SAMPLE_BITS = 8
SAFETY = 0.88  # aim this far under each limit: room for a human re-recording, and for onset
MAX_TEMPO = 1.6  # faster than this is no longer clear speech

PACKS = {
    # Sample rate: zh has 100 clips and must stay under 600 KB, so 8 kHz (telephone band;
    # the tones carry Mandarin numbers); ja and en have 40 and keep 16 kHz, whose
    # fricatives tell "six" from "fix". espeak-ng voice, words per minute (the counts
    # "1".."10" slower: one word fills a second), pitch (0-99), gap between words (10 ms).
    "zh": {
        "profile": "cn",
        "rate": 8000,
        "voice": "cmn-latn-pinyin",
        "speed": 230,
        "count_speed": 160,
        "pitch": 45,
        "gap": 0,
    },
    "ja": {
        "profile": "jp",
        "rate": 16000,
        "voice": "ja",
        "speed": 200,
        "count_speed": 160,
        "pitch": 50,
        "gap": 0,
    },
    "en": {
        "profile": "en",
        "rate": 16000,
        "voice": "en-us",
        "speed": 190,
        "count_speed": 160,
        "pitch": 40,
        "gap": 0,
    },
}


def need(tool):
    if not shutil.which(tool):
        sys.exit("make_sounds: %s is missing: apt-get install -y espeak-ng sox" % tool)


def speak(settings, text, out, speed):
    """espeak-ng's raw rendering of `text` (22.05 kHz), trimmed of silence at both ends."""
    raw = out + ".raw.wav"
    cmd = ["espeak-ng", "-v", settings["voice"], "-s", str(speed)]
    cmd += ["-p", str(settings["pitch"]), "-g", str(settings["gap"]), "-w", raw, text]
    subprocess.run(cmd, check=True)
    # Silence at both ends: below -50 dB, the quiet start of an "s" or "sh" survives.
    trim = ["silence", "1", "0.005", "-50d", "reverse", "silence", "1", "0.005", "-50d", "reverse"]
    subprocess.run(["sox", "-R", raw, out] + trim, check=True)
    os.remove(raw)


def duration_ms(path):
    with wave.open(path, "rb") as w:
        return w.getnframes() * 1000 // w.getframerate()


def finish(src, dst, tempo, rate):
    """Filter, even out, speed up by `tempo`, resample and requantise `src` into `dst`."""
    tmp = dst + ".sox.wav"
    effects = ["gain", "-3", "highpass", "150", "lowpass", str(rate * 45 // 100)]
    if tempo > 1.0:
        effects += ["tempo", "-s", "%.3f" % tempo]
    effects += ["compand", "0.005,0.12", "6:-60,-50,-30,-12,0,-6", "-5", "-60", "0.005"]
    effects += ["fade", "t", "0.004", "-0", "0.012", "norm", "-1", "rate", "-v", str(rate)]
    fmt = [
        "-b",
        str(SAMPLE_BITS),
        "-c",
        "1",
        "-e",
        "unsigned-integer" if SAMPLE_BITS == 8 else "signed-integer",
    ]
    subprocess.run(["sox", "-R", "-D", src] + fmt + [tmp] + effects, check=True)
    # A plain 44-byte PCM header, whatever sox chose to write.
    with wave.open(tmp, "rb") as r:
        params, frames = r.getparams(), r.readframes(r.getnframes())
    with wave.open(dst, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(params.sampwidth)
        w.setframerate(params.framerate)
        w.writeframes(frames)
    os.remove(tmp)


def budgets(profile, natural):
    """The longest each phrase may last (ms): its share of the tightest rule it is in."""
    out = {}
    for rule in voice.slot_rules(profile):
        total = sum(natural[p] for p in rule.phrases)
        for p in rule.phrases:
            share = rule.limit_ms * natural[p] / total
            out[p] = min(out.get(p, share), share)
    return out


def make_pack(name, settings, out_root):
    profile = voice.load_profile(settings["profile"])
    pack_dir = os.path.join(out_root, name)
    os.makedirs(pack_dir, exist_ok=True)
    for old in os.listdir(pack_dir):
        if old.endswith(".wav") or old == "manifest.json":
            os.remove(os.path.join(pack_dir, old))
    phrases = voice.required_phrases(profile)
    with tempfile.TemporaryDirectory() as tmp:
        spoken = {}
        natural = {}
        for i, phrase in enumerate(phrases):
            spoken[phrase] = os.path.join(tmp, "%03d.wav" % i)
            speed = settings["count_speed" if phrase.isdigit() else "speed"]
            speak(settings, sounds_text.TEXT[name](phrase), spoken[phrase], speed)
            natural[phrase] = duration_ms(spoken[phrase])
        limit = budgets(profile, natural)
        sped = []
        for phrase in phrases:
            target = limit[phrase] * SAFETY
            tempo = max(1.0, natural[phrase] / target)
            if tempo > 1.0:
                sped.append("%s x%.2f" % (phrase, tempo))
            if tempo > MAX_TEMPO:
                print("warning: %s %r needs tempo %.2f" % (name, phrase, tempo), file=sys.stderr)
            dst = os.path.join(pack_dir, voice.file_name(phrase, profile))
            finish(spoken[phrase], dst, tempo, settings["rate"])
    manifest = voice.build_manifest(pack_dir, settings["profile"])
    with open(os.path.join(pack_dir, "manifest.json"), "w", encoding="utf-8") as f:
        f.write(voice.manifest_text(manifest))
    report = voice.check(pack_dir)
    total_ms = sum(e["duration_ms"] for e in manifest["phrases"].values())
    print(
        "%s: %d clips, %.1f s of speech, %d bytes; sped up to fit: %s"
        % (
            name,
            len(manifest["phrases"]),
            total_ms / 1000,
            report.total_bytes,
            ", ".join(sped) or "none",
        )
    )
    if not report.ok:
        sys.exit("\n".join(report.lines()))


def main(argv):
    need("espeak-ng")
    need("sox")
    names = argv or sorted(PACKS)
    for name in names:
        if name not in PACKS:
            sys.exit("make_sounds: unknown pack %r (one of %s)" % (name, ", ".join(sorted(PACKS))))
        make_pack(name, PACKS[name], os.path.join(ROOT, "sounds"))


if __name__ == "__main__":
    main(sys.argv[1:])
