"""A small app behind firmware/goclockfw/protocol/commands.py for the protocol tests.

It implements the app interface documented at the top of protocol/commands.py over a
real GameClock, a ConfigStore and a GameLogStore on a given FS, with a tick
the test moves by hand. It runs on CPython and on the MicroPython unix port.
`snapshot()` is everything a request could change, so tests can check that a
refused request changed nothing.
"""

import json

from goclockfw.core import gameclock, timecontrol
from goclockfw.storage.checkpoint import CheckpointStore
from goclockfw.storage.configstore import ConfigStore
from goclockfw.storage.gamelog import GameLogStore


class FakeApp:
    def __init__(self, fs):
        self.now = 0
        self.store = ConfigStore(fs)
        self.store.load()
        self.logs = GameLogStore(fs)
        self.checkpoints = CheckpointStore(fs)
        self.protocol = None  # set by the test to see event lines
        self.game_start = 0
        self._new_game(self.store.config["time_control"])

    # -- the clock's listener --------------------------------------------

    def on_clock(self, kind, side, tick, value):
        t = tick - self.game_start
        self.logs.record_clock(self.clock, kind, side, t, tick, value)
        if self.protocol is not None:
            self.protocol.clock_event(self.clock, kind, side, t, tick, value)

    def _new_game(self, tc_json):
        self.tc = timecontrol.parse(tc_json)
        self.clock = gameclock.GameClock(self.tc, self)
        self.game_start = self.now
        self.logs.begin(0, {"time_control": self.tc.to_json()})

    def _checkpoint(self):
        data = {"game": self.logs.current, "clock": self.clock.checkpoint(self.now)}
        self.checkpoints.save(data, self.now)

    # -- the app interface -----------------------------------------------

    def info(self):
        return {
            "version": "test",
            "board": "fake",
            "flash_free": self.logs.fs.free(),
            "ram_free": 0,
            "battery_mv": None,
            "voices": ["zh"],
        }

    def status(self):
        self.clock.advance(self.now)
        status = self.clock.status(self.now)
        status["time_control"] = self.tc.to_json()
        status["game"] = self.logs.current
        return status

    def get_config(self):
        return dict(self.store.config)

    def set_config(self, cfg):
        if self.clock.state == gameclock.RUNNING:
            raise ValueError("clock is running: pause it first")
        self.store.save(config=cfg)
        self.logs.record("config", self.now - self.game_start, None, None, {"config": cfg})

    def get_presets(self):
        return list(self.store.presets)

    def set_presets(self, presets):
        self.store.save(presets=presets)

    def pause(self):
        if not self.clock.pause(self.now):
            raise ValueError(self.clock.reason)
        self._checkpoint()

    def resume(self):
        if not self.clock.resume(self.now):
            raise ValueError(self.clock.reason)

    def reset(self, preset):
        if self.clock.state == gameclock.RUNNING:
            raise ValueError("a clock is running: pause it first")
        tc = self.store.config["time_control"]
        if preset is not None:
            tc = self.store.presets[preset]["time_control"]
        self.logs.end(self.now - self.game_start, "reset")
        self.checkpoints.clear()
        self._new_game(tc)

    def press(self, side):
        c = self.clock
        if c.state == gameclock.IDLE:
            ok = c.start(self.now)  # a press in idle starts the first side's clock
        else:
            ok = c.press(self.now, side)
        if ok:
            self._checkpoint()
        return ok, (None if ok else c.reason)

    def late(self, side):
        return self._accepted(self.clock.late(self.now, side))

    def arrive(self, side):
        return self._accepted(self.clock.arrive(self.now, side))

    def _accepted(self, ok):
        if ok:
            self._checkpoint()
        return ok, (None if ok else self.clock.reason)

    def time_set(self, side, main_ms, periods, period_ms, moves):
        self.clock.adjust(side, main_ms, periods, period_ms, moves, now=self.now)

    def snapshot(self):
        """Everything a request may change, as comparable JSON text."""
        st = self.status()
        return json.dumps(
            [
                st,
                self.store.config,
                self.store.presets,
                self.logs.list(),
                self.logs.current,
                self.protocol.watching if self.protocol else None,
            ]
        )
