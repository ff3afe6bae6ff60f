"""`goclock deploy --board ...` and `goclock voice convert|check|push`: firmware and voice to a board."""

import os
import sys

from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

from . import deploy, device, resources, ui
from .errors import GoclockError, UsageError


def _bar():
    return Progress(
        TextColumn("{task.description}"), BarColumn(), DownloadColumn(), console=ui.console()
    )


def copy_files(board, plan, bar):
    """Copy [(local, remote)] with one progress bar over all their bytes."""
    total = sum(os.path.getsize(local) for local, _ in plan)
    task = bar.add_task("firmware", total=total)
    done = 0
    for local, remote in plan:
        bar.update(task, description=remote)
        base = done
        board.put(local, remote, lambda n, _size, b=base: bar.update(task, completed=b + n))
        done += os.path.getsize(local)
        bar.update(task, completed=done)
    bar.update(task, description="firmware")


def push_voice(board, pack_dir, bar, profile=None):
    from . import voice

    task = bar.add_task("voice " + os.path.basename(pack_dir), total=None)

    def progress(done, total, remote):
        bar.update(task, completed=done, total=total, description=remote)

    return voice.push(
        pack_dir, board.put, mkdir=board.mkdir, progress=progress, profile_name=profile
    )


def do_deploy(args, open_board=deploy.Board):
    plan = deploy.build(args.board)
    pack = None
    if args.voice and args.voice != "none":
        pack = resources.voice_pack(args.voice)
        if pack is None:
            raise UsageError(
                "no voice pack %r (shipped: %s; use --voice none to deploy without one)"
                % (args.voice, ", ".join(resources.voice_packs()))
            )
    if args.dry_run:
        for local, remote in plan:
            print("%s -> :%s" % (local, remote))
        if pack:
            print("%s/ -> :/sounds/%s/" % (pack, args.voice))
        print("files on the clock that this deploy does not write are removed")
        return 0
    port = device.choose_port(args.port)
    deploy.guard(port, args.force)
    board = open_board(port)
    try:
        with _bar() as bar:
            copy_files(board, plan, bar)
            for path in board.remove_stale(plan):
                print("removed %s (left by an older deploy)" % path)
            if pack:
                push_voice(board, pack, bar)
    finally:
        board.restart()
    print(
        "deployed to %s (%s): %d files%s; the clock restarts"
        % (port, args.board, len(plan), ", voice " + args.voice if pack else "")
    )
    return 0


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
    from . import voice

    args.dir = pack_folder(args.dir)
    report = voice.check(args.dir, args.profile)
    if args.json:
        ui.print_json(
            {"dir": args.dir, "ok": report.ok, "problems": report.problems, "notes": report.notes}
        )
    else:
        for line in report.lines():
            print(line)
    if not report.ok:
        raise GoclockError(
            "%s: %d problem(s): the pack cannot be used as it is" % (args.dir, len(report.problems))
        )
    return 0


def do_voice_push(args, open_board=deploy.Board):
    args.dir = pack_folder(args.dir)
    port = device.choose_port(args.port)
    deploy.guard(port, False)
    board = open_board(port)
    try:
        with _bar() as bar:
            written = push_voice(board, args.dir, bar, args.profile)
    finally:
        board.restart()
    print("voice pack %s: %d files copied to the clock" % (args.dir, len(written)))
    return 0


def do_voice_convert(args):
    from rich.progress import MofNCompleteColumn

    from . import voiceconvert

    src = pack_folder(args.src)
    like = pack_folder(args.like) if args.like else None
    gain = args.gain
    if args.target_lufs is None:
        args.target_lufs = voiceconvert.TARGET_LUFS
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

        clips, notes, report, profile, why = voiceconvert.convert(
            src,
            args.out,
            profile_name=args.profile,
            like=like,
            target_lufs=args.target_lufs,
            gain_db=gain,
            force=args.force,
            progress=progress,
        )
    long_ones = voiceconvert.too_long(report, clips)
    if getattr(args, "json", False):
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
    else:
        speech = sum(c.samples for c in clips) / voiceconvert.RATE
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
                voiceconvert.CEILING_DB,
                len(limited),
                max(c.limited_db for c in limited),
            )
        else:
            peaks = "no peak over %.0f dBFS" % voiceconvert.CEILING_DB
        print("%s (gain %+.1f to %+.1f dB); %s" % (level, min(gains), max(gains), peaks))
        for note in notes:
            print("note: " + note)
        for line in report.lines():
            print(line)
    if long_ones:
        raise GoclockError(
            "%s: %d clip(s) too long for their slot (say them faster, or leave less pause "
            "inside):\n  %s" % (args.out, len(long_ones), "\n  ".join(long_ones))
        )
    if not report.ok:
        raise GoclockError(
            "%s: %d problem(s): the pack cannot be used as it is" % (args.out, len(report.problems))
        )
    return 0


def do_voice_phrases(args):
    from rich.table import Table

    from . import voice, voiceconvert

    name = args.profile
    if args.like:
        name = voiceconvert.profile_of(None, like=pack_folder(args.like))[0]
    rows = voiceconvert.recording_list(voice.load_profile(name or "cn"))
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
