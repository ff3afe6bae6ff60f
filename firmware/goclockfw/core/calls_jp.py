"""The "jp" call profile: byo-yomi counted in the Japanese manner.

Every period is counted down the same way, because on a Japanese clock each
period that runs out is a resource lost, not only the last one:

- tens of seconds: "30秒", "40秒", "50秒" in a 60 s period; in a shorter one
  every ten seconds up to ten before the end ("10秒", "20秒" for 30 s);
- then one count a second, "1" at P-9 s up to "9" at P-1 s;
- at P: "残り{n}回" (n periods still left) when one was used up, or, in the
  last period, "10" and then "時間切れ" (lost on time).

"ペナルティ4目" (4 points in all) is said as an Ing overtime period begins.

"秒読みです" is said when main time runs out; where running out means losing
(sudden death, Fischer, delay, a Canadian block) the last ten seconds are
counted "1" (9 s left) to "10" (0 s left), then "時間切れ".

Same interface as the profiles in core/callplan.py; loaded by `callplan.profile`.
"""

from goclockfw.core.callplan import COUNT_TO_TEN

_SEC = 1000


class Profile:
    name = "jp"
    byoyomi_start = "秒読みです"
    timeout = "時間切れ"
    countdown = COUNT_TO_TEN

    def period_calls(self, period_ms, left):
        """(offsets in ms, phrases) of one period of `period_ms`, `left` counting this one."""
        seconds = period_ms // _SEC
        offsets = []
        phrases = []
        # A 60 s period starts at 30 s, as the Chinese one does: the first
        # half minute is the player's in peace.
        s = 30 if seconds == 60 else 10
        while s <= seconds - 10:
            offsets.append(s * _SEC)
            phrases.append("%d秒" % s)
            s += 10
        for i in range(1, 10):
            at = seconds - 10 + i
            if at > 0:
                offsets.append(at * _SEC)
                phrases.append(str(i))
        offsets.append(seconds * _SEC)
        if left > 1:
            phrases.append("残り%d回" % (left - 1))
        else:
            phrases.append("10")
        return tuple(offsets), tuple(phrases)

    def penalty(self, points):
        """Ing overtime: the side's penalty points so far."""
        return "ペナルティ%d目" % points
