"""The clock's logs on their way to the broker, for `goclock bridge --hall` (hall.py).

Each game's log goes in slices (hallformat.py), pulled with `logs.get` from the record
after the last one the broker acknowledged (PUBACK). That cursor is kept on disk per
clock and game (`<state_dir>/<hall>+<clock>.json`), so a restart, a broker outage or a
replug resends from there: never a gap; perhaps a few records twice, which the hall drops
by `rec`. Everything here runs on the bridge's event loop.
"""

import asyncio
import base64
import json
import logging
import os

from goclockfw.storage import logline

from . import hallformat as fmt

log = logging.getLogger("goclock.bridge")

CHUNK = 512  # logs.get's most


class Cursor:
    """How far the broker has each game's log: {game: [rec, offset, c]}, on disk; `c` is
    that record's checksum, which tells this clock's game from another's of the same
    number (a clock whose flash was wiped counts its games from 1 again)."""

    def __init__(self, path):
        self.path = path
        self.games = {}
        try:
            with open(path) as f:
                data = json.load(f)
            self.games = {
                int(g): [int(v[0]), int(v[1]), str(v[2])] for g, v in data["games"].items()
            }
        except (OSError, ValueError, TypeError, AttributeError, KeyError, IndexError):
            pass  # no cursor yet (or a damaged one): the logs are sent from their start

    def get(self, game):
        """(rec, offset, checksum) of the last record the broker has; (0, 0, None)."""
        return tuple(self.games.get(game, (0, 0, None)))

    def advance(self, game, rec, offset, c):
        if rec <= self.games.get(game, (0, 0, None))[0]:
            return
        self.games[game] = [rec, offset, c]
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        tmp = self.path + ".new"
        with open(tmp, "w") as f:
            json.dump({"games": {str(g): v for g, v in self.games.items()}}, f)
        os.replace(tmp, self.path)


class GameLog:
    """One game's log on its way to the broker: sent up to `sent`, acknowledged to `acked`."""

    def __init__(self, game, acked):
        self.game = game
        self.acked = acked  # (rec, offset)
        self.sent = acked
        self.records = {}  # rec -> the record (parsed) read from the log, for event matching
        self.unacked = {}  # rec -> end offset, published and not yet PUBACKed
        self.ends = {}  # rec -> end offset, of the records published since the last ack
        self.ended = False


class LogSync:
    """The logs of one clock's games, sent and acknowledged: `hall` is the publisher
    (its `connected`, `status` and `publish`), `hub` the clock's line."""

    def __init__(self, hall, hub, cursor):
        self.hall = hall
        self.hub = hub
        self.cursor = cursor
        self.logs = {}  # game -> GameLog
        self.mids = {}  # mid -> (game, rec, end offset)
        self.lock = asyncio.Lock()

    def restart(self):
        """A new connection to the broker: resend what was not acknowledged."""
        self.mids.clear()
        for g in self.logs.values():
            g.sent = g.acked
            g.unacked.clear()

    def resend_from(self, game, rec, offset):
        """The hall has `game` up to `offset`, record `rec`: send again from there (the
        caller holds `lock`)."""
        g = self.logs.get(game)
        if g is None:
            self.logs[game] = GameLog(game, (rec, offset))
        elif offset < g.sent[1]:
            g.sent = (rec, offset)
            g.ended = False
            for r in [r for r in g.unacked if r > rec]:
                del g.unacked[r]

    def rec_of(self, game, ev):
        g = self.logs.get(game)
        if g is None:
            return None
        for rec in sorted(g.records, reverse=True):
            r = g.records[rec]
            if (
                r.get("event") == ev.get("event")
                and r.get("t") == ev.get("t")
                and r.get("side") == ev.get("side")
            ):
                return rec
        return None

    async def sync(self):
        if not self.hall.connected or self.hub.state != "up":
            return
        async with self.lock:
            game = (self.hall.status or {}).get("game")
            games = sorted(
                {g for g, log_ in self.logs.items() if not log_.ended}
                | ({game} if game is not None else set())
            )
            for g in games:
                await self._sync_game(g)

    async def _sync_game(self, game):
        g = self.logs.get(game)
        if g is None:
            rec, offset, c = self.cursor.get(game)
            if offset and not await self._same_log(game, offset, c):
                log.warning(
                    "hall: game %d on the clock is not the one the cursor knows (a new flash?): "
                    "its log is sent from the start",
                    game,
                )
                rec, offset = 0, 0
            g = self.logs[game] = GameLog(game, (rec, offset))
        rec, offset = g.sent
        data = b""
        while self.hall.connected:
            r = await self.hub.request(
                "logs.get", game=game, offset=offset + len(data), length=CHUNK
            )
            if not r.get("ok"):
                if str(r.get("error", "")).startswith("no game"):
                    g.ended = True  # cleared from the clock: nothing more will come
                return
            data += base64.b64decode(r.get("data") or "")
            if r.get("eof") or not r.get("data"):
                break
        cut, used = fmt.slices(data, offset, rec)
        for rec_no, at, body in cut:
            try:
                last = body[body.rfind(b"\n", 0, len(body) - 1) + 1 :]
                g.records[rec_no] = json.loads(logline.after_marks(last))
            except ValueError:
                g.records[rec_no] = {}
            end = at + len(body)
            info = self.hall.publish("log/%d" % game, fmt.slice_payload(rec_no, at, body))
            if info is None:
                return
            g.unacked[rec_no] = end
            g.ends[rec_no] = end
            g.sent = (rec_no, end)
            self.mids[info.mid] = (game, rec_no, end)
            if g.records[rec_no].get("event") == "end":
                g.ended = True

    async def _same_log(self, game, offset, c):
        """Does the clock's log of `game` have the record with checksum `c` end at `offset`?"""
        start = max(0, offset - CHUNK)
        r = await self.hub.request("logs.get", game=game, offset=start, length=offset - start)
        if not r.get("ok"):
            return False
        data = base64.b64decode(r.get("data") or "")
        if len(data) != offset - start or not data.endswith(b"\n"):
            return False
        try:
            last = json.loads(logline.after_marks(data[:-1].rsplit(b"\n", 1)[-1]))
        except ValueError:
            return False
        return isinstance(last, dict) and last.get("c") == c

    def acked(self, mid):
        found = self.mids.pop(mid, None)
        if found is None:
            return
        game, rec, _end = found
        g = self.logs.get(game)
        if g is None:
            return
        g.unacked.pop(rec, None)
        # The cursor moves to the newest record with nothing unacknowledged before it.
        upto = min(g.unacked) - 1 if g.unacked else g.sent[0]
        if upto > g.acked[0] and upto in g.ends:
            g.acked = (upto, g.ends[upto])
            self.cursor.advance(game, upto, g.ends[upto], g.records.get(upto, {}).get("c"))
            for r in [r for r in g.ends if r < upto]:
                del g.ends[r]
