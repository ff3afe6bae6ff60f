"""What anyone may ask of the clock or do to it: the one command layer.

Every command source calls these methods and nothing else of the session: the serial
protocol (protocol/commands.py), the arbiter key and the player buttons (app/gestures.py),
and the ones to come (a networked clock's MQTT `cmd` topic, a browser page). A command
does the same whoever asks; what it says at the board (the device notice the arbiter
key's action has always said: 暂停, 继续, 重新开局, 已记迟到, 到场 ...) and what it logs
are done here, so a pause sent by a host is announced exactly as one from the key.

One error convention. A command that cannot be done now raises `Refused` (a ValueError)
whose message says why, for a person ("a clock is running: pause it first"), and changes
nothing. Each source reports a refusal its own way: the protocol replies it (`"ok":
false` with the message, or `"accepted": false` with it as the `reason` for late and
arrive), the gestures say "cancel" at the board and log the message. A new source needs
only to call the command and report a `Refused`.

A player's press is the one input that is never refused: it counts, or it is ignored and
that is logged (an "ignored" event with its reason), as for a press at the board. So
`press` answers True or False, and `reason` says why a press was ignored.

Sides are ints (0 black, 1 white), times integer ms, ticks the board's ms ticks; `tick`
None means now (the session's time).
"""

from goclockfw import VERSION
from goclockfw.app.timeofday import EARLIEST, LATEST
from goclockfw.core import gameclock
from goclockfw.core.ticks import ticks_diff
from goclockfw.core.timecontrol import SIDE_NAMES, parse
from goclockfw.events import EventWriter
from goclockfw.modules import release

IDLE = gameclock.IDLE
RUNNING = gameclock.RUNNING
PAUSED = gameclock.PAUSED
ENDED = gameclock.ENDED
_IGNORED_PRESS = (("do", "press"),)
_RUNNING_REFUSAL = "a clock is running: pause it first"


_RESULT_WINS = ("", "R", "Resign", "T", "Time", "F", "Forfeit")
_RESULT_OTHER = ("0", "Draw", "Void", "?")


def valid_result(r):
    """An SGF RE value: B+R, W+T, B+F, B+ (a win), B+3.5 (by points), 0/Draw, Void, ?."""
    if not isinstance(r, str) or len(r) > 16:
        return False
    if r in _RESULT_OTHER:
        return True
    if r[:2] not in ("B+", "W+"):
        return False
    rest = r[2:]
    if rest in _RESULT_WINS:
        return True
    whole, _, frac = rest.partition(".")
    return whole.isdigit() and (frac == "" and "." not in rest or frac.isdigit())


class Refused(ValueError):
    """A command that cannot be done now; the message says why, for a person."""


class Commands:
    def __init__(self, session):
        self.s = session
        self.logs = session.journal  # the game logs (storage/journal.py: list, read, clear)
        self.reason = None  # why the last press was ignored
        self._clock_id = None  # made at the first `info` (storage/identity.py)
        self._tc = None  # the time control whose JSON `_tc_text` is (write_status)
        self._tc_text = b""

    # ----- what a source may ask ----------------------------------------------------

    def info(self):
        s = self.s
        board = s.board
        if self._clock_id is None:  # made once (rare: the module is let go after)
            from goclockfw.storage.identity import clock_id

            self._clock_id = clock_id(s.fs, board.unique_id())
            release(("goclockfw.storage.identity",))
        return {
            "version": VERSION,
            "clock_id": self._clock_id,  # not "id": a reply carries its request's id
            "board": board.name,
            "flash_free": s.fs.free(),
            "ram_free": board.ram_free(),
            "battery_mv": s.battery.mv,
            "voices": board.voices(),
        }

    def status(self):
        """The protocol's status object (docs/protocol.md): the game as of now."""
        s = self.s
        status = s.clock.status(s.now)
        status["time_control"] = s.tc.to_json()
        status["game"] = s.journal.current
        return status

    def write_status(self, w):
        """The status object's members written by `w` (events.EventWriter) in place: what
        `status()` says, nothing allocated (the time control's JSON is made once a game)."""
        s = self.s
        if s.tc is not self._tc:
            t = EventWriter(128)
            t.put_value(s.tc.to_json())
            self._tc_text = bytes(t.buf[: t.n])
            self._tc = s.tc
        w.status_members(s.clock, s.now, self._tc_text, s.journal.current)

    def get_config(self):
        """The config as anyone may see it: a password that is set reads "***"."""
        from goclockfw.storage.netconfig import public  # a source lets it go (modules.CONFIG)

        return dict(public(self.s.store.config))

    def with_secrets(self, cfg):
        """A config.set's merged config with the stored passwords it left out (or sent back
        as "***") put back in (storage/netconfig.py)."""
        from goclockfw.storage.netconfig import keep_secrets

        return keep_secrets(cfg, self.s.store.config)

    def get_presets(self):
        try:
            return self.s.store.presets()
        except OSError as e:
            raise Refused(str(e)) from None

    def clock_state(self):
        return self.s.clock.state

    def can_timeout_pass(self):
        c = self.s.clock
        return c.state == ENDED and c.loss == "byoyomi"

    def can_mark_late(self):
        c = self.s.clock
        return c.state in (IDLE, RUNNING) and c.moves_made == 0

    def is_absent(self, side):
        """Marked late and not arrived yet."""
        return self.s.clock.sides[side].absent

    def arbiter_called(self):
        return self.s.calling is not None

    def preset_count(self):
        return self.s.store.preset_count

    # ----- commands -----------------------------------------------------------------

    def press(self, side, tick=None):
        """A player's button (or a host's virtual press) at `tick`: True when it counted;
        else it is logged as ignored and `reason` says why. In idle, the button of the side
        that does not move first starts the clock."""
        s = self.s
        c = s.clock
        if tick is None:
            tick = s.now
        if c.state == IDLE:
            starter = 1 - s.tc.first
            if side != starter:
                ok, reason = False, "the game starts with %s's button" % SIDE_NAMES[starter]
            else:
                s.records.rebase(tick, 0)
                ok = c.start(tick)
                reason = c.reason
        else:
            ok = c.press(tick, side)
            reason = c.reason
        if ok:
            if ticks_diff(tick, s.now) > 0:
                s.now = tick
            reason = None
        elif c.state == IDLE:
            # No game yet, so no log: only a watching host hears of it.
            s.protocol.clock_event(c, "ignored", side, 0, tick, reason, _IGNORED_PRESS)
        else:
            s.records.clock_event(c, "ignored", side, tick, reason, _IGNORED_PRESS)
        self.reason = reason
        s.changed = True
        return ok

    def button_press(self, side, tick):
        """A player's button: `press`, its record written at the start of the next pass
        (app/records.py `hold`), so the press's own step is short. A host's press is not
        held: its reply waits for its record."""
        r = self.s.records
        r.hold = True
        try:
            return self.press(side, tick)
        finally:
            r.hold = False

    def pause(self, tick=None):
        """Stop both clocks, at `tick` (the arbiter key's first edge) or now."""
        s = self.s
        if not s.clock.pause(s.now if tick is None else tick):
            raise Refused(s.clock.reason)
        s.announcer.notice("pause")

    def resume(self):
        s = self.s
        if not s.clock.resume(s.now):
            raise Refused(s.clock.reason)
        s.announcer.notice("resume")

    def timeout_pass(self):
        """The arbiter's ruling after a last-period byo-yomi timeout: a pass, play goes on."""
        s = self.s
        if not s.clock.timeout_pass(s.now):
            raise Refused(s.clock.reason)
        s.announcer.notice("timeout_pass")

    def late(self, side):
        """Mark `side` absent at the start of the game (rules, art. 22)."""
        s = self.s
        ok = s.clock.late(s.now, side)
        s.changed = True
        if not ok:
            raise Refused(s.clock.reason)
        s.announcer.notice("late_marked")

    def arrive(self, side, tick=None):
        """The absent side arrives (at `tick`: its button's edge, or now) and is charged for
        its lateness: (ms charged, ms it was late)."""
        s = self.s
        if tick is not None and ticks_diff(tick, s.now) > 0:
            s.now = tick
        c = s.clock
        ok = c.arrive(s.now, side)
        s.changed = True
        if not ok:
            raise Refused(c.reason)
        s.announcer.notice("arrive")
        return c.last_charged_ms, c.last_late_ms

    def reset(self, preset=None):
        """End the game (logged) and set up the next, with the configured time control or
        preset number `preset` (from 1, as the clock announces them). Refused while a clock
        runs: pause first."""
        s = self.s
        tc_json = s.store.config["time_control"]
        if preset is not None:
            count = s.store.preset_count
            if not 1 <= preset <= count:
                raise Refused("no preset %d (the clock has %d)" % (preset, count))
            try:
                tc_json = s.store.preset(preset - 1)["time_control"]
            except (OSError, IndexError) as e:
                raise Refused(str(e) or "preset %d unreadable" % preset) from None
        if s.clock.state == RUNNING:
            raise Refused(_RUNNING_REFUSAL)
        try:
            parse(tc_json)  # a bad time control is refused before anything changes
        except ValueError as e:
            raise Refused(str(e)) from None
        if s.records.started:
            s.journal.end(s.records.t(s.now), "reset")
        s.gestures.menu = -1
        s.new_game(tc_json, s.now)
        s.announcer.notice("reset")

    def time_set(self, side, main_ms, periods, period_ms, moves):
        """The arbiter sets a side's time (the arguments not given are None); only while
        paused or idle. The adjustment's record names what was set, so a replay sets the same."""
        s = self.s
        given = []
        for name, v in (("main_ms", main_ms), ("periods", periods), ("period_ms", period_ms)):
            if v is not None:
                given.append(name)
        if moves is not None:
            given.append("moves")
        s.adjust_given = ",".join(given)
        try:
            s.clock.adjust(side, main_ms, periods, period_ms, moves, now=s.now)
        except ValueError as e:  # the core's ClockError
            raise Refused(str(e)) from None
        finally:
            s.adjust_given = ""

    def set_config(self, cfg):
        """Store and apply `cfg`, a complete config already checked (configcheck.py)."""
        s = self.s
        if s.clock.state == RUNNING:
            raise Refused(_RUNNING_REFUSAL)
        s.store.save(config=cfg)
        s.apply_config()
        s.start_network()
        if s.records.started:
            from goclockfw.storage.netconfig import public

            s.records.write("config", s.now, None, (("config", public(cfg)),))
        s.changed = True

    def assign(self, info):
        """The game's details (event, round, table, black, white, handicap: a dict already
        checked by storage/netconfig.py's game_info_field), stored in the config for the
        next game's first record. Refused while a clock runs, as any config change."""
        cfg = dict(self.s.store.config)
        cfg["game_info"] = info
        self.set_config(cfg)

    def time_sync(self, utc_ms, source):
        """The time of day is `utc_ms` (ms since the epoch) now; `source` who said so."""
        s = self.s
        if not EARLIEST <= utc_ms <= LATEST:
            raise Refused("the time of day must be between 2020 and 2100 (ms since 1970)")
        s.tod.set(utc_ms, s.now, source)
        s.changed = True

    def result(self, result, by):
        """The game's result (an SGF RE form: B+R, W+T, B+3.5, 0, Void, ?) entered by `by`
        ("host", "hall", "board"): a `result` record in the game's log; a later one
        supersedes it. Refused while a clock runs and before a game has started."""
        s = self.s
        if not valid_result(result):
            raise Refused("'result' must be an SGF result: B+R, W+T, B+3.5, 0, Void, ? ...")
        if s.clock.state == RUNNING:
            raise Refused(_RUNNING_REFUSAL)
        if not s.records.started:
            raise Refused("no game has started on the clock")
        if not s.records.write("result", s.now, None, (("result", result), ("by", by))):
            raise Refused("the result could not be written: %s" % s.journal.error)
        s.changed = True

    def arbiter_call(self, tick=None):
        """A player calls the arbiter (the gesture: app/gestures.py): said at the board,
        logged, shown at the hall (docs/hall.md, arbiter) until acknowledged."""
        s = self.s
        if s.calling is not None:
            raise Refused("the arbiter is called already")
        s.calling = s.records.t(s.now if tick is None else tick)
        s.calling_utc = s.tod.ms(s.now)
        s.called_by = None
        s.announcer.notice("arbiter_call")
        s.records.notice("arbiter_call", "a player calls the arbiter", s.now)
        s.changed = True

    def arbiter_ack(self, by):
        """The arbiter answers the call (from the hall, a host, or at the board)."""
        s = self.s
        if s.calling is None:
            raise Refused("nobody calls the arbiter")
        s.calling = None
        s.called_by = by
        s.records.notice("arbiter_ack", "the arbiter's call acknowledged (%s)" % by, s.now)
        s.changed = True

    def set_presets(self, presets):
        """Store `presets`, already checked (storage/configcheck.py)."""
        s = self.s
        if s.clock.state == RUNNING:
            raise Refused(_RUNNING_REFUSAL)
        s.store.save(presets=presets)
        if s.gestures.menu >= len(presets):
            s.gestures.menu = -1

    def maintenance(self):
        """End the game on the clock, whatever its state (logged, never resumed), so the
        keyboard interrupt is on and a host can take the REPL (goclock deploy --force):
        the id of the game ended, or None."""
        s = self.s
        gid = s.journal.current if s.records.started else None
        if s.clock.state == RUNNING:
            s.clock.pause(s.now)
        if gid is not None:
            s.journal.end(s.records.t(s.now), "maintenance")
        s.gestures.menu = -1
        s.new_game(s.store.config["time_control"], s.now)
        s.announcer.notice("maintenance")
        return gid
