"""`goclock deploy --board ...` and `goclock voice check|push`: firmware and voice to a board."""

import os

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
