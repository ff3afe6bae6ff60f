"""Go engines' time commands as time controls: GTP 2 `time_settings` and KGS's extension.

    time_settings MAIN BYO_YOMI_TIME BYO_YOMI_STONES
        Canadian byo-yomi: MAIN s, then STONES stones in BYO_YOMI_TIME s. As the GTP 2
        specification defines the special cases: BYO_YOMI_TIME 0 is absolute time (sudden
        death in MAIN), BYO_YOMI_TIME > 0 with STONES 0 is no time limit at all.
    kgs-time_settings none
    kgs-time_settings absolute MAIN
    kgs-time_settings byoyomi MAIN PERIOD_TIME PERIODS
    kgs-time_settings canadian MAIN PERIOD_TIME STONES

All values are whole seconds. Each function takes the notation's tokens (the command word
first) and returns (time-control JSON, how many tokens it used): options may follow.
"""

from ..errors import NotationError

GTP_FORM = (
    "time_settings MAIN BYO_YOMI_TIME BYO_YOMI_STONES (seconds), like time_settings 1800 600 25"
)
KGS_FORM = (
    "kgs-time_settings none | absolute MAIN | byoyomi MAIN PERIOD PERIODS | canadian MAIN PERIOD "
    "STONES (seconds), like kgs-time_settings byoyomi 1800 30 5"
)


def _whole(text, what, form):
    if not text.isdigit():
        raise NotationError("%r is not a number of %s: write %s" % (text, what, form))
    return int(text)


def time_settings(tokens):
    """GTP `time_settings M B S`."""
    if len(tokens) < 4:
        raise NotationError("time_settings needs the form %s" % GTP_FORM)
    main = _whole(tokens[1], "seconds (main time)", GTP_FORM)
    byo = _whole(tokens[2], "seconds (byo-yomi time)", GTP_FORM)
    stones = _whole(tokens[3], "byo-yomi stones", GTP_FORM)
    if byo == 0:
        return {"type": "sudden_death", "main": main}, 4
    if stones == 0:
        return {"type": "untimed"}, 4
    return {"type": "canadian", "main": main, "moves": stones, "period": byo, "carry": False}, 4


def kgs_time_settings(tokens):
    """KGS `kgs-time_settings SYSTEM ...`."""
    system = tokens[1].lower() if len(tokens) > 1 else ""
    sizes = {"none": 0, "absolute": 1, "byoyomi": 3, "canadian": 3}
    if system not in sizes or len(tokens) < 2 + sizes[system]:
        raise NotationError("kgs-time_settings needs the form %s" % KGS_FORM)
    used = 2 + sizes[system]
    args = [_whole(t, "seconds (a time setting)", KGS_FORM) for t in tokens[2:used]]
    if system == "none":
        return {"type": "untimed"}, used
    if system == "absolute":
        return {"type": "sudden_death", "main": args[0]}, used
    main, period, count = args
    if system == "byoyomi":
        return {"type": "byoyomi", "main": main, "periods": count, "period": period}, used
    return {
        "type": "canadian",
        "main": main,
        "moves": count,
        "period": period,
        "carry": False,
    }, used
