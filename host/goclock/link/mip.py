"""The display's driver onto a board: micropython-lib's `ssd1306`, installed by mip through
mpremote (`mpremote connect PORT mip install ssd1306`).

The firmware draws on an SSD1306 through micropython-lib's driver (goclockfw/board/mcu.py
imports `ssd1306`); without it a board with a display runs blind, saying so in its
notices. mip fetches the package from micropython.org's index on this computer and writes
it to the board's /lib, compiled for its MicroPython: it needs the network, so when it
cannot be had the deploy goes on and says how to install the driver later.
"""

from . import mpremote_run

DRIVER = "ssd1306"
TIMEOUT_S = 180  # a slow link and a slow board: mip writes a few KB through the raw REPL


def mpremote_binary():
    """mpremote beside this Python, or on PATH; None (mpremote_run.py)."""
    return mpremote_run.mpremote_binary()


def later(port):
    """The command that installs the driver by hand."""
    return "mpremote connect %s mip install %s" % (port, DRIVER)


def install(port, binary=None):
    """Install the driver on the board at `port`: (True, None), or (False, why not)."""
    return mpremote_run.run_mpremote(
        port, ("mip", "install", DRIVER), TIMEOUT_S, binary or mpremote_binary()
    )
