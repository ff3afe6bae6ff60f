"""Try voices for a pack and score each with the listening test, as the clock would play it.

Every candidate is rendered like make_packs.py does (trim, fit to the slots, 16 kHz),
encoded as IMA ADPCM and decoded by the firmware decoder, then transcribed. Prints one line per candidate and, with --json, keeps every
transcription. A candidate is VOICE[+VOICE2:WEIGHT][@SPEED], e.g. zm_yunxi@1.1 (Kokoro's speed),
zm_yunxi~1.2 (sox tempo for every clip),
zm_yunxi#0.8 (Kokoro's speed for the counts), zm_yunxi, (a comma
before a preset's number) or zm_yunxi+zf_xiaoxiao:0.3; the engine is the pack's unless VOICE is mei_normal (Open JTalk).

Run: python -m tools.voice.tune PACK CANDIDATE [CANDIDATE ...] [--json OUT]
"""

import argparse
import copy
import json
import os
import re
import sys
import tempfile
import time

from . import listen, make_packs
from .make_packs import voice


def parse(candidate, base):
    settings = copy.deepcopy(base)
    if candidate.endswith(","):
        settings["preset_pause"] = True
        candidate = candidate[:-1]
    candidate, _, count_speed = candidate.partition("#")
    if count_speed:  # the counts at this synthesizer speed, without the pack's tempo
        settings["count_speed"] = float(count_speed)
        settings["count_tempo"] = 1.0
    candidate, _, tempo = candidate.partition("~")
    if tempo:
        settings["tempo"] = float(tempo)
    name, _, speed = candidate.partition("@")
    if speed:
        settings["speed"] = float(speed)
    if "+" in name:
        first, second = name.split("+")
        other, weight = second.split(":")
        settings["voice"] = {first: 1.0 - float(weight), other: float(weight)}
    else:
        settings["voice"] = name
    settings["engine"] = "openjtalk" if name.startswith("mei_") else "kokoro"
    return settings


def render_pack(pack, settings, tmp, only=None):
    """{phrase: 16 kHz float32 samples} of the pack (or of the phrases matching `only`),
    fitted to its slots."""
    profile = voice.load_profile(settings["profile"])
    phrases = voice.required_phrases(profile)
    rendered = {p: make_packs.render(pack, p, settings, tmp) for p in phrases}
    limit = make_packs.make_sounds.budgets(profile, {p: r[1] for p, r in rendered.items()})
    clips, seconds, worst, fastest = {}, 0.0, 1.0, "-"
    for phrase in phrases:
        if only and not re.fullmatch(only, phrase):
            continue
        path, natural, _ = rendered[phrase]
        base = make_packs.pack_tempo(settings, phrase)
        tempo = base * max(1.0, natural / (limit[phrase] * make_packs.SAFETY))
        if tempo > worst:
            worst, fastest = tempo, phrase
        if tempo > base:
            path = make_packs.render(pack, phrase, settings, tmp, tempo=tempo)[0]
        out = path + ".adpcm.wav"
        make_packs.to_adpcm(path, out)
        clips[phrase] = listen.load_16k(out)
        seconds += make_packs.wavio.adpcm_info(out)[3] / make_packs.RATE
    return clips, seconds, "%.2f (%s)" % (worst, fastest)


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("pack")
    ap.add_argument("candidates", nargs="+")
    ap.add_argument("--json")
    ap.add_argument("--only", help="score only the phrases matching this regular expression")
    args = ap.parse_args(argv)
    base = make_packs.PACKS[args.pack]
    listener = listen.Listener()
    lang = listen.LANGS[base["profile"]]
    kept = {}
    if args.json and os.path.exists(args.json):
        with open(args.json, encoding="utf-8") as f:
            kept = json.load(f)
    for candidate in args.candidates:
        t0 = time.time()
        settings = parse(candidate, base)
        with tempfile.TemporaryDirectory() as tmp:
            clips, seconds, worst = render_pack(args.pack, settings, tmp, args.only)
        phrases = voice.required_phrases(voice.load_profile(base["profile"]))
        results = listen.score_clips(listener, lang, clips, phrases)
        s = listen.summary(results)
        c, e, n = s["all"]
        cc, ce, cn = s["counts"]
        print(
            "%s %-32s closed %5.1f %% exact %5.1f %% | counts %d/%d | %.1f s speech, tempo <= %s"
            " (%.0f s)"
            % (
                args.pack,
                candidate,
                listen.pct(c, n),
                listen.pct(e, n),
                cc,
                cn,
                seconds,
                worst,
                time.time() - t0,
            )
        )
        sys.stdout.flush()
        kept[candidate] = {
            "seconds": seconds,
            "tempo": worst,
            "results": results,
        }
        if args.json:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump(kept, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
