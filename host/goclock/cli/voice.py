"""`goclock voice phrases|convert|check|push`: what to record, a pack from recordings, a
pack checked, a pack pushed to the clock."""

import os
import sys

from rich.progress import BarColumn, Progress, TextColumn

from .. import resources, ui
from ..errors import GoclockError, UsageError
from ..link import board as link_board
from ..link import discovery
from ..voice import convert, pack
from .deploy import progress_bar, push_voice


def pack_folder(arg):
    """A voice pack folder from the command line: a folder, or the name of a pack this
    tool ships (zh, ja, en: `goclock voice check zh` works wherever goclock is installed)."""
    if os.path.isdir(arg):
        return arg
    shipped = resources.voice_pack(arg) if os.sep not in arg else None
    if shipped is None:
        raise UsageError(
            "%s is neither a folder nor a shipped voice pack (shipped: %s)"
            % (arg, ", ".join(resources.voice_packs()))
        )
    return shipped


def do_voice_check(args):
    args.dir = pack_folder(args.dir)
    report = pack.check(args.dir, args.profile)
    if args.json:
        ui.print_json(
            {"dir": args.dir, "ok": report.ok, "problems": report.problems, "notes": report.notes}
        )
    else:
        for line in report.lines():
            print(line)
    if not report.ok:
        raise GoclockError(
            "%s: %s: the pack cannot be used as it is"
            % (args.dir, ui.plural(len(report.problems), "problem"))
        )
    return 0


def do_voice_push(args, open_board=link_board.Board):
    args.dir = pack_folder(args.dir)
    port = discovery.choose_port(args.port)
    link_board.guard(port, False)
    board = open_board(port)
    try:
        with progress_bar() as bar:
            written = push_voice(board, args.dir, bar, args.profile)
    finally:
        board.restart()
    print("voice pack %s: %d files copied to the clock" % (args.dir, len(written)))
    return 0


def do_voice_convert(args):
    from rich.progress import MofNCompleteColumn

    src = pack_folder(args.src)
    like = pack_folder(args.like) if args.like else None
    gain = args.gain
    if args.target_lufs is None:
        args.target_lufs = convert.TARGET_LUFS
    if not -40.0 <= args.target_lufs <= -6.0:
        raise UsageError("--target-lufs: from -40 to -6, got %g" % args.target_lufs)
    if gain is not None and not -40.0 <= gain <= 60.0:
        raise UsageError("--gain: from -40 to 60 dB, got %g" % gain)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=ui.console(),
        transient=True,
        disable=bool(getattr(args, "json", False)) or not sys.stdout.isatty(),
    ) as bar:
        task = bar.add_task("converting", total=None)

        def progress(done, total, name):
            bar.update(task, completed=done, total=total, description=name)

        clips, notes, report, profile, why = convert.convert(
            src,
            args.out,
            profile_name=args.profile,
            like=like,
            target_lufs=args.target_lufs,
            gain_db=gain,
            force=args.force,
            progress=progress,
        )
    long_ones = convert.too_long(report, clips)
    if getattr(args, "json", False):
        _print_converted_json(args, src, profile, clips, report, notes, long_ones)
    else:
        _print_converted(args, src, profile, why, clips, report, notes)
    if long_ones:
        raise GoclockError(
            "%s: %s too long for %s (say them faster, or leave less pause "
            "inside):\n  %s"
            % (
                args.out,
                ui.plural(len(long_ones), "clip"),
                "its slot" if len(long_ones) == 1 else "their slots",
                "\n  ".join(long_ones),
            )
        )
    if not report.ok:
        raise GoclockError(
            "%s: %s: the pack cannot be used as it is"
            % (args.out, ui.plural(len(report.problems), "problem"))
        )
    return 0


def _print_converted_json(args, src, profile, clips, report, notes, long_ones):
    """`voice convert --json`: each clip's figures, the problems and the notes."""
    ui.print_json(
        {
            "src": src,
            "dir": args.out,
            "profile": profile,
            "ok": report.ok,
            "clips": {
                c.file: {
                    "phrase": c.phrase,
                    "source": c.source,
                    "duration_ms": c.duration_ms,
                    "lufs_in": round(c.lufs_in, 1),
                    "gain_db": round(c.gain_db, 1),
                    "limited_db": round(c.limited_db, 1),
                    "lufs": round(c.lufs_out, 1),
                }
                for c in clips
            },
            "too_long": long_ones,
            "problems": report.problems,
            "notes": notes + report.notes,
        }
    )


def _print_converted(args, src, profile, why, clips, report, notes):
    """`voice convert`: what was made, at what level and gain, then the pack's check."""
    gain = args.gain
    speech = sum(c.samples for c in clips) / convert.RATE
    level = (
        "loudness %.1f LUFS" % args.target_lufs
        if gain is None
        else "a fixed gain of %+.1f dB" % gain
    )
    gains = [c.gain_db for c in clips]
    limited = [c for c in clips if c.limited_db > 0.05]
    print(
        "%s -> %s: %d clips, profile %s (%s), %.1f s of speech, 16 kHz IMA ADPCM"
        % (src, args.out, len(clips), profile, why, speech)
    )
    if limited:
        peaks = "peaks limited to %.0f dBFS in %d clip(s), by at most %.1f dB" % (
            convert.CEILING_DB,
            len(limited),
            max(c.limited_db for c in limited),
        )
    else:
        peaks = "no peak over %.0f dBFS" % convert.CEILING_DB
    print("%s (gain %+.1f to %+.1f dB); %s" % (level, min(gains), max(gains), peaks))
    for note in notes:
        print("note: " + note)
    for line in report.lines():
        print(line)


def do_voice_phrases(args):
    from rich.table import Table

    name = args.profile
    if args.like:
        name = convert.profile_of(None, like=pack_folder(args.like))[0]
    rows = convert.recording_list(pack.load_profile(name or "cn"))
    if args.json:
        ui.print_json(
            [
                {
                    "file": fname,
                    "phrase": phrase,
                    "alone_ms": alone,
                    "together": {"with": list(shared[0]), "ms": shared[1]} if shared else None,
                }
                for fname, phrase, alone, shared in rows
            ]
        )
        return 0
    table = Table(
        header_style="bold", title="profile %s: %d recordings" % (name or "cn", len(rows))
    )
    table.add_column("file")
    table.add_column("say")
    table.add_column("under")
    for fname, phrase, alone, shared in rows:
        limits = ["%.1f s" % (alone / 1000)] if alone else []
        if shared:
            limits.append("%.1f s with %s" % (shared[1] / 1000, " + ".join(shared[0])))
        table.add_row(fname, phrase, "; ".join(limits))
    ui.console().print(table)
    print("record each as its file; then: goclock voice convert FOLDER PACK")
    return 0
