"""goclock's firmware: the clock core, its storage, the serial protocol, the application and
the boards, as one package (on a board: /lib/goclockfw, or frozen into the image).

    core/      the rules of time: tick math, time controls, the game clock, the calls
    storage/   flash: the config, the game logs, the resume point
    protocol/  the JSON-lines serial protocol
    app/       the clock at a board, without the board: the session and its parts (the
               command layer, buttons, gestures, voice, records, flash upkeep), the loop
    audio/     what the speaker plays: clips and beep patterns
    board/     the board interface (base.py) and the chips' boards (RP2040, ESP32): the only
               code that touches hardware
    events.py  the one event line format (the log, the serial events, the simulator)
    boot.py    picks the board, builds the loop, runs it
    inplace.py at power-up, a package copied to /lib goes into the RP2040's ROMFS partition
    romfs.py   the ROMFS image of the package, streamed into the partition (the move)
    mpylayout.py  a .mpy's machine code on a word, to run in place from the ROMFS
    desktop/   desktop-only: the board on a PC (`make sim`, the tests) and the chip model
    browser/   browser-only: the board in a web page (MicroPython's WebAssembly port)
    scenario/  desktop-only: the scenario runner of `goclock simulate`

VERSION is the one place the version is kept: `info`, `goclock --version` and the host
package's metadata all read it.
"""

VERSION = "0.2.0"
