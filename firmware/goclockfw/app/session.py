"""The clock at a board, without the board: one game, its storage, its voice, its protocol.

A `Session` owns the game clock, the config, the game log, the announcer, the gestures
and the serial protocol. It never reads a clock or a pin: the board's loop (loop.py)
gives it time and events, and tests do the same with virtual time:

    s = Session(ports, now)          # boots: config, the log, a game cut off by a power loss
    s.edge(channel, tick, level)     # a button edge recorded by an interrupt
    s.level(channel, level, now)     # the pin level as the loop sees it
    s.serial(data, now)              # bytes from the serial line; replies go to s.out
    s.step(now)                      # confirm presses, fire deadlines, speak, write marks
    s.wait_ms(now)                   # how long the loop may sleep
    s.out                            # serial output waiting to be sent (outbuf.py)

`ports` is what the session may use of the world around it (see Ports below; a board is
one, tests pass their own): the file system and flash block device, the speaker, the
board's name, its free RAM, the voice packs it has.

What the protocol may ask is documented at the top of protocol/commands.py; what the
gestures may ask, at the top of gestures.py. A refused request raises ValueError and
changes nothing.
"""

from array import array

from goclockfw import VERSION
from goclockfw.app.announcer import Announcer
from goclockfw.app.battery import BatteryWatch
from goclockfw.app.buttons import ARBITER, NONE, PRESS, Debouncer
from goclockfw.app.gestures import Gestures
from goclockfw.app.outbuf import OutBuffer
from goclockfw.app.records import Records
from goclockfw.app.replay import Replay
from goclockfw.core import gameclock
from goclockfw.core.ticks import ticks_diff
from goclockfw.core.timecontrol import SIDE_NAMES, parse
from goclockfw.protocol.commands import Protocol
from goclockfw.storage.chunks import ChunkPool
from goclockfw.storage.configstore import ConfigStore
from goclockfw.storage.journal import MARK_MS, SNAPSHOT_MOVES, Journal

IDLE = gameclock.IDLE
RUNNING = gameclock.RUNNING
PAUSED = gameclock.PAUSED
ENDED = gameclock.ENDED

QUEUE = 8  # confirmed button changes handled per step, at most
MAX_WAIT_MS = 1000  # the loop wakes at least this often (interrupts wake it sooner)
STATUS_MS = 1000  # status events while a clock runs (when watched)
# No flash erase this close to the running side's next deadline or call: an RP2040 erase
# stops the chip for up to 400 ms, and a call must start within 20 ms of its moment.
# A flash erase stops an RP2040 for up to ERASE_WORST_MS; one starts only when the next
# deadline, call or progress mark is further away than that for each block the step may
# erase, plus QUIET_SLACK_MS.
ERASE_WORST_MS = 400
QUIET_SLACK_MS = 200
ERASE_QUIET_MS = QUIET_SLACK_MS + ERASE_WORST_MS  # the margin of a one-block step
_IGNORED_PRESS = (("do", "press"),)


class Ports:
    """What a session may use; a board provides these (tests: this class, filled in)."""

    name = "test"
    fs = None  # storage/fs.py FS over the flash's file system
    flash = None  # the flash's block device (raw access for the log chunks)
    sounds = "/sounds"  # the voice packs' directory
    console = None  # callable(obj): the desktop's screen; None on a board
    # False where a press during a flash erase cannot be timed (the ESP32): a running game
    # erases only when its spares are down to the reserve (storage/journal.py).
    erases_while_running = True

    def make_player(self, rate, volume):
        """The speaker for clips of `rate` Hz, or None."""
        return None

    def ram_free(self):
        return -1

    def erasing(self, on):
        """The flash may erase from now (True) until told False: the ESP32 board turns its
        button interrupts off meanwhile (board/esp32board.py)."""

    def voices(self):
        """The voice packs on the clock."""
        import os

        try:
            return sorted(n for n in os.listdir(self.sounds) if not n.startswith("."))
        except OSError:
            return []


class Session:
    def __init__(self, ports, now, resume=True):
        self.ports = ports
        self.fs = ports.fs
        self.now = now  # the clock's time: the board's tick, held back by unconfirmed edges
        self.errors = 0
        self.out = OutBuffer()
        self.store = ConfigStore(self.fs)
        self.journal = Journal(
            ChunkPool(self.fs, ports.flash), erase_running=ports.erases_while_running
        )
        self.logs = self.journal  # the protocol reads list/read/clear from it
        self.protocol = Protocol(self, self._event_line)
        self._put_reply = self._reply_line  # bound once: a request allocates no method
        self._reply_fits = self.out.room_for_reply  # bound once too
        self.records = Records(self.journal, self.protocol, ports.console)
        self.deb = Debouncer()
        self.gestures = Gestures(self)
        self.announcer = Announcer()
        self.battery = BatteryWatch(0)
        self.changed = True  # something shown changed: the loop redraws
        self.speak_calls = True  # False while the clock catches up after a power cut
        self._given = ""  # the fields an arbiter's adjustment sets, for its record
        self._side_of = bytearray(2)  # physical button (LEFT, RIGHT) -> side
        self._qkind = bytearray(QUEUE)
        self._qch = bytearray(QUEUE)
        self._qtick = array("i", [0] * QUEUE)
        self._status_at = now
        self.clock = None
        self.tc = None
        self._boot(now, resume)

    # ----- boot ---------------------------------------------------------------------

    def _boot(self, now, resume=True):
        warning = self.store.load()
        if self.store.missing:
            try:
                self.store.save()  # first boot: store the defaults
            except OSError:
                pass
        elif warning is not None:
            self.notice("config_damaged", warning, now)
        self._apply_config()
        try:
            self.journal.load()
        except OSError as e:
            self.records.problem("the game logs could not be read: %s" % e)
        if not resume:
            self._skip_resume(now)
        elif self._resume(now):
            return
        self._new_game(self.store.config["time_control"], now)

    def _skip_resume(self, now):
        """Powered up with both player buttons held: the game cut off is closed, not resumed
        (its log says so), and the clock starts idle: a way in when a resume goes wrong."""
        j = self.journal
        gid = j.newest()
        if gid is not None:
            scan = j.scan(gid)
            if scan.records and not scan.ended and j.begin(gid) is not None:
                j.end(scan.last_t, "not resumed: both player buttons held at power-up")
        self.notice("maintenance", "powered up without resuming a game", now)

    def _resume(self, now):
        """The newest game, as its log left it: True when it is the current game again."""
        j = self.journal
        gid = j.newest()
        if gid is None:
            return False
        replay = Replay()
        try:
            scan = j.scan(gid, replay.feed)
        except (ValueError, KeyError, TypeError, OSError) as e:
            self.records.problem("game %d could not be replayed: %s" % (gid, e))
            return False
        if scan.records == 0 and not scan.torn and len(j.games[gid]) == 1:
            j.reopen_empty(gid)  # set up, never started: this is the game to play
            return self._set_clock(None, now)
        if replay.ended or replay.clock is None or replay.clock.state == IDLE:
            return False
        clock = replay.clock
        self.tc = replay.tc
        self.clock = clock
        clock.listener = self
        if j.begin(gid) is None:  # a fresh part: a part is never written again after a cut
            self.records.problem(j.error)
        r = self.records
        r.started = True
        if replay.refused:
            r.problem("game %d: %d logged actions replayed differently" % (gid, replay.refused))
        t_end = replay.t
        if clock.state == RUNNING:
            # The clock ran on after its last record: as far as the marks go. What happened
            # in between happens again now, in silence (it was said then), in the replay's
            # time, where a tick is the game time; then the clock stops there.
            t_end += MARK_MS * scan.marks
            r.rebase(0, 0)  # tick = game time
            self.speak_calls = False
            clock.advance(t_end)
            clock.pause(t_end)
            self.speak_calls = True
        r.rebase(now, t_end)
        if clock.state == ENDED:
            return True  # a finished game is shown as it ended, never resumed or announced
        self.notice(
            "power_resume",
            "game %d resumed after a power loss, paused at move %d" % (gid, clock.moves_made),
            now,
        )
        return True

    def _apply_config(self):
        cfg = self.store.config
        left_is_black = cfg["buttons"]["left"] == "black"
        self._side_of[0] = 0 if left_is_black else 1
        self._side_of[1] = 1 if left_is_black else 0
        self.battery.low_mv = cfg["battery_low_mv"]
        a = self.announcer
        if a.pack != cfg["voice"] or a.player is None:
            warning = a.load_pack(self.ports.sounds, cfg["voice"])
            if warning:
                self.notice("voice", warning, self.now, speak=False)
            a.set_player(self.ports.make_player(a.rate, cfg["volume"]))
        elif a.player is not None:
            a.player.set_volume(cfg["volume"])
        if self.ports.console is not None:
            a.echo = self._echo
            self.ports.console({"buttons": cfg["buttons"]})

    def _new_game(self, tc_json, now):
        """Set up the next game (idle): its log's first part is claimed now, while all is quiet."""
        j = self.journal
        if j.current is None:
            for _ in range(4):  # no clock runs: a few erases now make the first spare
                if j.spares or not j.wants_work(False):
                    break
                note = self._work(False)
                if note:
                    self.notice("storage", note, now, speak=False)
            if j.begin() is None:
                self.records.problem(j.error)
        self._set_clock(tc_json, now)

    def _set_clock(self, tc_json, now):
        if tc_json is None:
            tc_json = self.store.config["time_control"]
        self.tc = parse(tc_json)
        self.clock = gameclock.GameClock(self.tc, self)
        self.records.started = False
        self.records.rebase(now, 0)
        self.changed = True
        return True

    # ----- the clock's listener -----------------------------------------------------

    def on_clock(self, kind, side, tick, value):
        """Every clock event: a call is spoken first (timing), everything is logged, then
        told to a watching host; a press is announced only once its record is durable."""
        if kind == "call":
            if self.speak_calls:
                self.announcer.say(value, side, tick, self.now)
        elif kind == "press":
            self.announcer.cancel_side(side)
        elif kind == "start" or (kind == "late" and not self.records.started):
            # A side marked late before the start is the log's first action.
            self.records.begin(tick, self.tc.to_json(), self.journal.current)
        extra = (("given", self._given),) if kind == "adjust" and self._given else None
        self.records.clock_event(self.clock, kind, side, tick, value, extra)
        self.changed = True

    def notice(self, notice, message, tick, speak=True):
        if speak:
            self.announcer.notice(notice)
        self.records.notice(notice, message, tick)
        self.changed = True

    def _echo(self, phrase):
        self.ports.console({"say": phrase, "t": self.records.t(self.now)})

    def _event_line(self, data):
        self.out.put(data, True)

    # ----- inputs ---------------------------------------------------------------------

    def edges(self, ring):
        """Drain the interrupts' edge ring (buttons.EdgeRing) into the debouncer."""
        ring.drain(self.deb)

    def edge(self, ch, tick, level):
        self.deb.edge(ch, tick, level)

    def level(self, ch, level, now):
        deb = self.deb
        deb.observe(ch, level, now)
        deb.settle(ch, level, now)

    def serial(self, data, now):
        """Request bytes from the serial line; replies go to `out`."""
        self._catch_up(now)
        self.protocol.feed(data, self._put_reply, self._reply_fits)

    def _reply_line(self, data):
        self.out.put(data, False)

    def reading(self):
        """May the loop read more requests? Not while a reply could not be queued, nor while
        requests read earlier wait for room (their replies come first)."""
        p = self.protocol
        if p.held and self.out.room_for_reply():
            p.answer_held(self._put_reply, self._reply_fits)
        return not p.held and self.out.room_for_reply()

    # ----- one pass -------------------------------------------------------------------

    def step(self, now):
        self._buttons(now)
        self._catch_up(now)
        self.gestures.poll(now)
        self.announcer.pump(now)
        self._periodic(now)

    def _catch_up(self, now):
        # The clock runs up to now, but never past an edge still waiting for
        # confirmation: a press made just before a deadline is charged before it.
        limit = self.deb.hold(now)
        if ticks_diff(limit, self.now) > 0:
            self.now = limit
        self.clock.advance(self.now)

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
        r = self.records
        if r.mark_due_ms(clock, self.now) == 0:
            r.mark()
        a = self.announcer
        if a.fault is not None and not a.busy():
            # A bad clip: logged once, when nothing plays (its beep has ended), not at the
            # very moment of a call.
            self.notice("voice", a.fault, now, speak=False)
            a.fault = None
        if self._upkeep_due(running, now):
            self._upkeep(running, now)
        elif running and not self.changed:
            # A pass where nothing happened: the next call's clip made ready, so that its
            # deadline only starts it (announcer.prepare: at once when it already is).
            a.prepare(clock.next_phrase())
        if self.protocol.watching and (
            self.changed or (running and ticks_diff(now, self._status_at) >= STATUS_MS)
        ):
            self._status_at = now
            self.protocol.event("status", self.status())

    def free_ms(self, now):
        """Ms until the next thing that must happen on time: a deadline, a call, a mark."""
        ms = MAX_WAIT_MS
        nd = self.clock.next_deadline()
        if nd is not None:
            d = ticks_diff(nd, now)
            ms = d if d < ms else ms
        d = self.records.mark_due_ms(self.clock, now)
        if 0 <= d < ms:
            ms = d
        return ms if ms > 0 else 0

    def upkeep_waits(self, now):
        """Is flash upkeep (`_upkeep`: one step a pass) waiting for a quiet moment that is now?"""
        return self._upkeep_due(self.clock.state == RUNNING, now)

    def _upkeep_due(self, running, now):
        """A snapshot or journal work to do, and the quiet its worst case needs (checked only
        when there is work: every pass asks)."""
        j = self.journal
        if self._snapshot_due(running) or j.wants_work(running):
            return self.quiet(now, j.step_erases())
        return False

    def _snapshot_due(self, running):
        return (
            running and self.records.started and self.journal.moves_since_snapshot >= SNAPSHOT_MOVES
        )

    def quiet(self, now, erases=1):
        """Is this a moment where `erases` flash erases (up to ERASE_WORST_MS each of a
        stalled chip) hurt nobody: no clip playing, no deadline, call or progress mark close?"""
        if self.announcer.busy():
            return False
        need = QUIET_SLACK_MS + erases * ERASE_WORST_MS
        d = self.records.mark_due_ms(self.clock, now)
        if 0 <= d <= need:
            return False  # a progress mark is due: written on time, a cut gives back < 2 s
        nd = self.clock.next_deadline()
        return nd is None or ticks_diff(nd, now) > need

    def _upkeep(self, running, now):
        j = self.journal
        if self._snapshot_due(running):
            self._snapshot()
            return
        if j.wants_work(running):
            note = self._work(running)
            if note:
                self.notice("storage", note, now, speak=False)
            elif j.error:
                self.records.problem(j.error)

    def _work(self, running):
        """One step of the journal's quiet-time work (an erase, a chunk made or dropped),
        with the ports told that the flash may erase."""
        ports = self.ports
        ports.erasing(True)
        try:
            # (No lambda here: a closure would make the pass allocate whenever it works.)
            return self.journal.work(running, self.fs.free, self._snapshot)
        finally:
            ports.erasing(False)

    def _snapshot(self):
        """The whole clock in one record: replay starts there (long games, a full flash)."""
        if not self.records.started or self.clock.state == IDLE:
            return False
        running = self.clock.state == RUNNING
        data = self.clock.checkpoint(self.now)
        if running:
            self.clock.resume(self.now)  # checkpoint() leaves it settled and paused
        ok = self.records.write("snapshot", self.now, None, (("running", running), ("clock", data)))
        if ok:
            self.journal.moves_since_snapshot = 0
        return ok

    def wait_ms(self, now):
        """How long the loop may sleep: until a deadline, a debounce window, a hold
        gesture, a progress mark, or MAX_WAIT_MS."""
        ms = MAX_WAIT_MS
        nd = self.clock.next_deadline()
        if nd is not None and self.now == now:  # held back by an edge: the debounce wakes us
            d = ticks_diff(nd, now)
            if d < ms:
                ms = d
        d = self.deb.next_due(now)
        if 0 <= d < ms:
            ms = d
        d = self.gestures.next_due(now)
        if d is not None and d < ms:
            ms = d
        d = self.records.mark_due_ms(self.clock, now)
        if 0 <= d < ms:
            ms = d
        if self.announcer.busy() and ms > 5:
            ms = 5
        state = self.clock.state
        if state == PAUSED or state == ENDED:
            # The LED blinks (`led`): wake for its next change.
            period = 512 if state == PAUSED else 128
            d = period - (now & (period - 1))
            if d < ms:
                ms = d
        if self.protocol.watching and self.clock.state == RUNNING:
            d = STATUS_MS - ticks_diff(now, self._status_at)
            if d < ms:
                ms = d
        return ms if ms > 0 else 0

    # ----- what the board shows -------------------------------------------------------

    def led(self, now):
        """The LED: lit while Black's clock runs; slow blink paused, fast blink game over."""
        c = self.clock
        if c.state == RUNNING:
            return 1 if c.turn == 0 else 0
        if c.state == PAUSED:
            return (now >> 9) & 1
        if c.state == ENDED:
            return (now >> 7) & 1
        return 0

    def kbd_interrupt_ok(self):
        """May Ctrl-C on the serial line stop the firmware? Only while no game is on."""
        return self.clock.state not in (RUNNING, PAUSED)

    def menu(self):
        """The preset on offer in the arbiter's menu, as shown, or None."""
        m = self.gestures.menu
        if m < 0:
            return None
        return "%d %s" % (m + 1, self.store.presets[m]["name"])

    def check_battery(self, mv, now):
        if self.battery.due(now) and self.battery.check(mv, now):
            self.notice("battery_low", "battery low: %d mV" % self.battery.mv, now)

    # ----- the gestures' interface (gestures.py) --------------------------------------

    def clock_state(self):
        return self.clock.state

    def can_timeout_pass(self):
        return self.clock.state == ENDED and self.clock.loss == "byoyomi"

    def preset_count(self):
        return len(self.store.presets)

    def announce(self, name):
        """Say a device notice ("preset_3", "cancel") without logging it."""
        self.announcer.notice(name)
        self.changed = True

    def arbiter_pause(self, tick):
        if self.clock.pause(tick):
            self.announcer.notice("pause")

    def arbiter_resume(self, now):
        if self.clock.resume(self.now):
            self.announcer.notice("resume")

    def arbiter_timeout_pass(self, now):
        if self.clock.timeout_pass(self.now):
            self.announcer.notice("timeout_pass")

    def arbiter_reset(self, preset):
        try:
            self.reset(preset)
            self.announcer.notice("reset")
        except ValueError as e:
            self.notice("error", str(e), self.now)

    def is_absent(self, side):
        return self.clock.sides[side].absent

    def can_mark_late(self):
        return self.clock.state in (IDLE, RUNNING) and self.clock.moves_made == 0

    def arbiter_late(self, side):
        if self.clock.late(self.now, side):
            self.announcer.notice("late_marked")
        else:
            self.announcer.notice("cancel")
        self.changed = True

    def arbiter_arrive(self, side, tick):
        if ticks_diff(tick, self.now) > 0:
            self.now = tick
        if self.clock.arrive(self.now, side):
            self.announcer.notice("arrive")
        self.changed = True

    def button_press(self, side, tick):
        """A player's button (or the protocol's virtual press) at `tick`: (accepted, reason)."""
        c = self.clock
        if c.state == IDLE:
            starter = 1 - self.tc.first  # the side that does not move first starts the clock
            if side != starter:
                ok, reason = False, "the game starts with %s's button" % SIDE_NAMES[starter]
            else:
                self.records.rebase(tick, 0)
                ok = c.start(tick)
                reason = c.reason
        else:
            ok = c.press(tick, side)
            reason = c.reason
        if ok:
            if ticks_diff(tick, self.now) > 0:
                self.now = tick
        elif c.state == IDLE:
            # No game yet, so no log: only a watching host hears of it.
            self.protocol.clock_event(c, "ignored", side, 0, tick, reason, _IGNORED_PRESS)
        else:
            self.records.clock_event(c, "ignored", side, tick, reason, _IGNORED_PRESS)
        self.changed = True
        return ok, (None if ok else reason)

    # ----- the protocol's interface (protocol/commands.py) ----------------------------

    def info(self):
        return {
            "version": VERSION,
            "board": self.ports.name,
            "flash_free": self.fs.free(),
            "ram_free": self.ports.ram_free(),
            "battery_mv": self.battery.mv,
            "voices": self.ports.voices(),
        }

    def status(self):
        status = self.clock.status(self.now)
        status["time_control"] = self.tc.to_json()
        status["game"] = self.journal.current
        return status

    def get_config(self):
        return dict(self.store.config)

    def set_config(self, cfg):
        if self.clock.state == RUNNING:
            raise ValueError("a clock is running: pause it first")
        self.store.save(config=cfg)
        self._apply_config()
        if self.records.started:
            self.records.write("config", self.now, None, (("config", cfg),))
        self.changed = True

    def get_presets(self):
        return list(self.store.presets)

    def set_presets(self, presets):
        if self.clock.state == RUNNING:
            raise ValueError("a clock is running: pause it first")
        self.store.save(presets=presets)
        if self.gestures.menu >= len(presets):
            self.gestures.menu = -1

    def pause(self):
        if not self.clock.pause(self.now):
            raise ValueError(self.clock.reason)

    def resume(self):
        if not self.clock.resume(self.now):
            raise ValueError(self.clock.reason)

    def reset(self, preset):
        """End the game (logged) and set up the next, with the configured time control or
        preset number `preset` (from 1). Refused while a clock runs: pause first."""
        if self.clock.state == RUNNING:
            raise ValueError("a clock is running: pause it first")
        tc_json = self.store.config["time_control"]
        if preset is not None:
            tc_json = self.store.presets[preset - 1]["time_control"]
        parse(tc_json)  # a bad time control is refused before anything changes
        if self.records.started:
            self.journal.end(self.records.t(self.now), "reset")
        self.gestures.menu = -1
        self._new_game(tc_json, self.now)

    def press(self, side):
        return self.button_press(side, self.now)

    def late(self, side):
        ok = self.clock.late(self.now, side)
        self.changed = True
        return ok, (None if ok else self.clock.reason)

    def arrive(self, side):
        ok = self.clock.arrive(self.now, side)
        self.changed = True
        return ok, (None if ok else self.clock.reason)

    def maintenance(self):
        """End the game on the clock, whatever its state (logged, never resumed), so the
        keyboard interrupt is on and a host can take the REPL (goclock deploy --force)."""
        gid = self.journal.current if self.records.started else None
        if self.clock.state == RUNNING:
            self.clock.pause(self.now)
        if gid is not None:
            self.journal.end(self.records.t(self.now), "maintenance")
        self.gestures.menu = -1
        self._new_game(self.store.config["time_control"], self.now)
        self.announcer.notice("maintenance")
        return gid

    def time_set(self, side, main_ms, periods, period_ms, moves):
        # The record names what the arbiter set, so a replay sets the same.
        given = []
        for name, v in (("main_ms", main_ms), ("periods", periods), ("period_ms", period_ms)):
            if v is not None:
                given.append(name)
        if moves is not None:
            given.append("moves")
        self._given = ",".join(given)
        try:
            self.clock.adjust(side, main_ms, periods, period_ms, moves, now=self.now)
        finally:
            self._given = ""
