"""The clock's identity: a stable `clock_id` in `info`, so a host can tell one clock's game logs
from another's (game 12 of this clock is not game 12 of the clock on the next table).

`goclock logs clear` deletes only the logs it has a verified copy of, and it keeps its
copies by this id (host/goclock/records/ledger.py). A board with a unique id of its own
(the RP2040's flash id, the ESP32's MAC: `machine.unique_id()`) gives that, in hex; a
board without one (the desktop, the browser) gets an id made once from random bytes and
kept in the flash file `clock-id`, so it stays the same across power cuts, deploys and
upgrades, and changes only when the flash is wiped (and with it every log it named).
"""

import binascii

NAME = "clock-id"
_HEX = "0123456789abcdef"


def _valid(text):
    return 8 <= len(text) <= 32 and all(ch in _HEX for ch in text)


def clock_id(fs, hardware=None):
    """The clock's id: `hardware` (bytes: the board's own unique id) in hex when given,
    else the id kept in `fs`, made now when there is none. Never raises: a flash that
    cannot take the file gives an id that holds until the next boot."""
    if hardware:
        return binascii.hexlify(bytes(hardware)).decode()
    stored = fs.read(NAME) if fs is not None else None
    if stored is not None:
        try:
            text = stored.decode().strip()
        except UnicodeError:
            text = ""
        if _valid(text):
            return text
    from goclockfw.storage.chunks import _nonce  # the chunks' random names: the same source

    made = _nonce(0)
    if fs is not None:
        try:
            fs.write_atomic(NAME, made.encode())
        except OSError:
            pass  # a full or failing flash: this id holds for this boot only
    return made
