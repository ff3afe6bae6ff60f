"""The clock at a board, without the board: one game, its storage, its voice, its protocol.

A `Session` is the composition of the clock's parts, and the game clock's listener. It
never reads a clock or a pin: the board's loop (loop.py) gives it time and input, and
tests do the same with virtual time:

    s = Session(board, now)          # boots: config, the log, a game cut off by a power loss
    s.deb                            # the buttons' debouncer: edges and levels go in there
    s.line.feed(data, now)           # bytes from the serial line; replies go to s.out
    s.step(now)                      # confirm presses, fire deadlines, speak, write marks
    wake.session_ms(s, now)          # how long it may sleep (app/wake.py)
    s.out                            # serial output waiting to be sent (outbuf.py)

Its parts, one idea each:
    commands    app/commands.py   what anyone may ask or do (the protocol, the gestures)
    gestures    app/gestures.py   what the arbiter key and the buttons mean
    protocol    protocol/         the serial protocol's requests and event lines
    line        app/hostline.py   the serial line and its back-pressure
    upkeep      app/upkeep.py     the flash's quiet-time work
    records     app/records.py    the game's log, its game time, the notices
    announcer   app/announcer.py  the voice
    deb         app/buttons.py    the buttons
    clock       core/gameclock.py the game (a new one at each reset)

`board` is what the session uses of its board (board/base.py): the file system and flash
block device, the speaker, the board's name, its free RAM, the voice packs it has, and
whether the flash may erase while a clock runs. Tests pass boards of their own.
"""

from goclockfw.app.announcer import Announcer
from goclockfw.app.battery import BatteryWatch
from goclockfw.app.buttons import ARBITER, NONE, PRESS, Debouncer
from goclockfw.app.commands import Commands
from goclockfw.app.gestures import Gestures
from goclockfw.app.hostline import HostLine
from goclockfw.app.outbuf import OutBuffer
from goclockfw.app.records import Records
from goclockfw.app.timeofday import TimeOfDay
from goclockfw.app.upkeep import Upkeep
from goclockfw.app.wake import STATUS_MS
from goclockfw.core import gameclock
from goclockfw.core.ticks import ticks_add, ticks_diff
from goclockfw.core.timecontrol import BYOYOMI, parse
from goclockfw.modules import BOOT, release
from goclockfw.protocol.commands import Protocol
from goclockfw.storage.chunks import ChunkPool
from goclockfw.storage.configstore import ConfigStore
from goclockfw.storage.journal import MARK_MS, Journal

IDLE = gameclock.IDLE
RUNNING = gameclock.RUNNING
PAUSED = gameclock.PAUSED
ENDED = gameclock.ENDED
# A deadline this far back or further when a pass sees it is caught up with at once, with
# all the others due (a loop held up, a session stepped now and then); a newer one fires
# alone, and the next due waits for the next pass, which comes at once (Session.step).
CATCH_UP_MS = 20


class Session:
    def __init__(self, board, now, resume=True):
        self.board = board  # its identity, storage and speaker (board/base.py)
        self.fs = board.fs
        self.now = now  # the clock's time: the board's tick, held back by unconfirmed edges
        self.errors = 0
        self.store = ConfigStore(self.fs)
        self.journal = Journal(
            ChunkPool(self.fs, board.flash), erase_running=board.erases_while_running
        )
        self.commands = Commands(self)
        self.out = OutBuffer(board.serial_ring)
        self.protocol = Protocol(self.commands, self.out.put)
        self.line = HostLine(self.out, self.protocol, self._catch_up)
        self.records = Records(
            self.journal, self.protocol, board.console if board.has_console else None
        )
        self.deb = Debouncer()
        self.gestures = Gestures(self.commands, self.announce, self.notice)
        self.announcer = Announcer()
        self.battery = BatteryWatch(0)
        self.upkeep = Upkeep(self)
        self.changed = True  # something shown changed: the loop redraws
        self.speak_calls = True  # False while the clock catches up after a power cut
        self.adjust_given = ""  # the fields an arbiter's adjustment sets, for its record
        self._side_of = bytearray(2)  # physical button (LEFT, RIGHT) -> side
        self.status_at = now  # the last status event (app/wake.py wakes for the next)
        self._status_owed = False  # a status event waits for held records (step)
        self.tod = TimeOfDay()  # the time of day, once a host, the hall or SNTP said it
        self.hall = None  # the network's publisher (net/hall.py), when configured
        self._prepared_plan = -1  # clock.planned and announcer.said when the next deadline's
        self._prepared_said = -1  # table and clip were last made ready (step)
        self.calling = None  # game time a player called the arbiter, while nobody answered
        self.calling_utc = None
        self.called_by = None  # who answered the last call
        self.clock = None
        self.tc = None
        self._boot(now, resume)
        self._net = None
        self.start_network()
        release(BOOT)  # the replay and the config's checks: a running clock needs neither

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
        self.apply_config()
        try:
            self.journal.load()
        except OSError as e:
            self.records.problem("the game logs could not be read: %s" % e)
        if not resume:
            self._skip_resume(now)
        elif self._resume(now):
            return
        self.new_game(self.store.config["time_control"], now)

    def _skip_resume(self, now):
        """Powered up with both player buttons held: the game cut off is closed, not resumed
        (its log says so), and the clock starts idle: a way in when a resume goes wrong."""
        j = self.journal
        gid = j.newest()
        if gid is not None:
            scan = j.scan(gid)
            if scan.records and not scan.ended:
                # Its end record goes in a fresh part: a spare made first (the boot is
                # quiet), else the record is dropped and the next boot resumes the game.
                self._spare(now)
                if j.begin(gid) is not None:
                    j.end(scan.last_t, "not resumed: both player buttons held at power-up")
        self.notice("maintenance", "powered up without resuming a game", now)

    def _resume(self, now):
        """The newest game, as its log left it: True when it is the current game again."""
        j = self.journal
        gid = j.newest()
        if gid is None:
            return False
        from goclockfw.app.replay import Replay  # at boot only (modules.BOOT)

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
        self._spare(now)  # the boot is quiet: a spare for that part, or for the next one
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

    def apply_config(self):
        cfg = self.store.config
        left_is_black = cfg["buttons"]["left"] == "black"
        self._side_of[0] = 0 if left_is_black else 1
        self._side_of[1] = 1 if left_is_black else 0
        self.battery.low_mv = cfg["battery_low_mv"]
        a = self.announcer
        if a.pack != cfg["voice"] or a.player is None:
            warning = a.load_pack(self.board.sounds, cfg["voice"])
            if warning:
                self.notice("voice", warning, self.now, speak=False)
            a.set_player(self.board.make_player(a.rate, cfg["volume"]))
        elif a.player is not None:
            a.player.set_volume(cfg["volume"])
        if self.board.has_console:
            a.echo = self._echo
            self.board.console({"buttons": cfg["buttons"]})

    def start_network(self):
        """The hall's publisher (net/hall.py) when the config has a network, started again
        when the network config changed; none (nothing imported) without one."""
        net = self.store.config.get("network")
        if net == self._net:
            return
        self._net = net
        h = self.hall
        if h is not None:
            h.close(self.now)
            self.hall = self.records.hall = None
        if net is None:
            return
        link = self.board.network(net["wifi"])
        if link is None:
            self.notice("network", "this board has no network: the config's is not used", self.now)
            return
        from goclockfw.net.hall import Hall

        self.hall = self.records.hall = Hall(self, link, net)

    def game_info(self):
        """The config's game details that are set (a dict, or None when none is)."""
        info = self.store.config.get("game_info") or {}
        out = {}
        for k in info:
            if info[k] is not None:
                out[k] = info[k]
        return out or None

    def new_game(self, tc_json, now):
        """Set up the next game (idle): its log's first part is claimed now, while all is quiet."""
        j = self.journal
        self.upkeep.retry()  # a new game's chunks are worth trying for, whatever failed before
        if j.current is None:
            self._spare(now)
            if j.begin() is None:
                self.records.problem(j.error)
        self._set_clock(tc_json, now)

    def _spare(self, now):
        """No clock runs: a few erases now make a spare chunk, if none is ready."""
        j = self.journal
        for _ in range(4):
            if j.spares or not j.wants_work(False):
                break
            try:
                note = self.upkeep.work(False)
            except Exception:
                # (The upkeep backs off.) The game is set up all the same: its first write
                # claims the chunk a later quiet moment makes.
                break
            if note:
                self.notice("storage", note, now, speak=False)

    def _set_clock(self, tc_json, now):
        if tc_json is None:
            tc_json = self.store.config["time_control"]
        self.tc = parse(tc_json)
        self.clock = c = gameclock.GameClock(self.tc, self)
        self.records.started = False
        self.records.rebase(now, 0)
        self.changed = True
        # The event lines of a game's first moves and deadlines, their templates made now:
        # the first press, call, byo-yomi and period would each make theirs in its own step
        # (~2.5 ms on an RP2040, and allocated: events.py `prepare`).
        lines = self.journal.lines
        lines.prepare(c, "start", 0, now, None)
        for side in (0, 1):
            lines.prepare(c, "press", side, now)
            lines.prepare(c, "call", side, now, "")  # (a phrase: any string)
            if self.tc.kind == BYOYOMI:
                lines.prepare(c, "byoyomi", side, now, None)
                lines.prepare(c, "period", side, now)
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
            self.records.begin(
                tick, self.tc.to_json(), self.journal.current, self.game_info(), self.tod.ms(tick)
            )
        given = self.adjust_given
        extra = (("given", given),) if kind == "adjust" and given else None
        self.records.clock_event(self.clock, kind, side, tick, value, extra)
        self.changed = True
        if kind == "timeout" or kind == "forfeit" or kind == "ruling":
            self._result(kind, side, tick)

    def _result(self, kind, side, tick):
        """The clock's own result: a loss on time or by lateness (W+T, B+F ...), and "?"
        again after a timeout-as-pass ruling (the game goes on): a `result` record."""
        if not self.records.started:
            return
        if kind == "ruling":
            result = "?"
        else:
            result = ("W+" if side == 0 else "B+") + ("T" if kind == "timeout" else "F")
        self.records.write("result", tick, None, (("result", result), ("by", "clock")))

    def notice(self, notice, message, tick, speak=True):
        if speak:
            self.announcer.notice(notice)
        self.records.notice(notice, message, tick)
        self.changed = True

    def announce(self, name):
        """Say a device notice ("preset_3", "cancel") without logging it."""
        self.announcer.notice(name)
        self.changed = True

    def _echo(self, phrase):
        self.board.console({"say": phrase, "t": self.records.t(self.now)})

    # ----- one pass -------------------------------------------------------------------

    def step(self, now):
        """One pass: confirmed buttons, the clock up to now, the arbiter key's timing, the
        voice, the log's marks and upkeep, a watching host's status, the network. Each part
        is asked only when it may have something to do: most passes do nothing, and on an
        RP2040 every call costs more than the comparison that spares it."""
        r = self.records
        c = self.clock
        d = c.deadline
        due = d is not None and c.state == RUNNING and ticks_diff(now, d) >= 0
        # One piece of heavy work a pass, on the chip: a deadline due, else the player's
        # next block (a clip plays on), else a record held by an earlier pass (a press, a
        # deadline's) made or written, one a pass. A deadline first: its call is heard on
        # time; the sound next; the record waits (its time is in it).
        a = self.announcer
        flushed = r.held and not due and not a.hungry()
        if flushed:
            r.work_one()
        deb = self.deb
        if deb.queued:
            self._buttons(now)
        # The clock runs up to now, but never past an edge still waiting for confirmation:
        # a press made just before a deadline is charged before it.
        limit = deb.hold(now) if deb.waiting else now
        if ticks_diff(limit, self.now) > 0:
            self.now = limit
        running = c.state == RUNNING
        if running and c.deadline is not None and ticks_diff(self.now, c.deadline) >= 0:
            # A deadline's call, period, flag: said now, written in the next passes. One a
            # pass (a call and the period it announces: two passes, each at its own tick),
            # once those CATCH_UP_MS or more back are fired (a loop that was held up,
            # a session stepped now and then: the clock is brought up to date at once).
            r.hold = True
            try:
                c.advance(ticks_add(self.now, -CATCH_UP_MS))
                c.fire_one(self.now)
            finally:
                r.hold = False
            running = c.state == RUNNING
            due = True  # (no progress mark in this pass: the deadline's records go first)
        self.gestures.poll(now)
        # A pass that answered a host (a press over serial, a status) is a busy one too:
        # its reply goes out at the end of the pass, after this step.
        line = self.line
        asked = line.answered
        line.answered = False
        # A refill waits a pass after a deadline's, a record's or a request's work: the I2S
        # may have taken its block while that ran (its callback is scheduled, between
        # bytecodes).
        fed = a.pumped() and a.pump(now, flushed or due or asked)
        heavy = due or fed or flushed or asked
        if running and r.started and not heavy and ticks_diff(self.now, r.mark_at) >= 0:
            # (a pass later after a deadline, a refill or a record)
            r.mark(self.now)
        if a.fault is not None and not a.busy():
            # A bad clip: logged once, when nothing plays (its beep has ended), not at the
            # very moment of a call.
            self.notice("voice", a.fault, now, speak=False)
            a.fault = None
        up = self.upkeep
        # The look for flash work (about 0.2 ms on an RP2040, whatever it finds) shares no
        # pass with other work: not with a deadline's, a record's, a refill's or a
        # request's (the next pass looks, app/wake.py comes back at once; unless it is
        # CHECK_MS overdue, so that busy passes do not starve it), nor with a call made
        # ready (the next pass makes it). Two such in one pass overran a period's start.
        # (`looks` first: most passes stop there, a deadline's or a press's too.)
        looked = up.looks(now) and (not heavy or up.overdue(now))
        if looked and up.due(running, now):
            up.run(running, now)
        elif (
            not looked
            and running
            and not heavy
            and not self.changed
            and (
                c.planned != self._prepared_plan or (a.said != self._prepared_said and not a.busy())
            )
        ):
            # A pass where nothing happened (no held record written, no block refilled):
            # the next period's call table built, or else the next call's clip made ready
            # (a part a pass), so that their deadlines only take them (both at once when
            # they already are: clock.prepare, announcer.prepare). Once per deadline
            # planned and clip played: asked again only when either changed, or a part is
            # left.
            # Marked before it is tried: a preparation that fails (a clip that cannot be
            # opened, no heap for it) is not tried again every pass; the call then starts
            # the slow way. Only "something plays" asks again, at the first quiet pass
            # after it has ended (not every pass meanwhile: each costs a lookup).
            if not c.prepare():
                self._prepared_plan = c.planned
                self._prepared_said = a.said
                phrase = c.next_phrase()
                if phrase is not None:
                    self.journal.lines.encoded(phrase)  # its JSON, for the call's record
                if not a.prepare(phrase):
                    self._prepared_said = -1
        if self.protocol.watching and (
            self.changed
            or self._status_owed
            or (running and ticks_diff(now, self.status_at) >= STATUS_MS)
        ):
            if r.held:
                self._status_owed = True  # after the events that led to it (held above)
            else:
                self._status_owed = False
                self.status_at = now
                self.protocol.status_event()
        h = self.hall
        if h is not None:
            h.step(now)  # last: what this pass changed goes out in it

    def calls_ready(self):
        """True when the next deadline's call table and clip were made ready (or tried):
        the quiet-time preparation has nothing left to do until a deadline is planned or
        a call said."""
        c = self.clock
        return c.state != RUNNING or (
            c.planned == self._prepared_plan and self.announcer.said == self._prepared_said
        )

    def _catch_up(self, now):
        # Before a host's request (app/hostline.py): what is held written, the clock run up
        # to now, but never past an edge still waiting for confirmation. `step` does the
        # same inline (a call less in every pass), asking `advance` only once the deadline
        # is reached.
        r = self.records
        if r.held:
            r.flush()
        deb = self.deb
        limit = deb.hold(now) if deb.waiting else now
        if ticks_diff(limit, self.now) > 0:
            self.now = limit
        c = self.clock
        if c.state == RUNNING:
            c.advance(self.now)

    def _buttons(self, now):
        # Confirmed changes, in the order of their ticks (the debouncer hands them out so).
        deb = self.deb
        g = self.gestures
        while True:
            kind = deb.pop()
            if kind == NONE:
                return
            ch = deb.channel
            tick = deb.tick
            if ticks_diff(tick, self.now) < 0:
                tick = self.now  # held back no longer (a chattering switch): never charge the past
            if ch == ARBITER:
                if kind == PRESS:
                    g.on_arbiter_down(tick, now)
                else:
                    g.on_arbiter_up(now)
            elif kind == PRESS:
                g.on_press(self._side_of[ch], tick, now)

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
        # Two comparisons, not `in (RUNNING, PAUSED)`: a tuple of names is built each time,
        # and every pass where something changed asks.
        state = self.clock.state
        return state != RUNNING and state != PAUSED

    def menu(self):
        """The preset on offer in the arbiter's menu, as shown, or None."""
        m = self.gestures.menu
        if m < 0:
            return None
        p = self._menu_preset(m)
        return "%d %s" % (m + 1, "?" if p is None else p["name"])

    def menu_time_control(self):
        """The time control of the preset on offer in the menu, or None."""
        m = self.gestures.menu
        p = None if m < 0 else self._menu_preset(m)
        return None if p is None else p["time_control"]

    def _menu_preset(self, m):
        # Read from flash (the store keeps the last one): None when it cannot be read now,
        # and a reset to it is then refused with the reason.
        try:
            return self.store.preset(m)
        except (OSError, IndexError):
            return None

    def check_battery(self, mv, now):
        if self.battery.due(now) and self.battery.check(mv, now):
            self.notice("battery_low", "battery low: %d mV" % self.battery.mv, now)
