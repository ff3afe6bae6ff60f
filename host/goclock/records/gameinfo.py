"""What a game was and how it ended, as the firmware writes it into the log (protocol 3):
the game's details in its first record, and its results.

The "game" record carries `info` (the config's game_info: event, round, table, black,
white, handicap; only the fields set) and `utc` (the start's time of day, ms since the
epoch) when the clock knows them. `result` records carry an SGF RE value and who gave it:
the clock itself ("clock": W+T/B+T at a loss on time, B+F/W+F at a forfeit, "?" after a
timeout ruled a pass, when the game goes on), or an arbiter ("host", "hall", "board").
The last one counts; each one before it is superseded by the next.

A log of older firmware has neither: `details` is then empty and `results` too, and the
report, export and SGF show what they showed before (the clock's own loss, replayed).
"""

import datetime
import re

DETAIL_FIELDS = ("event", "round", "table", "black", "white", "handicap")

_WHO = {
    "clock": "decided by the clock",
    "host": "entered at the host",
    "hall": "entered at the hall",
    "board": "entered at the board",
}
_HOW = {"R": "by resignation", "T": "on time", "F": "by forfeit"}
_SAME = {"resign": "R", "time": "T", "forfeit": "F"}
_POINTS = re.compile(r"^\d+(\.\d+)?$")


def head(record):
    """The log's "game" record (a dict; empty when the log has none left)."""
    return next((r for r in record.records if r.get("event") == "game"), {})


def details(record):
    """The game's details: {field: value} of DETAIL_FIELDS known, and `utc` (ms), `date`
    and `time` (UTC, text) of its start when the clock knew the time of day."""
    return details_of(head(record))


def details_of(rec):
    """The details a "game" record (a dict) carries (see `details`)."""
    info = rec.get("info") if isinstance(rec.get("info"), dict) else {}
    out = {k: info[k] for k in DETAIL_FIELDS if info.get(k) is not None}
    utc = rec.get("utc")
    if isinstance(utc, int) and not isinstance(utc, bool):
        try:
            when = datetime.datetime.fromtimestamp(utc / 1000.0, datetime.timezone.utc)
        except (OverflowError, OSError, ValueError):
            when = None
        if when is not None:
            out["utc"] = utc
            out["date"] = when.strftime("%Y-%m-%d")
            out["time"] = when.strftime("%H:%M:%S")
    return out


def normal(code):
    """An RE value in its short form, to compare two: B+Resign -> B+R, Draw -> 0."""
    text = str(code).strip()
    if text.lower() in ("draw", "jigo"):
        return "0"
    if len(text) > 2 and text[1] == "+":
        how = _SAME.get(text[2:].lower(), text[2:])
        return text[:2].upper() + how
    return text


def re_words(code):
    """An RE value in words: "White wins on time", "Black wins by 3.5 points", "a draw"."""
    text = normal(code)
    if text == "0":
        return "a draw"
    if text.lower() == "void":
        return "void (no result)"
    if text == "?":
        return "no result known"
    if len(text) >= 2 and text[1] == "+" and text[0] in "BW":
        who = "Black" if text[0] == "B" else "White"
        how = text[2:]
        if not how:
            return "%s wins" % who
        if _POINTS.match(how):
            return "%s wins by %s point%s" % (who, how, "" if how == "1" else "s")
        return "%s wins %s" % (who, _HOW.get(how, "(%s)" % how))
    return text


def results(record):
    """Every result record in the log's order: {record, t, result, by, words, superseded
    (the number of the record that replaced it, or None)}."""
    out = []
    for entry, rec in zip(record.good, record.records):
        if rec.get("event") != "result" or not isinstance(rec.get("result"), str):
            continue
        if out:
            out[-1]["superseded"] = entry.number
        out.append(
            {
                "record": entry.number,
                "t": rec.get("t"),
                "result": rec["result"],
                "by": rec.get("by"),
                "words": result_words(rec),
                "superseded": None,
            }
        )
    return out


def result_words(rec):
    """One result record in words, with who decided it."""
    code, by = rec.get("result"), rec.get("by")
    if code == "?" and by == "clock":
        return "?: no result yet, decided by the clock: the timeout was ruled a pass"
    who = _WHO.get(by, "given by %s" % by if by else "given")
    return "%s: %s, %s" % (code, re_words(code), who)


def final(record):
    """The result that counts (the last result record), or None when the log has none."""
    found = results(record)
    return found[-1] if found else None


def final_line(record):
    """The result that counts, in words, with the one it superseded ("" when none)."""
    found = results(record)
    if not found:
        return ""
    last = found[-1]
    text = "result: %s (record %d)" % (last["words"], last["record"])
    if len(found) > 1:
        before = found[-2]
        text += "; it supersedes %s (record %d)" % (before["result"], before["record"])
    return text


def summary_line(record):
    """The details on one line for the report ("" when the log has none)."""
    return summary_line_of(details(record))


def summary_line_of(d):
    """`details` (a dict) on one line."""
    parts = []
    if "date" in d:
        parts.append("%s %s UTC" % (d["date"], d["time"]))
    if "event" in d:
        parts.append(str(d["event"]))
    for key in ("round", "table"):
        if key in d:
            parts.append("%s %s" % (key, d[key]))
    if "black" in d or "white" in d:
        parts.append("Black %s - White %s" % (d.get("black", "?"), d.get("white", "?")))
    if "handicap" in d:
        parts.append("handicap %s" % d["handicap"])
    return ", ".join(parts)
