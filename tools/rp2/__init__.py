"""The firmware on the real MicroPython rp2 port, on an emulated Pico (README.md)."""
