"""`goclock deploy --board ...`: the firmware (and a voice pack) to a board."""

import os
import sys
import tempfile

from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn

from .. import firmware, resources, ui
from ..errors import GoclockError, UsageError
from ..link import board as link_board
from ..link import discovery, mip, mpremote_run

ROMFS_TIMEOUT_S = 300  # ~140 KB through the raw REPL, erased and written a block at a time


def write_romfs(port, image_path):
    """`mpremote romfs deploy IMAGE`: the board's ROMFS partition (0) holds the image."""
    return mpremote_run.run_mpremote(
        port, ("romfs", "deploy", image_path), ROMFS_TIMEOUT_S, mpremote_run.mpremote_binary()
    )


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


def do_deploy(args, open_board=link_board.Board, install_driver=mip.install, romfs=write_romfs):
    # A build folder of its own, removed afterwards (a dry run leaves nothing behind).
    with tempfile.TemporaryDirectory(prefix="goclock-deploy-") as build_dir:
        plan = firmware.build(args.board, build_dir)
        rom = None
        if args.romfs:
            rom_files, plan = firmware.romfs_split(plan)
            rom = os.path.join(build_dir, "goclock.romfs")
            with open(rom, "wb") as f:
                f.write(firmware.romfs_image(rom_files))
        return _deploy(args, open_board, install_driver, plan, rom, romfs)


def _print_plan(args, plan, rom, pack, display):
    """`deploy --dry-run`: what would be written where, and what removed."""
    if rom:
        print(
            "%s (%d B: the package's .mpy files, under lib/) -> the board's ROMFS "
            "partition, mounted at /rom (mpremote romfs deploy)"
            % (os.path.basename(rom), os.path.getsize(rom))
        )
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


def _deploy(args, open_board, install_driver, plan, rom=None, write_rom=write_romfs):
    spec, _path = firmware.board_spec(args.board)
    display = "display" in spec
    pack = _voice_pack(args.voice)
    if args.dry_run:
        _print_plan(args, plan, rom, pack, display)
        return 0
    port = discovery.choose_port(args.port)
    link_board.guard(port, args.force)
    if rom:
        _write_rom(port, rom, write_rom)
    installed, why = False, None
    if display and not args.no_mip:
        # Before the REPL is ours: mpremote opens the port itself.
        installed, why = install_driver(port)
    board = open_board(port)
    try:
        if not rom and spec["family"] != "rp2" and board.walk(firmware.ROM_LIB):
            # /rom/lib comes before /lib on sys.path: the new /lib files would never run.
            # An RP2040 moves a new /lib package into its partition when it starts
            # (goclockfw/romfs.py); other boards do not.
            raise GoclockError(
                "this board runs goclock from its ROMFS partition (%s), which comes before "
                "/lib: deploy with --romfs again (or empty the partition first: mpremote "
                "romfs deploy <an empty folder>)" % firmware.ROM_LIB
            )
        already = display and not installed and _driver_on(board)
        with progress_bar() as bar:
            copy_files(board, plan, bar)
            for path in board.remove_stale(plan):
                print("removed %s (left by an older deploy)" % path)
            if pack:
                push_voice(board, pack, bar)
    finally:
        board.restart()
    _say_deployed(port, args, spec, len(plan), rom, pack)
    if display:
        _say_driver(port, args, installed, why, already)
    return 0


def _voice_pack(voice):
    """The shipped pack's folder for --voice, None for "none"; UsageError when unknown."""
    if not voice or voice == "none":
        return None
    pack = resources.voice_pack(voice)
    if pack is None:
        raise UsageError(
            "no voice pack %r (shipped: %s; use --voice none to deploy without one)"
            % (voice, ", ".join(resources.voice_packs()))
        )
    return pack


def _write_rom(port, rom, write_rom):
    # Before the REPL is ours, as mip: mpremote opens the port itself.
    ok, why = write_rom(port, rom)
    if not ok:
        raise GoclockError(
            "the board's ROMFS partition was not written: %s (an image with one: "
            "tools/rp2/README.md; without --romfs the firmware goes to %s)" % (why, firmware.LIB)
        )
    print("ROMFS: %d B written (the package, at /rom%s)" % (os.path.getsize(rom), firmware.LIB))


def _say_deployed(port, args, spec, files, rom, pack):
    print(
        "deployed to %s (%s): %d files%s%s; the clock restarts"
        % (
            port,
            args.board,
            files,
            " and the package in ROMFS" if rom else "",
            ", voice " + args.voice if pack else "",
        )
    )
    if not rom and spec["family"] == "rp2":
        print(
            "at its start the clock moves the package from %s into its ROMFS partition, if "
            "its MicroPython image has one (goclock's does), and runs it from flash" % firmware.LIB
        )
