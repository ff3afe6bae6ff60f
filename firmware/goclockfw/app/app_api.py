"""What the arbiter key and the serial protocol may ask of the application (a part of App).

The methods under "gestures" are the app interface of app/gestures.py; those
under "protocol" the one documented at the top of protocol/commands.py. A method that
refuses raises ValueError (the clock's ClockError and ConfigError are ones)
and changes nothing.
"""

from goclockfw.core import gameclock
from goclockfw.core.ticks import ticks_diff
from goclockfw.core.timecontrol import parse

VERSION = "0.1.0"
IDLE = gameclock.IDLE
RUNNING = gameclock.RUNNING


class AppApi:
    # ----- gestures ------------------------------------------------------------------

    def clock_state(self):
        return self.clock.state

    def can_timeout_pass(self):
        return self.clock.state == gameclock.ENDED and self.clock.loss == "byoyomi"

    def preset_count(self):
        return len(self.store.presets)

    def notice(self, name):
        self.announcer.notice(name)
        self._changed = True

    def arbiter_pause(self, tick):
        if self.clock.pause(tick):
            self.announcer.notice("pause")
            self._checkpoint()

    def arbiter_resume(self, now):
        if self.clock.resume(self.now):
            self.announcer.notice("resume")
            self._checkpoint()

    def arbiter_timeout_pass(self, now):
        if self.clock.timeout_pass(self.now):
            self.announcer.notice("timeout_pass")
            self._checkpoint()

    def arbiter_reset(self, preset):
        try:
            self.reset(preset)
            self.announcer.notice("reset")
        except ValueError as e:
            self._notice("error", str(e))

    def button_press(self, side, tick):
        """A player's button (or the protocol's virtual press) at `tick`: (accepted, reason)."""
        c = self.clock
        if c.state == IDLE:
            starter = 1 - self.tc.first  # the side that does not move first starts the clock
            if side != starter:
                name = gameclock.SIDE_NAMES[starter]
                ok, reason = False, "the game starts with %s's button" % name
            else:
                self.game_start = tick
                self.game_t0 = 0
                ok = c.start(tick)
                reason = c.reason
        else:
            ok = c.press(tick, side)
            reason = c.reason
        if ok:
            if ticks_diff(tick, self.now) > 0:
                self.now = tick
            self._checkpoint()
        elif c.state == IDLE:
            # No game yet, so no log: only a watching host hears of it.
            self.protocol.clock_event(c, "ignored", side, 0, tick, reason, (("do", "press"),))
        else:
            self.on_clock("ignored", side, tick, reason)
        return ok, (None if ok else reason)

    # ----- protocol ---------------------------------------------------------------------

    def info(self):
        return {
            "version": VERSION,
            "board": self.board.name,
            "flash_free": self.fs.free(),
            "ram_free": self.board.ram_free(),
            "battery_mv": self.board.battery_mv(),
        }

    def status(self):
        status = self.clock.status(self.now)
        status["time_control"] = self.tc.to_json()
        status["game"] = self.logs.current
        return status

    def get_config(self):
        return dict(self.store.config)

    def set_config(self, cfg):
        if self.clock.state == RUNNING:
            raise ValueError("a clock is running: pause it first")
        self.store.save(config=cfg)
        self._apply_config()
        if self.logs.current is not None:
            self.logs.record("config", self._t(self.now), None, None, {"config": cfg})
        self._changed = True

    def get_presets(self):
        return list(self.store.presets)

    def set_presets(self, presets):
        self.store.save(presets=presets)
        if self.gestures.menu >= len(presets):
            self.gestures.menu = -1

    def pause(self):
        if not self.clock.pause(self.now):
            raise ValueError(self.clock.reason)
        self._checkpoint()

    def resume(self):
        if not self.clock.resume(self.now):
            raise ValueError(self.clock.reason)
        self._checkpoint()

    def reset(self, preset):
        tc_json = self.store.config["time_control"]
        if preset is not None:
            tc_json = self.store.presets[preset]["time_control"]
        parse(tc_json)  # a bad time control is refused before anything changes
        if self.logs.current is not None:
            self.logs.end(self._t(self.now), "reset")
        self.checkpoints.clear()
        self.gestures.menu = -1
        self._new_clock(tc_json)

    def press(self, side):
        return self.button_press(side, self.now)

    def time_set(self, side, main_ms, periods, period_ms, moves):
        self.clock.adjust(side, main_ms, periods, period_ms, moves, now=self.now)
        self._checkpoint()
