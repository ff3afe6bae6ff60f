"""What the speech synthesizer is given for each phrase of each pack.

The phrases are the exact strings of the call profiles and of the device notices; the
synthesizer reads something else: Mandarin as tone-numbered pinyin (espeak-ng's
cmn-latn-pinyin voice; its character dictionary reads many hanzi wrongly), Japanese as
kana with long vowels marked "ー" (espeak-ng's ja voice reads kana only), English as words.
Spelling the readings out is also where a speaker's choices go: "还剩2分" is said
"还剩两分", and 一 changes its tone before another syllable, as people say it.

Every function raises KeyError for a phrase it does not know, so a new phrase in a profile
cannot slip into a pack unheard.
"""

import re

_ZH_DIGITS = ["", "yi1", "er4", "san1", "si4", "wu3", "liu4", "qi1", "ba1", "jiu3"]


def zh_number(n):
    """Pinyin of 1..99 as counted ("二十一" = "er4 shi2 yi1")."""
    if not 0 < n < 100:
        raise KeyError(n)
    tens, units = divmod(n, 10)
    words = []
    if tens:
        if tens > 1:
            words.append(_ZH_DIGITS[tens])
        words.append("shi2")
    if units:
        words.append(_ZH_DIGITS[units])
    return " ".join(words)


def _zh_amount(n, next_tone):
    # 2 of something is 两; 一 takes tone 2 before a 4th tone, tone 4 before the others.
    if n == 2:
        return "liang3"
    if n == 1:
        return "yi2" if next_tone == 4 else "yi4"
    return zh_number(n)


_ZH_FIXED = {
    "1分": "yi4 fen1",
    "开始读秒": "kai1 shi3 du2 miao3",
    "超时判负": "chao1 shi2 pan4 fu4",
    "暂停": "zan4 ting2",
    "继续": "ji4 xu4",
    "断电恢复，对局已暂停": "duan4 dian4 hui1 fu4, dui4 ju2 yi3 zan4 ting2",
    "电量低": "dian4 liang4 di1",
    "超时改判虚着": "chao1 shi2 gai3 pan4 xu1 zhao1",
    "重新开局": "chong2 xin1 kai1 ju2",
    "取消": "qu3 xiao1",
    "再按确认": "zai4 an4 que4 ren4",
    "迟到登记": "chi2 dao4 deng1 ji4",
    "已记迟到": "yi3 ji4 chi2 dao4",
    "到场": "dao4 chang3",
    "维护模式": "wei2 hu4 mo2 shi4",
}


def zh(phrase):
    if phrase in _ZH_FIXED:
        return _ZH_FIXED[phrase]
    if phrase.isdigit():
        return zh_number(int(phrase))
    m = re.fullmatch(r"(\d+)秒", phrase)
    if m:
        return zh_number(int(m.group(1))) + " miao3"
    m = re.fullmatch(r"还剩(\d+)([分次])", phrase)
    if m:
        n, unit = int(m.group(1)), m.group(2)
        word, tone = ("fen1", 1) if unit == "分" else ("ci4", 4)
        return "hai2 sheng4 %s %s" % (_zh_amount(n, tone), word)
    m = re.fullmatch(r"预设(\d+)", phrase)
    if m:
        return "yu4 she4 " + zh_number(int(m.group(1)))
    m = re.fullmatch(r"共罚(\d+)点", phrase)
    if m:
        return "gong4 fa2 %s dian3" % _zh_amount(int(m.group(1)), 3)
    raise KeyError(phrase)


_JA_DIGITS = ["", "いち", "に", "さん", "よん", "ご", "ろく", "なな", "はち", "きゅー"]
_JA_TIMES = ["", "いっかい", "にかい", "さんかい", "よんかい", "ごかい"]
_JA_TIMES += ["ろっかい", "ななかい", "はっかい", "きゅーかい"]


def ja_number(n):
    """Kana of 1..99 ("21" = "にじゅーいち")."""
    if not 0 < n < 100:
        raise KeyError(n)
    tens, units = divmod(n, 10)
    out = ""
    if tens:
        out = (_JA_DIGITS[tens] if tens > 1 else "") + "じゅー"
    return out + _JA_DIGITS[units]


_JA_FIXED = {
    "秒読みです": "びょーよみです",
    "時間切れ": "じかんぎれ",
    "一時停止": "いちじ てーし",
    "再開": "さいかい",
    "電源復帰、対局は停止中": "でんげん ふっき、 たいきょくわ てーしちゅー",
    "電池残量低下": "でんち ざんりょー てーか",
    "時間切れはパス扱い": "じかんぎれわ パスあつかい",
    "リセット": "りせっと",
    "取り消し": "とりけし",
    "もう一度押して確定": "もーいちど おして かくてー",  # もう: a long o, not mo-u
    "遅刻の登録": "ちこくの とーろく",
    "遅刻を記録": "ちこくを きろく",
    "到着": "とーちゃく",
    "メンテナンス": "めんてなんす",
}


def ja(phrase):
    if phrase in _JA_FIXED:
        return _JA_FIXED[phrase]
    if phrase.isdigit():
        return ja_number(int(phrase))
    m = re.fullmatch(r"(\d+)秒", phrase)
    if m:
        return ja_number(int(m.group(1))) + "びょー"
    m = re.fullmatch(r"残り(\d)回", phrase)
    if m and m.group(1) != "0":
        return "のこり " + _JA_TIMES[int(m.group(1))]
    m = re.fullmatch(r"プリセット(\d+)", phrase)
    if m:
        return "プリセット " + ja_number(int(m.group(1)))
    m = re.fullmatch(r"ペナルティ(\d+)目", phrase)
    if m:
        return "ぺなるてぃ " + ja_number(int(m.group(1))) + "もく"
    raise KeyError(phrase)


_EN_FIXED = {
    # espeak-ng says "by-oh-yomi"; the phoneme string gives the Japanese "byo".
    "byo-yomi": "[[bj'oUj'oUmi]]",
    "out of time": "out of time",
    "last period": "last period",
    "paused": "paused",
    "resumed": "resumed",
    "power restored, game paused": "power restored, game paused",
    "battery low": "battery low",
    "timeout ruled a pass": "time out, ruled a pass",
    "new game": "new game",
    "cancelled": "cancelled",
    "again to confirm": "again to confirm",
    "who is late?": "who is late?",
    "late noted": "late noted",
    "arrived": "arrived",
    "maintenance": "maintenance",
}


def en(phrase):
    if phrase in _EN_FIXED:
        return _EN_FIXED[phrase]
    if phrase.isdigit() or re.fullmatch(
        r"\d+ (seconds|periods left|penalty points?)|preset \d+", phrase
    ):
        return phrase
    raise KeyError(phrase)


TEXT = {"zh": zh, "ja": ja, "en": en}
