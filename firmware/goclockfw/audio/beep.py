"""The beep profile: tone patterns for boards with a buzzer and no speaker.

`pattern(phrase)` maps any call of the "cn", "jp" or "en" profile, or a device notice
("pause", "resume", "power_resume", "battery_low", "timeout_pass", "preset_3"), to a tuple
of (freq_hz, ms) steps, freq 0 being a rest. Pure: no hardware here; audio/player_pwm.py (or
audio/player_i2s.py) plays the patterns. Each pattern fits the slot of its call, like a clip:

- a count ("1" ... "9"): one short tick; "10": one long tone;
- tens of seconds ("30秒", "30 seconds"): one pip per ten; other seconds ("55秒",
  "58秒"): a quick high double pip;
- a period used up: a low tone for "1分", then the periods left as pips, five
  making one long pip (4 = 4 short, 7 = 1 long + 2 short); presets the same way;
- byo-yomi begins: three rising tones; lost on time: one long low tone.

An unknown phrase gets one short blip: the player never stays silent by mistake and
never fails. Patterns are built once per phrase and cached.
"""

TICK = 1000  # Hz of the counts
HIGH = 1500
LOW = 660

_START = ("开始读秒", "秒読みです", "byo-yomi")
_TIMEOUT = ("超时判负", "時間切れ", "out of time")
_DEVICE = {
    "pause": ((880, 120), (LOW, 160)),
    "resume": ((LOW, 120), (880, 160)),
    "power_resume": ((880, 100), (0, 60), (880, 100), (0, 60), (LOW, 300)),
    "battery_low": ((330, 150), (0, 100), (330, 150), (0, 100), (330, 150)),
    "timeout_pass": ((LOW, 150), (0, 80), (440, 400)),
    "confirm": ((HIGH, 80), (0, 80), (HIGH, 80), (0, 80), (HIGH, 80)),
    "late": ((LOW, 200), (0, 80), (880, 200)),
    "late_marked": ((880, 100), (0, 60), (880, 100)),
    "arrive": ((660, 100), (0, 40), (880, 100), (0, 40), (HIGH, 150)),
    "maintenance": ((330, 600),),
    # A player calls the arbiter (app/gestures.py): no pack has words for it yet.
    "arbiter_call": ((HIGH, 120), (LOW, 120), (HIGH, 120), (LOW, 120), (HIGH, 240)),
}
_BLIP = ((TICK, 60),)
_cache = {}


def _digits(phrase):
    """The number written in `phrase`, or -1."""
    n = -1
    for ch in phrase:
        if "0" <= ch <= "9":
            n = (0 if n < 0 else n * 10) + ord(ch) - 48
        elif n >= 0:
            break
    return n


def _pips(n, freq):
    # Five short pips would take too long before the next call: a long pip stands for five.
    steps = []
    while n >= 5:
        steps.append((freq, 200))
        steps.append((0, 60))
        n -= 5
    while n > 0:
        steps.append((freq, 60))
        steps.append((0, 60))
        n -= 1
    if steps:
        steps.pop()  # no rest after the last pip
    return tuple(steps) or _BLIP


def _build(phrase):
    if phrase in _DEVICE:
        return _DEVICE[phrase]
    if phrase in _START:
        return ((LOW, 100), (880, 100), (HIGH, 120))
    if phrase in _TIMEOUT:
        return ((440, 900),)
    n = _digits(phrase)
    if phrase.startswith("preset_"):
        return _pips(n, TICK)
    if phrase.isdigit():
        return ((TICK, 400),) if n == 10 else ((TICK, 80),)
    if "秒" in phrase or "second" in phrase:
        if n > 0 and n % 10 == 0:
            return _pips(n // 10, TICK)
        return ((HIGH, 50), (0, 50), (HIGH, 50))
    if phrase == "last period":
        return _pips(1, LOW)
    if "还剩" in phrase or "残り" in phrase or "left" in phrase:
        return _pips(n, LOW)
    if "分" in phrase:
        return ((440, 250),)
    return _BLIP


def pattern(phrase):
    """The (freq_hz, ms) steps for a call phrase or a device notice; never fails."""
    found = _cache.get(phrase)
    if found is None:
        try:
            found = _build(phrase)
        except Exception:  # a phrase of a profile this table has not heard of
            found = _BLIP
        _cache[phrase] = found
    return found


def duration_ms(steps):
    """How long a pattern lasts."""
    total = 0
    for _, ms in steps:
        total += ms
    return total
