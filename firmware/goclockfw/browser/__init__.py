"""The browser board: the firmware in a web page, under MicroPython's WebAssembly port (never on a chip)."""
