"""goclock's firmware: the clock core, its storage, the serial protocol, the application and
the boards, as one package (on a board: /lib/goclockfw, or frozen into the image).

    core/      the rules of time: tick math, time controls, the game clock, the calls
    storage/   flash: the config, the game logs, the resume point
    protocol/  the JSON-lines serial protocol
    app/       the clock at a board, without the board: buttons, gestures, voice, records
    audio/     what the speaker plays: clips and beep patterns
    board/     one module per board family (RP2040, ESP32, the desktop), the only hardware code
    scenario/  desktop-only: the scenario runner of `goclock simulate`

VERSION is the one place the version is kept: `info`, `goclock --version` and the host
package's metadata all read it.
"""

VERSION = "0.2.0"
