"""A scripted fake goclock behind a pty, for the host tool's tests.

It answers the protocol of docs/protocol.md from a small in-memory state, and can be told to
misbehave: answer garbage, stay silent, speak another protocol version, push events, or drop
the line after some bytes of a log (an unplugged cable). Not a clock: times do not run.
"""

import base64
import json
import os
import pty
import select
import threading
import tty

SIDE = {"main_ms": 3600000, "flagged": False, "periods": 5, "period_ms": 30000}


class FakeClock:
    def __init__(self):
        self.state = "idle"
        self.turn = None
        self.moves = 0
        self.sides = {"black": dict(SIDE), "white": dict(SIDE)}
        self.config = {
            "time_control": {"type": "byoyomi", "main": 3600, "periods": 5, "period": 30},
            "volume": 7,
            "voice": "zh",
            "buttons": {"left": "black"},
            "battery_low_mv": 3500,
        }
        self.presets = []
        self.logs = {}  # game -> bytes
        self.protocol = 2
        self.voices = ["zh", "ja"]
        self.absent = set()
        self.mode = "normal"  # normal | garbage | silent | banner
        self.cut_after = None  # bytes of log data served before the line drops
        self.served = 0
        self.events_on_watch = []
        self.after = []
        self.requests = []
        self.lines = []  # every line received, as bytes
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def close(self):
        self._stop = True
        self._thread.join(timeout=2)
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass

    # -- the line ---------------------------------------------------------

    def _send(self, obj):
        data = (obj if isinstance(obj, str) else json.dumps(obj, ensure_ascii=False)) + "\n"
        os.write(self.master, data.encode("utf-8"))

    def _serve(self):
        buf = b""
        while not self._stop:
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if not ready:
                continue
            try:
                chunk = os.read(self.master, 4096)
            except OSError:
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                self.lines.append(line)
                if not line:
                    continue  # as the clock does: an empty line gets no reply
                if self._answer(line) == "drop":
                    os.close(self.master)
                    return

    def _answer(self, line):
        if self.mode == "silent":
            return None
        if self.mode == "garbage":
            self._send("rst:0x1 (POWERON_RESET),boot:0x13 (SPI_FAST_FLASH_BOOT)")
            self._send(">>> ")
            return None
        if self.mode == "banner":
            self._send("MicroPython v1.28 on unix; booting goclock")
        try:
            req = json.loads(line)
        except ValueError:
            self._send({"id": None, "ok": False, "error": "bad JSON"})
            return None
        self.requests.append(req)
        rid = req.get("id")
        handler = getattr(self, "cmd_" + req.get("cmd", "").replace(".", "_"), None)
        if handler is None:
            self._send({"id": rid, "ok": False, "error": "unknown command '%s'" % req.get("cmd")})
            return None
        try:
            result = handler(req)
        except ValueError as exc:
            self._send({"id": rid, "ok": False, "error": str(exc)})
            return None
        if result == "drop":
            return "drop"
        result.update(id=rid, ok=True)
        self._send(result)
        while self.after:
            self._send(self.after.pop(0))
        return None

    # -- commands ---------------------------------------------------------

    def status(self):
        return {
            "state": self.state,
            "turn": self.turn,
            "black": dict(self.sides["black"]),
            "white": dict(self.sides["white"]),
            "time_control": self.config["time_control"],
            "game": max(self.logs) if self.logs else None,
            "moves": self.moves,
        }

    def cmd_info(self, req):
        info = self._info()
        if self.voices is None:  # firmware that does not list its voice packs
            del info["voices"]
        return info

    def _info(self):
        return {
            "version": "0.1.0-fake",
            "protocol": self.protocol,
            "board": "fake",
            "flash_free": 800000,
            "ram_free": 150000,
            "battery_mv": None,
            "voices": list(self.voices or ()),
        }

    def cmd_status(self, req):
        return self.status()

    def cmd_config_get(self, req):
        return {"config": self.config}

    def cmd_config_set(self, req):
        if self.state == "running":
            raise ValueError("clock is running: pause it first")
        self.config.update(req["config"])
        return {"config": self.config}

    def cmd_presets_get(self, req):
        return {"presets": self.presets}

    def cmd_presets_set(self, req):
        if len(req["presets"]) > 10:
            raise ValueError("at most 10 presets")
        self.presets = req["presets"]
        return {"presets": self.presets}

    def cmd_watch(self, req):
        if req["on"]:
            self.after = list(self.events_on_watch)  # pushed right after the reply
        return {"on": req["on"]}

    def cmd_pause(self, req):
        if self.state != "running":
            raise ValueError("nothing is running")
        self.state = "paused"
        return {"state": self.state}

    def cmd_resume(self, req):
        if self.state != "paused":
            raise ValueError("not paused")
        self.state = "running"
        return {"state": self.state}

    def cmd_press(self, req):
        side = req["side"]
        if self.state == "idle" and side == "white":
            self.state, self.turn = "running", "black"
            return {"accepted": True}
        if self.state == "running" and side == self.turn:
            self.turn = "white" if side == "black" else "black"
            self.moves += 1
            return {"accepted": True}
        return {"accepted": False, "reason": "not your clock"}

    def cmd_late(self, req):
        if self.moves or self.state == "ended":
            return {"accepted": False, "reason": "lateness is only marked at the start of the game"}
        self.absent.add(req["side"])
        return {"accepted": True}

    def cmd_arrive(self, req):
        if req["side"] not in self.absent:
            return {"accepted": False, "reason": "this side was not marked late"}
        self.absent.discard(req["side"])
        return {"accepted": True}

    def cmd_time_set(self, req):
        if self.state == "running":
            raise ValueError("clock is running: pause it first")
        side = self.sides[req["side"]]
        if "main" in req:
            side["main_ms"] = int(req["main"] * 1000)
        if "periods" in req:
            side["periods"] = req["periods"]
        if "period" in req:
            side["period_ms"] = int(req["period"] * 1000)
        return dict(side)

    def cmd_maintenance(self, req):
        ended = max(self.logs) if self.logs and self.state in ("running", "paused") else None
        self.state = "idle"
        return {"ended": ended}

    def cmd_reset(self, req):
        if self.state == "running":
            raise ValueError("a clock is running: pause it first")
        self.state, self.turn, self.moves = "idle", None, 0
        tc = self.config["time_control"]
        if "preset" in req:  # numbered from 1
            if not 1 <= req["preset"] <= len(self.presets):
                raise ValueError("no preset %d" % req["preset"])
            tc = self.presets[req["preset"] - 1]["time_control"]
        return {"state": self.state, "time_control": tc}

    def cmd_logs_list(self, req):
        return {
            "logs": [
                {"game": g, "size": len(d), "records": None} for g, d in sorted(self.logs.items())
            ]
        }

    def cmd_logs_get(self, req):
        game = req["game"]
        if game not in self.logs:
            raise ValueError("no game %d" % game)
        data = self.logs[game]
        offset = req.get("offset", 0)
        chunk = data[offset : offset + min(req.get("length", 512), 512)]
        if self.cut_after is not None and self.served + len(chunk) > self.cut_after:
            return "drop"
        self.served += len(chunk)
        return {
            "game": game,
            "offset": offset,
            "size": len(data),
            "data": base64.b64encode(chunk).decode(),
            "eof": offset + len(chunk) >= len(data),
        }

    def cmd_logs_clear(self, req):
        games = [req["game"]] if "game" in req else list(self.logs)
        for g in games:
            self.logs.pop(g, None)
        return {"removed": len(games)}


class _Recorder:
    """Collects the clock's events for `game_log` (the clock calls `on_clock`).

    Like firmware/goclockfw/app/app.py, a press is logged with the side's status taken at the press.
    """

    def __init__(self):
        self.events = []
        self.clock = None

    def on_clock(self, kind, side, tick, value):
        left = None
        if kind == "press":  # its number (from 1), then the side's status, as events.py writes
            st = self.clock.side_status(side, tick)
            left = [("move", self.clock.moves_made)] + [(k, st[k]) for k in STATUS if k in st]
        self.events.append((kind, side, tick, value, left))


STATUS = ("main_ms", "flagged", "periods", "moves", "period_ms")


def game_log(directory, time_control, presses, pause=None):
    """The bytes of a game log as the clock writes it: a game played by the real session.

    `presses` is a list of (t_ms, side) with side 0/1; White's button starts Black's clock
    at 0. `pause` is an optional (t_pause, t_resume), both before the next press. The game
    ends with a reset, so the log has its "end" record.
    """
    from support.sessions import make_session

    s = make_session(player=False)
    s.set_config(dict(s.store.config, time_control=time_control))
    s.reset(None)
    s.button_press(1, 0)
    for t, side in presses:
        if pause and pause[0] <= t:
            s.step(pause[0])
            s.pause()
            s.step(pause[1])
            s.resume()
            pause = None
        s.step(t)
        s.button_press(side, t)
    end = presses[-1][0] + 1 if presses else 1
    s.step(end)
    if s.clock.state == "running":
        s.pause()
    gid = s.journal.current
    s.reset(None)
    return gid, s.journal.read(gid, 0, 1 << 24)[0]
