"""`goclock deploy --board ...`: the firmware (and a voice pack) to a board."""

import os
import sys
import tempfile

from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

from .. import firmware, resources, ui
from ..errors import UsageError
from ..link import board as link_board
from ..link import discovery, mip


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


def _driver_on(board):
    """Is micropython-lib's display driver already on the board (in /lib, or at the root)?"""
    names = ("/lib/%s.mpy" % mip.DRIVER, "/lib/%s.py" % mip.DRIVER, "/%s.py" % mip.DRIVER)
    present = set(board.walk("/lib")) | set(board.walk("/"))
    return any(n in present for n in names)


def _say_driver(port, args, installed, why, already):
    """One line on the display's driver: installed, kept, or how to install it later."""
    if installed:
        print("display driver: %s from micropython-lib, installed with mip" % mip.DRIVER)
        return
    if already:
        print(
            "display driver: the %s already on the board is kept (%s)"
            % (mip.DRIVER, "--no-mip" if args.no_mip else "mip could not run: " + why)
        )
        return
    print(
        "goclock: note: the display driver (%s) is not on the board (%s): the clock runs "
        "without its display until it is; when online: %s"
        % (mip.DRIVER, "--no-mip" if args.no_mip else why, mip.later(port)),
        file=sys.stderr,
    )


def do_deploy(args, open_board=link_board.Board, install_driver=mip.install):
    # A build folder of its own, removed afterwards (a dry run leaves nothing behind).
    with tempfile.TemporaryDirectory(prefix="goclock-deploy-") as build_dir:
        return _deploy(args, open_board, install_driver, firmware.build(args.board, build_dir))


def _deploy(args, open_board, install_driver, plan):
    spec, _path = firmware.board_spec(args.board)
    display = "display" in spec
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
            print("%s -> :%s" % (os.path.basename(local), remote))
        if pack:
            print("%s/ -> :/sounds/%s/" % (pack, args.voice))
        if display and not args.no_mip:
            print("mip install %s (the display driver, from micropython-lib)" % mip.DRIVER)
        print(
            "then removed: firmware files an older deploy left (under %s, and modules at the "
            "root); the config, the game logs and the voice packs stay" % firmware.LIB
        )
        return 0
    port = discovery.choose_port(args.port)
    link_board.guard(port, args.force)
    installed, why = False, None
    if display and not args.no_mip:
        # Before the REPL is ours: mpremote opens the port itself.
        installed, why = install_driver(port)
    board = open_board(port)
    try:
        already = display and not installed and _driver_on(board)
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
    if display:
        _say_driver(port, args, installed, why, already)
    return 0
