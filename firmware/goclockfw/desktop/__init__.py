"""The desktop board: the firmware under the MicroPython unix port on a PC (`make sim`, the tests).

Never copied to a clock: it stands in for pins, speaker and flash with a pty, JSON lines and a directory.
"""
