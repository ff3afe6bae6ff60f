"""Counted words without any terminal library (the voice tools import the host package
without rich): '1 move', '2 moves', '1 problem'."""


def plural(n, word, many=None):
    """'1 move', '2 moves', '0 moves'; `many` for a word that is not made with an s."""
    return "%s %s" % (n, word if n == 1 else (many or word + "s"))
