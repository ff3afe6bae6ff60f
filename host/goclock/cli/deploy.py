"""`goclock deploy --board ...`: the firmware (and a voice pack) to a board."""

import os

from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

from .. import firmware, resources, ui
from ..errors import UsageError
from ..link import board as link_board
from ..link import discovery


def progress_bar():
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
    from ..voice import pack

    task = bar.add_task("voice " + os.path.basename(pack_dir), total=None)

    def progress(done, total, remote):
        bar.update(task, completed=done, total=total, description=remote)

    return pack.push(
        pack_dir, board.put, mkdir=board.mkdir, progress=progress, profile_name=profile
    )


def do_deploy(args, open_board=link_board.Board):
    plan = firmware.build(args.board)
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
    port = discovery.choose_port(args.port)
    link_board.guard(port, args.force)
    board = open_board(port)
    try:
        with progress_bar() as bar:
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
