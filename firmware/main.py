"""Power-up: MicroPython runs /main.py. The clock starts in goclockfw/boot.py."""

from goclockfw.boot import run

run()
