"""Start the clock on the board this runs on: RP2040, ESP32, or the desktop (unix port).

A board's /main.py is two lines that call `run()` (MAIN_PY, written by `goclock deploy`);
the desktop runs `micropython firmware/main.py`, the same two lines. On an RP2040, a package
copied to /lib is first moved into the ROMFS partition, where it runs from flash
(inplace.py decides, romfs.py moves). The board (board/base.py's interface) is picked
by `sys.platform`; its pin map is /board.json on a real board. If the application fails
to start (a bug, a broken flash), it is started again: a clock that can come up must
come up. A KeyboardInterrupt (Ctrl-C while no game runs, as mpremote sends)
ends it and leaves the REPL to the host.
"""

import sys
import time

# What a board's /main.py holds: MicroPython runs it at power-up.
MAIN_PY = (
    '"""Power-up: MicroPython runs /main.py. The clock starts in goclockfw/boot.py."""\n\n'
    "from goclockfw.boot import run\n\nrun()\n"
)


def _package_in_place():
    """A package copied to /lib goes into the ROMFS partition first (inplace.py: the
    board soft-resets after a move and starts again here)."""
    if not (__file__.startswith("/lib/") or __file__.startswith("/rom/")):
        return  # frozen (its package comes first on sys.path), or a desktop: no move
    from goclockfw import inplace, modules

    try:
        inplace.start()
    except Exception as e:  # a clock that can come up must come up: from /lib, then
        sys.print_exception(e)
    modules.release(("goclockfw.inplace", "goclockfw.romfs", "goclockfw.mpylayout"))


def make_board():
    """The board of this platform (board/base.py's interface)."""
    if sys.platform == "rp2":
        from goclockfw.board import rp2board as family
    elif sys.platform == "esp32":
        from goclockfw.board import esp32board as family
    else:
        from goclockfw.desktop import board as family
    return family.make_board()


def run():
    _package_in_place()
    board = make_board()
    failures = 0
    while not board.quit:
        try:
            from goclockfw.app.loop import Loop

            Loop(board).run()
        except KeyboardInterrupt:
            raise
        except Exception as e:  # start again: the checkpoint brings the game back
            failures += 1
            sys.print_exception(e)
            if board.family == "desktop" and failures >= 3:
                sys.exit(1)
            time.sleep_ms(500)
    board.close()
