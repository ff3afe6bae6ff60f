"""The figures of tools/bench/calls.py: the driver's records paired into calls, and the report.

`analyse(game)` reads what tools/bench/calls_driver.py recorded inside the firmware
(each call's deadline tick, the app told, the phrase printed, play() entered,
clips cut, the loop's sleeps) and what the launcher saw (the {"play"} lines,
the audio command spawned, the keys sent), all in microseconds of one
monotonic clock, and pairs them call by call. `report(r)` prints them.
Percentiles are nearest rank: with ~50 calls, p99 is the largest.
"""

import math

AIM_P99_MS = 20


def nearest_rank(sorted_values, p):
    if not sorted_values:
        return None
    return sorted_values[max(0, math.ceil(p * len(sorted_values)) - 1)]


def summary_ms(values_us):
    v = sorted(values_us)
    if not v:
        return {"n": 0}
    return {
        "n": len(v),
        "min": v[0] / 1000,
        "p50": nearest_rank(v, 0.5) / 1000,
        "p99": nearest_rank(v, 0.99) / 1000,
        "max": v[-1] / 1000,
    }


def worst(calls, key, n=3):
    """The `n` latest calls by `key` (a time stamp): [phrase, ms late, where the time went]."""
    late = sorted((c[key] - c["due"], i) for i, c in enumerate(calls) if not c["queued"])
    out = []
    for us, i in reversed(late[-n:]):
        c = calls[i]
        parts = {
            "wake planned": c["planned"] - c["due"],
            "overslept": c["woke"] - c["planned"],
            "woke -> fired": c["seen"] - c["woke"],
            "fired -> %s" % key: c[key] - c["seen"],
        }
        gc_ran = [w for w, ran in (("before", c["gc_before"]), ("after", c.get("gc_after"))) if ran]
        out.append(
            [
                c["phrase"],
                us / 1000,
                dict((k, v / 1000) for k, v in parts.items()),
                " ".join(gc_ran),
            ]
        )
    return out


class Pairing:
    """The driver's records taken in order: each call, when it was started, what cut it."""

    def __init__(self, due_us):
        self.due_us = due_us  # a board tick -> its first microsecond on the monotonic clock
        self.calls = []
        self.pending = []  # calls not started yet, oldest first
        self.expect = None  # the call the next play() belongs to (None: a notice)
        self.playing = None  # what the speaker is saying: a call, "notice" or None
        self.cause = None  # the clock event being handled (a cut inside it is its doing)
        self.cuts = {"call": 0, "press": 0, "other": 0}
        self.cut_calls = {"call": 0, "press": 0, "other": 0}
        self.plays = []
        self.end = None
        self.prev_call = None

    def take(self, rec):
        kind = rec[0]
        if kind == "clock":
            self.on_clock(rec)
        elif kind == "done":
            self.cause = None
        elif kind == "say":
            self.on_say(rec)
        elif kind == "play":
            self.on_play(rec)
        elif kind == "cut":
            self.on_cut()
        elif kind == "end":
            self.end = {
                "worst_late_ms": rec[1],
                "skipped": rec[2],
                "said": rec[3],
                "errors": rec[4],
                "gc_runs": rec[5],
            }

    def on_clock(self, rec):
        what, side, tick, value, t, busy, slept, asked_ms, woke, heap_slept, heap = rec[1:12]
        self.cause = what
        if what == "call":
            prev_call = self.prev_call
            c = {
                "phrase": value,
                "side": side,
                "tick": tick,
                "due": self.due_us(tick),
                "seen": t,
                "busy": busy,
                "planned": slept + asked_ms * 1000,  # when the loop meant to wake
                "woke": woke,
                # The heap shrank: the garbage collector ran in between.
                "gc_before": heap < heap_slept,
                "heap": heap,
                "queued": prev_call is not None
                and prev_call["tick"] == tick
                and prev_call["side"] == side,
            }
            self.calls.append(c)
            self.pending.append(c)
            self.prev_call = c
        elif what == "press":
            self.pending = [c for c in self.pending if c["side"] != side]

    def on_say(self, rec):
        self.expect = None
        for i, c in enumerate(self.pending):
            if c["phrase"] == rec[1]:
                self.expect = c
                c["say"] = rec[2]
                self.pending = self.pending[i + 1 :]
                break

    def on_play(self, rec):
        t_in, t_out, clip, ok, until, heap = rec[1:7]
        expect = self.expect
        if ok:
            self.plays.append(expect)
        if expect is not None:
            expect["play"] = t_in
            expect["played"] = t_out
            expect["ok"] = ok
            expect["gc_after"] = heap < expect["heap"]
        self.playing = expect if expect is not None else "notice"
        if expect is not None and until is not None:
            expect["until"] = self.due_us(until)
        self.expect = None

    def on_cut(self):
        how = self.cause if self.cause in ("call", "press") else "other"
        self.cuts[how] += 1
        if isinstance(self.playing, dict):
            self.cut_calls[how] += 1
            self.playing["cut_by"] = how
        self.playing = None


def lateness(calls, first, plays, launcher):
    """Where each announcement's time went, and what the launcher added; in us."""
    gaps = []
    for prev, c in zip(calls, calls[1:]):
        if c["queued"] and "play" in c and "until" in prev:
            gaps.append(c["play"] - prev["until"])
    line_lag = []
    spawn_lag = []
    for c, (_, read_at, spawned) in zip(plays, launcher):
        if isinstance(c, dict):
            c["line"] = read_at
        if isinstance(c, dict) and not c["queued"]:
            line_lag.append(read_at - c["due"])
            if spawned is not None:
                spawn_lag.append(spawned - c["due"])
    return {
        "late_fired_us": summary_ms([c["seen"] - c["due"] for c in first]),
        "wake_planned_us": summary_ms([c["planned"] - c["due"] for c in first]),
        "oversleep_us": summary_ms([c["woke"] - c["planned"] for c in first]),
        "after_wake_us": summary_ms([c["seen"] - c["woke"] for c in first]),
        "late_printed_us": summary_ms([c["say"] - c["due"] for c in first if "say" in c]),
        "late_play_us": summary_ms([c["play"] - c["due"] for c in first]),
        "play_call_us": summary_ms([c["played"] - c["play"] for c in first]),
        "late_line_us": summary_ms(line_lag),
        "late_spawn_us": summary_ms(spawn_lag),
        "queued_gap_us": summary_ms(gaps),
        "busy_at_call": len([c for c in first if c["busy"]]),
        "gc_in_window": len([c for c in first if c["gc_before"] or c.get("gc_after")]),
        "worst_play": worst(first, "play"),
        "worst_line": worst([c for c in plays if isinstance(c, dict) and "line" in c], "line"),
    }


def press_figures(calls, first, presses):
    """The moves' presses against the calls they follow, and the stray presses' toll."""
    landed = [sent - due for _, _, due, how, sent in presses if how == "move"]
    stray_due = set(due for _, _, due, how, _ in presses if how == "stray")
    cut_by_press = len([c for c in calls if c.get("cut_by") == "press"])
    after_stray = [c for c in first if c["due"] in stray_due]
    return {
        "presses": len(landed),
        "press_landed_us": summary_ms(landed),
        "stray_presses": len(stray_due),
        "late_play_after_stray_us": summary_ms([c["play"] - c["due"] for c in after_stray]),
        "calls_cut_by_their_press": cut_by_press,
    }


def analyse(game):
    """Pair the driver's records: calls, their starts, cuts; lateness in us."""
    pairing = Pairing(game.due_us)
    for rec in game.events:
        pairing.take(rec)
    calls = pairing.calls
    first = [c for c in calls if not c["queued"] and "play" in c]
    queued = [c for c in calls if c["queued"]]
    r = {
        "calls": len(calls),
        "announcements": len(first),
        "queued_phrases": len(queued),
        "not_started": len([c for c in calls if "play" not in c]),
    }
    # The key order is the --json output's: lateness, cuts, presses, the announcer's own.
    r.update(lateness(calls, first, pairing.plays, game.launcher))
    r["cuts"] = pairing.cuts
    r["calls_cut"] = pairing.cut_calls
    r.update(press_figures(calls, first, game.presses))
    r["announcer"] = pairing.end
    return r


def fmt(s):
    if not s.get("n"):
        return "(none)"
    return "p50 %6.2f   p99 %6.2f   max %6.2f ms   (n=%d, min %.2f)" % (
        s["p50"],
        s["p99"],
        s["max"],
        s["n"],
        s["min"],
    )


def report_run(r):
    """What was run, and how many calls it made."""
    print(
        "call onset lateness, desktop board, MicroPython unix port, real time: %.0f s, %d moves,"
        " cn byo-yomi %s s + %d x %d s, view lines %s, audio command %s"
        % (
            r["wall_s"],
            r["moves"],
            r["tc"]["main"],
            r["tc"]["periods"],
            r["tc"]["period"],
            "on" if r["view"] else "off",
            r["audio_command"],
        )
    )
    print(
        "  %d calls: %d announcements, %d queued behind a same-tick phrase, %d never started"
        % (r["calls"], r["announcements"], r["queued_phrases"], r["not_started"])
    )


def report_lateness(r):
    """Deadline to play(), split where the time went, and the latest calls."""
    print("  deadline -> play() entered      %s" % fmt(r["late_play_us"]))
    print("    of which: core fired it      %s" % fmt(r["late_fired_us"]))
    print("      loop's wake as planned     %s" % fmt(r["wake_planned_us"]))
    print("      sleep past the plan        %s" % fmt(r["oversleep_us"]))
    print("      woke -> call fired         %s" % fmt(r["after_wake_us"]))
    print("              phrase printed     %s" % fmt(r["late_printed_us"]))
    print("    play() itself (to its line)  %s" % fmt(r["play_call_us"]))
    for w in r["worst_play"]:
        print(
            "    latest: %s %.2f ms (%s%s)"
            % (
                w[0],
                w[1],
                ", ".join("%s %.2f" % kv for kv in w[2].items()),
                "; gc ran %s firing" % w[3] if w[3] else "",
            )
        )


def report_launcher(r):
    """What the launcher added, the queued phrases' gaps, the counts after a stray press."""
    print("  launcher: {play} line read      %s" % fmt(r["late_line_us"]))
    print("    latest: %s" % ", ".join("%s %.2f ms" % (w[0], w[1]) for w in r["worst_line"]))
    print("  launcher: audio command spawned %s" % fmt(r["late_spawn_us"]))
    print("  queued phrase: clip end -> play %s" % fmt(r["queued_gap_us"]))
    if r["stray_presses"]:
        print(
            "  %d stray presses by the waiting side 0-%d ms before a count; those counts:"
            % (r["stray_presses"], r["stray_before_ms"])
        )
        print("  deadline -> play() entered      %s" % fmt(r["late_play_after_stray_us"]))


def report_presses(r):
    """The moves' presses and every cut."""
    p = r["press_landed_us"]
    print(
        "  %d presses, sent %.0f..%.0f ms after the deadline of a call (median %.0f);"
        " %d cut their own call while it was said"
        % (
            r["presses"],
            p.get("min", 0),
            p.get("max", 0),
            p.get("p50", 0),
            r["calls_cut_by_their_press"],
        )
    )
    print(
        "  cuts: %d calls cut by a newer call, %d by a press, %d by a device notice;"
        " player still busy when a call fired: %d"
        % (
            r["calls_cut"]["call"],
            r["calls_cut"]["press"],
            r["calls_cut"]["other"],
            r["busy_at_call"],
        )
    )


def report_announcer(r):
    """Garbage collections, the announcer's own counts, and the aim."""
    if r["gc_probe"]:
        print(
            "  garbage collections: %s in the run, %d between the loop's sleep and play() of a call"
            % ((r["announcer"] or {}).get("gc_runs"), r["gc_in_window"])
        )
    a = r["announcer"] or {}
    print(
        "  announcer: worst_late_ms %s, stale calls skipped %s, phrases started %s; loop errors %s"
        % (a.get("worst_late_ms"), a.get("skipped"), a.get("said"), a.get("errors"))
    )
    p99 = r["late_play_us"].get("p99")
    print(
        "  aim p99 <= %d ms: %s"
        % (AIM_P99_MS, "met" if p99 is not None and p99 <= AIM_P99_MS else "NOT met")
    )


def report(r):
    report_run(r)
    report_lateness(r)
    report_launcher(r)
    report_presses(r)
    report_announcer(r)
