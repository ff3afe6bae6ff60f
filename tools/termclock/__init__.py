"""The terminal clock (`make sim`, `python -m tools.termclock`): the firmware under the
MicroPython unix port on the desktop board, drawn in the terminal (screen.py) or playing a
scripted demo game when stdin is not a terminal (demo.py)."""
