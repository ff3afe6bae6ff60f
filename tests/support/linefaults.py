"""What can go wrong between the host and a clock that is not the clock's doing: a thin layer
on the test line (clockline.py), never inside the firmware.

The host must cope with a device that is not a goclock, or not this goclock's firmware,
and with a line that breaks. These are the line's faults, set on `line.faults`:

    mode = "silent"     a device that never answers (a board without the firmware)
    mode = "garbage"    a device that answers something else: an ESP32's boot banner and
                        REPL prompt in place of every reply
    mode = "banner"     the clock, with a boot banner before each reply (a board that has
                        just reset prints one)
    info = {...}        fields of the `info` reply replaced, as another firmware version
                        would answer: {"protocol": 3}; OMIT leaves a field out
                        ({"voices": OMIT}: a firmware from before voice packs were listed)
    cut_after = N       the cable is pulled once N bytes of log data have gone to the host:
                        the logs.get reply that would go past N never arrives, the line
                        is gone

Requests reach the clock only when the mode lets them (silent and garbage: never).
"""

import base64
import json

OMIT = object()
ESP32_BOOT = (
    b"rst:0x1 (POWERON_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)",
    b">>> ",
)
BANNER = b"MicroPython v1.28 on unix; booting goclock"


class Faults:
    def __init__(self):
        self.mode = None
        self.info = {}
        self.cut_after = None
        self.served = 0  # bytes of log data gone to the host

    def request(self, line):
        """A request line from the host: (whether the clock gets it, lines said first)."""
        if self.mode == "silent":
            return False, ()
        if self.mode == "garbage":
            return False, ESP32_BOOT
        if self.mode == "banner":
            return True, (BANNER,)
        return True, ()

    def reply(self, line, msg):
        """A line from the clock (`msg` parsed): the line the host gets, or None when the
        line drops here."""
        if not isinstance(msg, dict) or msg.get("ok") is not True:
            return line
        if self.info and "protocol" in msg:  # only `info` says its protocol
            for key, value in self.info.items():
                if value is OMIT:
                    msg.pop(key, None)
                else:
                    msg[key] = value
            return json.dumps(msg, separators=(",", ":")).encode()
        if self.cut_after is not None and "eof" in msg and "data" in msg:
            n = len(base64.b64decode(msg["data"]))
            if self.served + n > self.cut_after:
                return None
            self.served += n
        return line
