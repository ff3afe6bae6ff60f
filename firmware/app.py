"""The application: a GameClock at a board, with its config, game log, checkpoints and voice.

`App(board)` boots (config, a game cut off by a power loss, the voice pack)
and `step()` is one turn of the main loop:

  1. inputs: button edges recorded by interrupts are drained and debounced;
     a confirmed press is charged at its FIRST edge (buttons.py);
  2. the clock is advanced to now, but never past an edge still waiting for
     confirmation, so a press just before a deadline is charged before it;
  3. calls are played (announcer.py), serial requests answered (protocol.py);
  4. checkpoint, battery, LED, display, status events when due;
  5. the board sleeps until the next thing due (a deadline, a debounce
     window, a hold gesture), at most MAX_WAIT_MS.

Nothing in a step may stop the clock: every part that can fail (flash, a
request, the display) fails into a notice. The methods below `# protocol`
are the app interface of protocol.py; those below `# gestures` the one of
gestures.py. Times are ms ticks; `t` in records is game time (ms since the
start, pauses included), carried across a power loss by the checkpoint.
"""

from array import array

import gameclock
from announcer import Announcer
from battery import BatteryWatch
from buttons import ARBITER, CHANNELS, NONE, PRESS, Debouncer
from checkpoint import CheckpointStore
from configstore import ConfigStore
from gamelog import GameLogStore
from gestures import Gestures
from protocol import Protocol
from ticks import ticks_diff
from timecontrol import parse

VERSION = "0.1.0"
SIDES = ("black", "white")
MAX_WAIT_MS = 20
VIEW_MS = 100  # how often the shown view is recomputed while a clock runs
STATUS_MS = 1000  # status events while a clock runs (when watched)
QUEUE = 8  # button changes handled per step, at most
QUIET_MS = 40  # no slow work (display, periodic checkpoint) this close to a deadline
# Clock events after which the state is saved at once, not at the next 10 s checkpoint:
# a power cut must not bring back a game that had already ended, or a period used up.
_SAVE_AFTER = ("timeout", "forfeit", "period", "byoyomi", "overtime", "block")
RUNNING = gameclock.RUNNING
PAUSED = gameclock.PAUSED
IDLE = gameclock.IDLE


class App:
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
            import display

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
        if warning is not None and "damaged" in warning:
            self._notice("config_damaged", warning)
        elif warning is not None:
            self._save_config_quietly()  # first boot: store the defaults
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
        extra = None
        if kind == "press":
            extra = {"left": self.clock.side_status(side, tick)}
            self.announcer.cancel_side(side)
        elif kind == "call":
            self.announcer.say(value, side, tick, self.board.ticks())
        if self.logs.current is None and kind != "call":
            self._begin_log()
        if kind in _SAVE_AFTER:
            self._cp_soon = True  # checkpointed by the loop, once the clock is done changing
        if not self.logs.record(kind, t, side, value, extra) and self.logs.current is not None:
            self._storage(self.logs.error)
        self.protocol.clock_event(kind, side, t, value)
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

    # ----- the main loop ---------------------------------------------------------

    def run(self):
        while not self.board.quit:
            self.step()

    def step(self):
        try:
            self._step()
        except MemoryError:
            import gc

            gc.collect()
            self.errors += 1
        except Exception as e:  # a bug must not stop the clock: note it and go on
            self.errors += 1
            if self.errors < 20:
                self._notice("error", "%s: %s" % (type(e).__name__, e), speak=False)
            self.board.wait(1)

    def _step(self):
        b = self.board
        deb = self.deb
        now = b.ticks()
        b.poll_inputs(now)
        b.ring.drain(deb)
        for ch in range(CHANNELS):
            level = b.level(ch)
            deb.observe(ch, level, now)
            deb.settle(ch, level, now)
        self._buttons(now)
        limit = deb.hold(now)
        if ticks_diff(limit, self.now) > 0:
            self.now = limit
        self.clock.advance(self.now)
        self.gestures.poll(now)
        self.announcer.pump(now)
        data = b.read_serial()
        if data is not None:
            for reply in self.protocol.feed(data):
                self._send(reply)
        self._periodic(now)
        b.wait(self._wait_ms(now))

    def _buttons(self, now):
        # Confirmed changes, handled in the order of their ticks (two in one step is rare).
        deb = self.deb
        n = 0
        while n < QUEUE:
            kind = deb.pop()
            if kind == NONE:
                break
            self._qkind[n] = kind
            self._qch[n] = deb.channel
            self._qtick[n] = deb.tick
            n += 1
        while n:
            pick = 0
            for i in range(1, n):
                if ticks_diff(self._qtick[i], self._qtick[pick]) < 0:
                    pick = i
            kind = self._qkind[pick]
            ch = self._qch[pick]
            tick = self._qtick[pick]
            n -= 1
            self._qkind[pick] = self._qkind[n]
            self._qch[pick] = self._qch[n]
            self._qtick[pick] = self._qtick[n]
            if ticks_diff(tick, self.now) < 0:
                tick = self.now  # held back no longer (a chattering switch): never charge the past
            if ch == ARBITER:
                if kind == PRESS:
                    self.gestures.on_arbiter_down(tick, now)
                else:
                    self.gestures.on_arbiter_up(now)
            elif kind == PRESS:
                self.gestures.on_press(self._side_of[ch], tick, now)

    def _periodic(self, now):
        clock = self.clock
        running = clock.state == RUNNING
        nd = clock.next_deadline()
        quiet = nd is None or ticks_diff(nd, now) > QUIET_MS
        if quiet and (self._cp_soon or (running and self.checkpoints.due(self.now))):
            self._cp_soon = False
            self._checkpoint()
        if self.battery.due(now) and self.battery.check(self.board.battery_mv(), now):
            self._notice("battery_low", "battery low: %d mV" % self.battery.mv)
        if self._changed or (running and ticks_diff(now, self._view_at) >= VIEW_MS):
            self._view_at = now
            if self.display is not None or self.board.has_console:
                self._show(quiet)
        if self.protocol.watching and (
            self._changed or (running and ticks_diff(now, self._status_at) >= STATUS_MS)
        ):
            self._status_at = now
            self.protocol.event("status", self.status())
        if self._changed:
            self._update_kbd()
        self._changed = False
        self._set_led(now)

    def _show(self, quiet):
        menu = None
        if self.gestures.menu >= 0:
            p = self.store.presets[self.gestures.menu]
            menu = "%d %s" % (self.gestures.menu + 1, p["name"])
        v = self._view(self.status(), menu)
        if v == self._last_view:
            return
        if self.display is not None:
            if not quiet:
                return  # drawing takes ~25 ms of I2C: not on top of a call
            try:
                self.display.draw(v)
            except OSError as e:
                self.display = None
                self._notice("hardware", "display lost: %s" % e, speak=False)
        self._last_view = v
        if self.board.has_console:
            self.board.console({"view": v})

    def _set_led(self, now):
        # Lit while Black's clock runs; slow blink paused, fast blink on a flag.
        c = self.clock
        if c.state == RUNNING:
            on = 1 if c.turn == 0 else 0
        elif c.state == PAUSED:
            on = (now >> 9) & 1
        elif c.state == gameclock.ENDED:
            on = (now >> 7) & 1
        else:
            on = 0
        if on != self._led:
            self._led = on
            self.board.set_led(on)

    def _wait_ms(self, now):
        ms = self.max_wait
        nd = self.clock.next_deadline()
        if nd is not None and self.now == now:  # held back by an edge: the debounce wakes us
            d = ticks_diff(nd, now)
            if d < ms:
                ms = d
        # One by one, not in a tuple: this runs every step and must not allocate.
        d = self.deb.next_due(now)
        if 0 <= d < ms:
            ms = d
        d = self.gestures.next_due(now)
        if d is not None and d < ms:
            ms = d
        d = self.board.next_input_ms(now)
        if d is not None and d < ms:
            ms = d
        if self.announcer.busy() and ms > 5:
            ms = 5
        if self.clock.state == RUNNING:
            d = self.checkpoints.interval_ms
            if self.checkpoints.last is not None:
                d -= ticks_diff(now, self.checkpoints.last)
            if 0 < d < ms:  # an overdue one waits for a quiet moment: no 0 ms spin
                ms = d
            if (self.display is not None or self.board.has_console) and VIEW_MS < ms:
                ms = VIEW_MS
        return ms if ms > 0 else 0

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
                ok, reason = False, "the game starts with %s's button" % SIDES[starter]
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
            self.protocol.clock_event("ignored", side, 0, reason)  # no game, no log yet
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
        c = self.clock
        now = self.now
        return {
            "state": c.state,
            "turn": SIDES[c.turn] if c.turn >= 0 else None,
            "black": c.side_status(0, now),
            "white": c.side_status(1, now),
            "time_control": self.tc.to_json(),
            "game": self.logs.current,
            "moves": c.moves_made,
        }

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
