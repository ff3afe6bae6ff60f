"""Checkpoints of the running game, so a reset or power cut loses nothing before the last one.

The app saves one at every press and, while a clock runs, whenever `due(now)`
says the last is INTERVAL_MS old. The file is two lines, the JSON of
`{"seq": n, "data": <app's data>}` and its crc32 in hex, written with
FS.write_atomic: after a power cut, `load` finds the old checkpoint or the new
one, never a mix, and a damaged file is refused by its checksum. A finished
game clears its checkpoint, so a boot that finds one knows a game was cut off.
"""

import binascii
import json

from goclockfw.core.ticks import ticks_diff

FILE = "checkpoint.json"
INTERVAL_MS = 10000


def _crc(data):
    return binascii.crc32(data) & 0xFFFFFFFF


def encode(seq, data):
    """The file's content as two chunks: the JSON line, and the checksum line."""
    body = json.dumps({"seq": seq, "data": data}).encode()
    return body, b"\n%08x\n" % _crc(body)


def decode(raw):
    """The stored object ({"seq", "data"}) of a checkpoint file; ValueError if damaged."""
    parts = raw.split(b"\n")
    if len(parts) != 3 or parts[2] != b"" or len(parts[1]) != 8:
        raise ValueError("not a checkpoint")
    try:
        claimed = int(parts[1], 16)
    except ValueError:
        raise ValueError("bad checksum field") from None
    if claimed != _crc(parts[0]):
        raise ValueError("checksum mismatch")
    obj = json.loads(parts[0].decode())
    if not isinstance(obj, dict) or "data" not in obj or not isinstance(obj.get("seq"), int):
        raise ValueError("not a checkpoint")
    return obj


class CheckpointStore:
    """The running game's last checkpoint, in one file of an FS (storage/fs.py)."""

    def __init__(self, fs, name=FILE, interval_ms=INTERVAL_MS):
        self.fs = fs
        self.name = name
        self.interval_ms = interval_ms
        self.seq = 0  # of the last checkpoint written or loaded
        self.last = None  # tick of the last save attempt
        self.failures = 0
        self.error = None  # the last write problem, for the app to report

    def due(self, now):
        """True when a running clock needs a checkpoint at tick `now`."""
        return self.last is None or ticks_diff(now, self.last) >= self.interval_ms

    def save(self, data, now):
        """Write `data` (JSON-able) as the new checkpoint; never raises.

        Returns True once it is safely stored. On failure the old checkpoint
        stays, `error` says why, and the next try waits for `due` again.
        """
        self.last = now
        try:
            raw = encode(self.seq + 1, data)
            self.fs.write_atomic(self.name, raw)
        except (OSError, ValueError, TypeError) as e:
            self.failures += 1
            self.error = "checkpoint not written: %s" % e
            return False
        self.seq += 1
        return True

    def load(self):
        """(data, warning) of the stored checkpoint; data None when there is none.

        warning is None, or says the main copy was damaged (then the data,
        when not None, is the complete newer copy left by a cut write).
        """
        obj, problem = self.fs.read_atomic(self.name, decode)
        warning = None if problem in (None, "missing") else "checkpoint damaged (%s)" % problem
        if obj is None:
            return None, warning
        self.seq = obj["seq"]
        return obj["data"], warning

    def clear(self):
        """Forget the checkpoint (the game ended or was reset)."""
        # A leftover ".new" goes first: a cut between the two removals must
        # not leave it as the only, and stale, checkpoint.
        for n in (self.name + ".new", self.name):
            try:
                self.fs.remove(n)
            except OSError:
                pass
        self.last = None
