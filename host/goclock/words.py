"""Words for counts and limits, without any terminal library (the voice tools import the
host package without rich): '1 move', '2 moves'; '48:00:00 (48 h)' for 172800 seconds."""

import re


def plural(n, word, many=None):
    """'1 move', '2 moves', '0 moves'; `many` for a word that is not made with an s."""
    return "%s %s" % (n, word if n == 1 else (many or word + "s"))


def hms(seconds):
    """48:00:00 (48 h), 10:00 (10 min): a limit as the arbiter types one, its unit beside."""
    h, rest = divmod(int(seconds), 3600)
    m, s = divmod(rest, 60)
    clock = "%d:%02d:%02d" % (h, m, s) if h else "%d:%02d" % (m, s)
    parts = [text for n, text in ((h, "%d h" % h), (m, "%d min" % m), (s, "%d s" % s)) if n]
    return "%s (%s)" % (clock, " ".join(parts) or "0 s")


def seconds_in_words(text):
    """'at most 172800 s' -> 'at most 48:00:00 (48 h)', and 'at most 3600 seconds, got 7200'
    -> 'at most 1:00:00 (1 h), got 2:00:00 (2 h)': counts of seconds a person reads."""

    def clock(m):
        n = int(m.group(1))
        return hms(n) + m.group(3) + hms(int(m.group(4))) if m.group(4) else hms(n)

    return re.sub(r"\b(\d{3,}) (?:s|seconds)\b((, got )(\d+)$)?", clock, text)
