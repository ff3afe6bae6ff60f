"""How far the broker has each game's log: the hall's cursor, kept in flash (docs/hall.md).

    {"v": 1, "games": {"12": [rec, offset], ...}}

For each game still being sent: the number of the last record the broker PUBACKed and the
byte offset just after it in the served log. A game leaves the table once the broker has
all of it and it is finished. The file is small and written through the file system's
atomic write only when it moved, and only when the caller says the moment is quiet (a
littlefs write may erase a block): a power cut loses at most the moves since the last
write, which are then sent again (the hall deduplicates by record number), never skipped.
"""

import json

FILE = "hallcursor.json"
MAX_GAMES = 16  # a clock offline for a whole day of games still catches up


def _decode(data):
    obj = json.loads(data.decode())
    games = obj.get("games") if isinstance(obj, dict) else None
    if not isinstance(games, dict):
        raise ValueError("no games")
    return games


class Cursor:
    def __init__(self, fs):
        self.fs = fs
        self.games = {}  # gid -> [rec, offset] acknowledged
        self.dirty = False
        self.writes = 0
        self.problem = None

    def load(self):
        games, problem = self.fs.read_atomic(FILE, _decode)
        self.games = {}
        if games is None:
            self.problem = None if problem == "missing" else problem
            return
        for k in games:
            v = games[k]
            try:
                gid = int(k)
                rec, off = int(v[0]), int(v[1])
            except (ValueError, TypeError, IndexError):
                continue
            if rec >= 0 and off >= 0:
                self.games[gid] = [rec, off]

    def add(self, gid):
        if gid not in self.games:
            if len(self.games) >= MAX_GAMES:
                del self.games[min(self.games)]  # the oldest is given up: logs pull has it
            self.games[gid] = [0, 0]
            self.dirty = True

    def ack(self, gid, rec, off):
        g = self.games.get(gid)
        if g is not None and off > g[1]:
            g[0] = rec
            g[1] = off
            self.dirty = True

    def drop(self, gid):
        if gid in self.games:
            del self.games[gid]
            self.dirty = True

    def oldest(self):
        return min(self.games) if self.games else None

    def save(self):
        """Write it now (the caller found a quiet moment); False when the write failed."""
        games = {}
        for gid in self.games:
            games[str(gid)] = self.games[gid]
        try:
            self.fs.write_atomic(FILE, json.dumps({"v": 1, "games": games}).encode())
        except OSError as e:
            self.problem = "the hall's cursor could not be written: %s" % (e,)
            return False
        self.dirty = False
        self.writes += 1
        return True
