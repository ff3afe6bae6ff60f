"""The application: a GameClock at a board, with its config, game log, checkpoints and voice.

`App(board)` boots: the config (a damaged one falls back to defaults and says
so), a game cut off by a power loss (resumed paused, as of its checkpoint),
the voice pack and the speaker. `run()` is the main loop (app/app_loop.py); what
the arbiter key and the serial protocol may ask is in app/app_api.py. This part
keeps the records: every clock event goes to the game log, to a watching
host and, for calls, to the announcer; checkpoints are written at every
press, at every state change that must survive a power cut, and every 10 s
while a clock runs. Times are ms ticks; `t` in records is game time (ms since
the start, pauses included), carried across a power loss by the checkpoint.
"""

from array import array

from goclockfw.app.announcer import Announcer
from goclockfw.app.app_api import AppApi
from goclockfw.app.app_loop import MAX_WAIT_MS, QUEUE, MainLoop
from goclockfw.app.battery import BatteryWatch
from goclockfw.app.buttons import Debouncer
from goclockfw.app.gestures import Gestures
from goclockfw.core import gameclock
from goclockfw.core.ticks import ticks_diff
from goclockfw.core.timecontrol import parse
from goclockfw.protocol.commands import Protocol
from goclockfw.storage.checkpoint import CheckpointStore
from goclockfw.storage.configstore import ConfigStore
from goclockfw.storage.gamelog import GameLogStore

# Clock events after which the state is saved at once, not at the next 10 s checkpoint:
# a power cut must not bring back a game that had already ended, or a period used up.
_SAVE_AFTER = ("timeout", "forfeit", "period", "byoyomi", "overtime", "block")
_IGNORED_PRESS = (("do", "press"),)  # what an "ignored" event refused (only presses here)
RUNNING = gameclock.RUNNING
PAUSED = gameclock.PAUSED
IDLE = gameclock.IDLE


class App(MainLoop, AppApi):
    def __init__(self, board):
        self.board = board
        self.fs = board.fs
        self.store = ConfigStore(self.fs)
        self.logs = GameLogStore(self.fs)
        self.checkpoints = CheckpointStore(self.fs)
        self.deb = Debouncer()
        self.gestures = Gestures(self)
        self.announcer = Announcer()
        self.protocol = Protocol(self, self._send)
        self.display = None
        self._view = None  # display.view, imported only where something shows it
        if board.display is not None or board.has_console:
            from goclockfw.app import display

            self._view = display.view
            if board.display is not None:
                self.display = display.Ssd1306View(board.display)
        self.now = board.ticks()
        self.game_start = self.now  # tick at game time game_t0
        self.game_t0 = 0
        self.pending = []  # notices for the next game log
        self.errors = 0  # exceptions caught by the loop
        self._side_of = bytearray(2)  # physical button (LEFT, RIGHT) -> side
        self._qkind = bytearray(QUEUE)  # confirmed button changes of one step
        self._qch = bytearray(QUEUE)
        self._qtick = array("i", [0] * QUEUE)
        self._changed = True
        self._cp_soon = False
        self._kbd = None
        self._last_view = None
        self._view_at = self.now
        self._status_at = self.now
        self._led = -1
        self._storage_error = None
        # Virtual time (desktop tests) has no interrupts to poll for: jump further.
        self.max_wait = 1000 if getattr(board, "virtual", False) else MAX_WAIT_MS
        self.clock = None
        self.tc = None
        self._boot()

    # ----- boot --------------------------------------------------------------

    def _boot(self):
        warning = self.store.load()
        if self.store.missing:
            self._save_config_quietly()  # first boot: store the defaults
        elif warning is not None:
            self._notice("config_damaged", warning)
        for text in getattr(self.board, "notices", ()):
            self._notice("hardware", text, speak=False)
        self.battery = BatteryWatch(self.store.config["battery_low_mv"])
        self._apply_config()
        try:
            self.logs.recover()
        except (OSError, ValueError) as e:
            self._notice("storage", "log recovery failed: %s" % e, speak=False)
        data, warning = self.checkpoints.load()
        if warning:
            self._notice("storage", warning, speak=False)
        if data is not None and self._restore(data):
            self._notice(
                "power_resume",
                "game %s resumed after a power loss, paused at move %d"
                % (data.get("game"), self.clock.moves_made),
            )
        else:
            self.checkpoints.clear()
            self._new_clock(self.store.config["time_control"])
        self._update_kbd()

    def _restore(self, data):
        try:
            cdata = data["clock"]
            tc = parse(cdata["time_control"])
            clock = gameclock.GameClock.restore(tc, cdata, self)
            t = data["t"]
            gid = data["game"]
            if not isinstance(t, int) or clock.state not in (PAUSED, gameclock.ENDED):
                raise ValueError("state %r" % clock.state)
        except (KeyError, ValueError, TypeError, IndexError, AttributeError) as e:
            self._notice("storage", "checkpoint unusable (%s): new game" % e, speak=False)
            return False
        self.tc = tc
        self.clock = clock
        self.game_t0 = t
        self.game_start = self.now
        if gid is None or not self.logs.resume(gid):
            self._begin_log()
        return True

    def _save_config_quietly(self):
        try:
            self.store.save()
        except OSError:
            pass

    def _apply_config(self):
        cfg = self.store.config
        left_is_black = cfg["buttons"]["left"] == "black"
        self._side_of[0] = 0 if left_is_black else 1
        self._side_of[1] = 1 if left_is_black else 0
        self.battery.low_mv = cfg["battery_low_mv"]
        if self.announcer.pack != cfg["voice"] or self.announcer.player is None:
            warning = self.announcer.load_pack(self.board.sounds, cfg["voice"])
            if warning:
                self._notice("voice", warning, speak=False)
            self.announcer.set_player(self.board.make_player(self.announcer.rate, cfg["volume"]))
        elif self.announcer.player is not None:
            self.announcer.player.set_volume(cfg["volume"])
        if self.board.has_console:
            self.announcer.echo = self._echo
            self.board.console({"buttons": cfg["buttons"]})

    def _new_clock(self, tc_json):
        self.tc = parse(tc_json)
        self.clock = gameclock.GameClock(self.tc, self)
        self.game_t0 = 0
        self.game_start = self.now
        self._changed = True

    # ----- records ---------------------------------------------------------------

    def _t(self, tick):
        if self.clock is None or self.clock.state == IDLE:
            return 0
        return self.game_t0 + ticks_diff(tick, self.game_start)

    def _begin_log(self):
        try:
            self.logs.begin(self._t(self.now), {"time_control": self.tc.to_json()})
        except (OSError, ValueError) as e:
            self._storage("game log not started: %s" % e)
        pending = self.pending
        self.pending = []
        for notice, text in pending:
            self.logs.record(
                "log", self._t(self.now), None, None, {"notice": notice, "message": text}
            )

    def on_clock(self, kind, side, tick, value):
        """The clock's listener: log, tell the host, speak."""
        t = self._t(tick)
        extra = _IGNORED_PRESS if kind == "ignored" else None
        if kind == "press":
            self.announcer.cancel_side(side)
        elif kind == "call":
            self.announcer.say(value, side, tick, self.board.ticks())
        if self.logs.current is None and kind != "call":
            self._begin_log()
        if kind in _SAVE_AFTER:
            self._cp_soon = True  # checkpointed by the loop, once the clock is done changing
        clock = self.clock
        if not self.logs.record_clock(clock, kind, side, t, tick, value, extra):
            if self.logs.current is not None:
                self._storage(self.logs.error)
        self.protocol.clock_event(clock, kind, side, t, tick, value, extra)
        self._changed = True

    def _notice(self, notice, message, speak=True):
        """A device notice: spoken (when it has a clip), logged, pushed to the host."""
        if speak:
            self.announcer.notice(notice)
        if self.logs.current is not None:
            self.logs.record(
                "log", self._t(self.now), None, None, {"notice": notice, "message": message}
            )
        elif len(self.pending) < 8:
            self.pending.append((notice, message))
        self.protocol.event("log", {"notice": notice, "message": message})
        if self.board.has_console:
            self.board.console({"notice": notice, "message": message})

    def _storage(self, message):
        if message != self._storage_error:
            self._storage_error = message
            self._notice("storage", message, speak=False)

    def _echo(self, phrase):
        self.board.console({"say": phrase, "t": self._t(self.now)})

    def _checkpoint(self):
        if self.clock.state == IDLE:
            return
        data = {
            "game": self.logs.current,
            "t": self._t(self.now),
            "clock": self.clock.checkpoint(self.now),
        }
        if not self.checkpoints.save(data, self.now):
            self._storage(self.checkpoints.error)

    def _send(self, text):
        self.board.write_serial(text)
        self.board.write_serial("\n")

    def _update_kbd(self):
        # Ctrl-C on the line must not stop a game; idle, mpremote may break in.
        want = self.clock.state not in (RUNNING, PAUSED)
        if want != self._kbd:
            self._kbd = want
            self.board.kbd_intr(want)
