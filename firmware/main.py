"""Start the clock on the board this runs on: RP2040, ESP32, or the desktop (unix port).

The board's hardware layer is picked by `sys.platform`; its pin map is
/board.json on a real board (copied from boards/ by `make flash`). If the
application fails to start (a bug, a broken flash), it is started again: a
clock that can come up must come up. A KeyboardInterrupt (Ctrl-C while no
game runs, as mpremote sends) ends it and leaves the REPL to the host.
"""

import sys
import time


def make_board():
    if sys.platform == "rp2":
        import hal_rp2 as hal
    elif sys.platform == "esp32":
        import hal_esp32 as hal
    else:
        import hal_desktop as hal
    return hal.make_board()


def main():
    board = make_board()
    failures = 0
    while not board.quit:
        try:
            from app import App

            App(board).run()
        except KeyboardInterrupt:
            raise
        except Exception as e:  # start again: the checkpoint brings the game back
            failures += 1
            sys.print_exception(e)
            if board.family == "desktop" and failures >= 3:
                sys.exit(1)
            time.sleep_ms(500)
    if hasattr(board, "close"):
        board.close()


main()
