"""The game clock: both players' time under every time control, and the calls.

Pure logic: every method takes the current tick (integer ms from
`time.ticks_ms()` or a simulation) and the clock never reads time itself.

How time is kept. Each side's allowance is stored *settled*: its values as of
the start of the current running segment (`_seg_start`). A segment starts when
a move starts, when the clock resumes, and at every state change during a move
(main time running out, a byo-yomi period used up). Between those instants the
running side's time is the settled value minus `ticks_diff(now, _seg_start)`;
nothing is decremented tick by tick, so no error can accumulate, and the
wrap of the tick counter does not matter.

Deadlines. The planner (core/deadlines.py) finds the next thing that will happen
to the running side (a call, main time running out, the end of a period or
block) as an offset from the segment start, strictly after `_done`, the offset
already handled; a late player's forfeit is added here. `advance(now)` fires every deadline up to and including
`now`, each at its exact tick, in order. Every event method calls `advance`
first, so a deadline on the same millisecond as a press takes effect first (a
move made together with "10" is too late, as the rules say).

The hourglass moves time from one side to the other: while one side's clock
runs, its opponent's time grows by as much. Both follow from the same
segment start: the running side's settled time minus the elapsed ms, the
other side's plus them; both are settled together.

Listener. Everything that happens is reported to `listener.on_clock(kind,
side, tick, value)`: start, press, block, pause, resume, adjust, call,
byoyomi, overtime, period, penalty (value: the side's points so far), timeout,
forfeit, ruling, late, arrive.
"""

from goclockfw.core.callplan import profile as _call_profile
from goclockfw.core.deadlines import ALL_FIRED, BLOCK_END, CALL, LATE, MAIN_END, PERIOD_END, Planner
from goclockfw.core.sidetime import SideTime
from goclockfw.core.ticks import ticks_add, ticks_diff
from goclockfw.core.timecontrol import (
    BYOYOMI,
    CANADIAN,
    COUNTER_CAP_MS,
    DELAY,
    FISCHER,
    HOURGLASS,
    ING,
    MAX_HOLD_MS,
    UNTIMED,
)
from goclockfw.core.timecontrol import (
    SIDE_NAMES as SIDE_NAMES,  # the core's API: gameclock.SIDE_NAMES
)

BLACK = 0
WHITE = 1
NOBODY = -1

# A side's status fields, in the order they are written (a time control has only some of
# them): `points` is an Ing side's penalty so far, `spent_ms` an untimed side's clock's total.
STATUS_FIELDS = ("main_ms", "flagged", "periods", "moves", "period_ms", "points", "spent_ms")
_MAIN = 1  # their bits in status_values' mask
_FLAGGED = 2
_PERIODS = 4
_MOVES = 8
_PERIOD_MS = 16
_POINTS = 32
_SPENT = 64

IDLE = "idle"
RUNNING = "running"
PAUSED = "paused"
ENDED = "ended"


class ClockError(ValueError):
    """An arbiter action the clock refuses in its current state."""


class GameClock:
    """Both clocks of one game under one time control."""

    def __init__(self, tc, listener):
        self.tc = tc
        self.listener = listener
        self.status_buf = ({}, {})  # reused by status_into
        self._vals = [0] * 5  # side_status's values (status_values), filled, never made anew
        self.calls = _call_profile(tc.calls)
        self.sides = (SideTime(tc.sides[BLACK]), SideTime(tc.sides[WHITE]))
        self.state = IDLE
        self.turn = NOBODY
        self.moves_made = 0
        self.reason = None  # why the last event method refused, for the caller to report
        self.loss = None  # how the game ended: "byoyomi", "time" or "late"
        self.last_late_ms = 0  # the last arrival's lateness ...
        self.last_charged_ms = 0  # ... and what it was charged (the arrive event's value)
        self._seg_start = 0
        self._done = 0
        self._active = 0  # game time (pauses excluded) up to _seg_start
        self._fired = ALL_FIRED  # table index of the call made at offset _done
        self._next = Planner(tc, self.calls)
        self.planned = 0  # how many times a deadline was planned (`prepare`'s callers' key)
        self.deadline = None  # the tick of the deadline planned, while the clock runs

    # ----- queries -------------------------------------------------------

    def next_deadline(self):
        """The tick of the next deadline, or None when no clock runs. (The same as
        `deadline` while the clock runs: that one is kept as deadlines are planned, so a
        pass only compares.)"""
        if self.state != RUNNING or self._next.offset is None:
            return None
        return ticks_add(self._seg_start, self._next.offset)

    def next_phrase(self):
        """The phrase the running side's next deadline will say first, or None: the call
        planned next, or "byo-yomi begins" when main time is about to run out into
        periods (what the announcer may make ready ahead)."""
        n = self._next
        if self.state != RUNNING or n.offset is None:
            return None
        if n.kind == CALL:
            return n.value
        if n.kind == MAIN_END and self.tc.kind == BYOYOMI and self.sides[self.turn].periods > 0:
            return self.calls.byoyomi_start
        return None

    def prepare(self):
        """Quiet-time work for the running side's next period: its call table built ahead
        (core/deadlines.py: Planner.prepare). True when something was built."""
        if self.state != RUNNING:
            return False
        return self._next.prepare(self.sides[self.turn])

    def status_values(self, side, now, out, k=0):
        """One side's time as of `now` (after `advance(now)`) into `out[k:]`: the fields
        of STATUS_FIELDS it has, in that order, `flagged` as 0 or 1. Returns the mask of
        the fields written (bit i: STATUS_FIELDS[i]). A list filled, nothing allocated:
        the log record and the event line of a press are written from it."""
        s = self.sides[side]
        if self.state != RUNNING or ticks_diff(now, self._seg_start) == 0:
            # Nothing has run since the values were settled (a press, a pause): as they are.
            # (One at a time: MicroPython builds a tuple for four names assigned at once.)
            main = s.main
            period_used = s.period_used
            block = s.block
            delay_left = s.delay_left
        else:
            main, period_used, block, delay_left = self._view(side, now)
        out[k] = main
        out[k + 1] = 1 if s.flagged else 0
        kind = self.tc.kind
        period_ms = s.settings.period_ms
        if kind == BYOYOMI:
            out[k + 2] = s.periods
            if s.flagged and s.periods == 0:
                out[k + 3] = 0
            elif side == self.turn and main == 0:
                out[k + 3] = period_ms - period_used
            else:
                out[k + 3] = period_ms
            return _MAIN | _FLAGGED | _PERIODS | _PERIOD_MS
        if kind == DELAY and s.main == 0 and (s.settings.main_ms == 0 or not s.flagged):
            # A time per move (no main time: from the start, or set so by the arbiter, the
            # delay staying): what is left of this move's (all of it when not its move).
            out[k + 2] = delay_left if side == self.turn else s.settings.delay_ms
            return _MAIN | _FLAGGED | _PERIOD_MS
        if kind == UNTIMED:
            # Nothing runs out: the display counts the side's own total up.
            out[k + 2] = s.spent(self._running_ms(side, now))
            return _MAIN | _FLAGGED | _SPENT
        if kind == ING:
            out[k + 2] = s.periods
            out[k + 3] = block if s.in_block else period_ms
            out[k + 4] = s.penalties * self.tc.penalty
            return _MAIN | _FLAGGED | _PERIODS | _PERIOD_MS | _POINTS
        if kind == CANADIAN:
            out[k + 2] = s.moves
            out[k + 3] = block if s.in_block else period_ms
            return _MAIN | _FLAGGED | _MOVES | _PERIOD_MS
        return _MAIN | _FLAGGED

    def side_status(self, side, now, into=None):
        """One side's time as of `now` (after `advance(now)`), as a dict: a new one, or
        `into` filled (the clock's `status_buf[side]`; valid until the next call)."""
        vals = self._vals
        mask = self.status_values(side, now, vals)
        status = {} if into is None else into
        k = 0
        for i in range(len(STATUS_FIELDS)):
            if mask & (1 << i):
                status[STATUS_FIELDS[i]] = vals[k] != 0 if i == 1 else vals[k]
                k += 1
        return status

    def status_into(self, side, now):
        """side_status into the clock's own buffer for `side` (allocation-free, see there)."""
        return self.side_status(side, now, self.status_buf[side])

    def status(self, now):
        """The game as of `now` (after `advance(now)`): state, whose turn (also while paused:
        the side whose clock runs on resume), both sides, moves made. A side marked late
        that has not arrived has `"absent": True` in its status here (not in the events')."""
        black = self.side_status(BLACK, now)
        white = self.side_status(WHITE, now)
        if self.sides[BLACK].absent:
            black["absent"] = True
        if self.sides[WHITE].absent:
            white["absent"] = True
        return {
            "state": self.state,
            "turn": SIDE_NAMES[self.turn] if self.turn >= 0 else None,
            "black": black,
            "white": white,
            "moves": self.moves_made,
        }

    def _running_ms(self, side, now):
        # How long `side`'s clock has run in the current segment, as of `now`.
        if side == self.turn and self.state == RUNNING:
            return ticks_diff(now, self._seg_start)
        return 0

    def _view(self, side, now):
        # The settled values moved forward to `now` without changing anything.
        s = self.sides[side]
        if self.tc.kind == HOURGLASS and side != self.turn and self.state == RUNNING:
            # The sand the running side loses falls to this one.
            main, period_used, block, delay_left = s.view(self.tc, 0)
            return main + ticks_diff(now, self._seg_start), period_used, block, delay_left
        return s.view(self.tc, self._running_ms(side, now))

    # ----- events --------------------------------------------------------

    def _refuse(self, reason):
        self.reason = reason
        return False

    def start(self, now, side=None):
        """Start the game: `side` (default: the time control's first side) moves first."""
        if self.state != IDLE:
            return self._refuse("the game has already started")
        if side is None:
            side = self.tc.first
        self.state = RUNNING
        self.turn = side
        self._emit("start", side, now, None)
        self._start_move(side, now)
        return True

    def press(self, now, side):
        """`side` ends its move at `now`. Returns False (and sets `reason`) when ignored."""
        n = self._next
        while self.state == RUNNING and n.offset is not None:  # advance(now), written out
            if ticks_diff(now, self._seg_start) < n.offset:
                break
            self._fire(n.offset)
        state = self.state
        if state != RUNNING:
            if state == IDLE:
                return self._refuse("the game has not started")
            if state == ENDED:
                return self._refuse("the game is over")
            return self._refuse("the clocks are paused")
        if side != self.turn:
            return self._refuse("it is not this side's move")
        s = self.sides[side]
        if s.absent:
            return self._refuse("this side has not arrived")
        self._settle(ticks_diff(now, self._seg_start))
        used = s.move_used
        # The listener sees the side's time as the move leaves it: increment or
        # refund added, Canadian block counted; in byo-yomi, what was left of
        # the period in use (the next move starts a fresh one).
        new_block = self._end_move(s, used)
        self.moves_made += 1  # the press reports its move's number
        self.listener.on_clock("press", side, now, used)
        if new_block:
            self._emit("block", side, now, s.moves)
        self._start_move(1 - side, now)
        return True

    def _start_move(self, side, now):
        """`side`'s clock starts a new move at `now`."""
        self.turn = side
        s = self.sides[side]
        s.move_used = 0
        s.delay_left = s.settings.delay_ms
        s.period_used = 0  # a move in byo-yomi starts a fresh period
        self._seg_start = now  # (_start_segment, written out)
        self._done = 0
        self._fired = ALL_FIRED
        self._plan()

    def _end_move(self, s, used):
        """What a move's end gives or counts; True when a new Canadian block begins."""
        kind = self.tc.kind
        if kind == CANADIAN and s.in_block:
            s.moves -= 1
            if s.moves <= 0:
                leftover = s.block if self.tc.carry else 0
                s.moves = s.settings.moves
                # What is carried has a ceiling too: no block ever holds more than 48 h.
                block = s.settings.period_ms
                s.block = block + leftover if leftover < MAX_HOLD_MS - block else MAX_HOLD_MS
                return True
        elif kind == FISCHER:
            # Capped: never above the ceiling ("max", or MAX_HOLD_MS for an uncapped one).
            main = s.main + s.settings.increment_ms
            ceiling = s.settings.ceiling_ms
            s.main = main if main < ceiling else ceiling
        elif kind == DELAY and self.tc.delay_mode == "bronstein" and s.main > 0:
            # (With main time 0 the move ran on its delay alone: nothing to give back.)
            d = s.settings.delay_ms
            s.main += used if used < d else d
        return False

    def pause(self, now):
        """Stop both clocks; the elapsed part of the move is kept."""
        self.advance(now)
        if self.state != RUNNING:
            return self._refuse("no clock is running")
        self._settle(ticks_diff(now, self._seg_start))
        self.state = PAUSED
        self._emit("pause", self.turn, now, None)
        return True

    def resume(self, now):
        """Restart the clock of the side to move after a pause."""
        if self.state != PAUSED:
            return self._refuse("the clocks are not paused")
        self.state = RUNNING
        self._start_segment(now)
        self._emit("resume", self.turn, now, None)
        self._plan()
        return True

    def adjust(self, side, main_ms=None, periods=None, period_ms=None, moves=None, now=None):
        """The arbiter sets a side's time; only while paused or before the start.

        `period_ms` is the time left of the period (byo-yomi, Ing) or block
        (Canadian) in use; core/adjust.py says what each control allows. Raises
        ClockError when the clock refuses.
        """
        if self.state not in (PAUSED, IDLE):
            raise ClockError("time can only be set while the clocks are paused")
        # Rare (an arbiter's adjustment, or one replayed at boot): imported here, and let
        # go by the caller (goclockfw/modules.py).
        from goclockfw.core.adjust import set_side_time

        set_side_time(self, side, main_ms, periods, period_ms, moves)
        self._emit("adjust", side, self._seg_start if now is None else now, None)

    def timeout_pass(self, now):
        """Turn a last-period byo-yomi timeout into a pass (rules, art. 22).

        The flagged side keeps its last period; the opponent's clock runs.
        """
        self.advance(now)
        if self.state != ENDED or self.loss != "byoyomi":
            return self._refuse("only a byo-yomi timeout can be turned into a pass")
        flagged = self.turn
        s = self.sides[flagged]
        s.flagged = False
        s.periods = 1
        s.period_used = 0
        self.loss = None
        self.state = RUNNING
        self._emit("ruling", flagged, now, "timeout_pass")
        self._start_move(1 - flagged, now)
        return True

    def late(self, now, side):
        """Mark `side` absent at the start of the game."""
        self.advance(now)
        if self.state == ENDED or self.moves_made > 0:
            return self._refuse("lateness is only marked at the start of the game")
        self.sides[side].absent = True
        self._emit("late", side, now, None)
        if self.state == RUNNING:
            self._rebase(now)
        return True

    def arrive(self, now, side):
        """A late side arrives: it is charged twice its lateness in all."""
        self.advance(now)
        s = self.sides[side]
        if self.state == ENDED:
            return self._refuse("the game is over")
        if not s.absent:
            return self._refuse("this side was not marked late")
        s.absent = False
        if self.state == RUNNING:
            self._settle(ticks_diff(now, self._seg_start))
        late = self._active
        charge = 2 * late - s.ran
        if charge < 0:
            charge = 0
        charged = charge if charge < s.main else s.main
        s.main -= charged
        self.last_late_ms = late
        self.last_charged_ms = charged
        self._emit("arrive", side, now, charged)
        if s.main == 0 and charged > 0:
            self._main_ran_out(s, side, now)
        if self.state == RUNNING:
            self._plan()
        return True

    # ----- time passing --------------------------------------------------

    def advance(self, now):
        """Fire every deadline up to and including `now`, each at its own tick."""
        while self.state == RUNNING and self._next.offset is not None:
            offset = self._next.offset
            if ticks_diff(now, self._seg_start) < offset:
                return
            self._fire(offset)

    def fire_one(self, now):
        """Fire the first deadline due at `now`, if one is: True when it fired. A loop
        pass takes one (Session.step): two deadlines on one millisecond (a period's call
        and its end) are two short passes on the chip, not one long one. Each fires at
        its own tick, so the records are the same as `advance`'s."""
        n = self._next
        if self.state != RUNNING or n.offset is None:
            return False
        if ticks_diff(now, self._seg_start) < n.offset:
            return False
        self._fire(n.offset)
        return True

    def _fire(self, offset):
        kind = self._next.kind
        side = self.turn
        tick = ticks_add(self._seg_start, offset)
        if kind == CALL:
            self._done = offset
            self._fired = self._next.index
            self._emit("call", side, tick, self._next.value)
            self._plan()
            return
        self._settle(offset)
        s = self.sides[side]
        if kind == MAIN_END:
            s.main = 0
            s.delay_left = 0
            self._main_ran_out(s, side, tick)
        elif kind == PERIOD_END:
            if s.periods > 1:
                s.periods -= 1
                s.period_used = 0
                self._emit("period", side, tick, s.periods)
            else:
                s.periods = 0
                s.period_used = s.settings.period_ms
                self._lose(side, tick, "byoyomi")
        elif kind == BLOCK_END:
            if self.tc.kind == ING and s.periods > 1:
                s.periods -= 1
                s.block = s.settings.period_ms
                self._penalty(s, side, tick, True)
            else:
                s.block = 0
                self._lose(side, tick, "time")
        elif kind == LATE:
            for i in (BLACK, WHITE):
                if self.sides[i].absent:
                    self.sides[i].flagged = True
                    self.state = ENDED
                    self.loss = "late"
                    self._emit("forfeit", i, tick, "late")
                    break
        if self.state == RUNNING:
            self._plan()

    def _main_ran_out(self, s, side, tick):
        kind = self.tc.kind
        speak = side == self.turn and self.state == RUNNING
        if kind == BYOYOMI and s.periods > 0:
            if speak:
                self._say(side, tick, self.calls.byoyomi_start)
            s.period_used = 0
            self._emit("byoyomi", side, tick, None)
        elif kind == CANADIAN:
            if speak:
                self._say(side, tick, self.calls.byoyomi_start)
            s.in_block = True
            self._emit("overtime", side, tick, None)
        elif kind == ING and s.periods > 0:
            s.in_block = True
            s.block = s.settings.period_ms
            self._penalty(s, side, tick, speak)
        else:
            self._lose(side, tick, "time")

    def _penalty(self, s, side, tick, speak):
        """An Ing overtime period begins: it costs the penalty, said with the total."""
        s.penalties += 1
        points = s.penalties * self.tc.penalty
        if speak:
            self._say(side, tick, self.calls.penalty(points))
        self._emit("penalty", side, tick, points)

    def _lose(self, side, tick, how):
        self._say(side, tick, self.calls.timeout)
        self.sides[side].flagged = True
        self.state = ENDED
        self.loss = how
        self._emit("timeout", side, tick, None)

    def _say(self, side, tick, phrase):
        if phrase is not None:
            self._emit("call", side, tick, phrase)

    def _emit(self, kind, side, tick, value):
        self.listener.on_clock(kind, side, tick, value)

    # ----- segments ------------------------------------------------------

    def _start_segment(self, now):
        self._seg_start = now
        self._done = 0
        self._fired = ALL_FIRED

    def _rebase(self, now):
        self._settle(ticks_diff(now, self._seg_start))
        self._plan()

    def _settle(self, r):
        """Move the running side's settled values forward by `r` ms; new segment."""
        if self.state == RUNNING and r > 0:
            self.sides[self.turn].settle(self.tc, r)
            if self.tc.kind == HOURGLASS:
                self.sides[1 - self.turn].main += r
            a = self._active  # (add_capped, written out: this runs at every press)
            self._active = a + r if r < COUNTER_CAP_MS - a else COUNTER_CAP_MS
            self._seg_start = ticks_add(self._seg_start, r)
        self._done = 0
        self._fired = ALL_FIRED

    def _plan(self):
        """Find the next deadline of the running side, strictly after `_done`."""
        self.planned += 1  # (what was made ready for the planned deadline is stale now)
        n = self._next
        if self.state != RUNNING:
            n.offset = None
            self.deadline = None
            return
        n.plan(self.sides[self.turn], self._done, self._fired)
        if self.sides[BLACK].absent or self.sides[WHITE].absent:
            n.plan_late(self.tc.late_limit_ms - self._active)
        self.deadline = None if n.offset is None else ticks_add(self._seg_start, n.offset)

    # ----- checkpoints ---------------------------------------------------

    def checkpoint(self, now):
        """The whole state as of `now`, as JSON-able data; restore() reads it back."""
        self.advance(now)
        was_running = self.state == RUNNING
        if was_running:
            self._settle(ticks_diff(now, self._seg_start))
            self._plan()
        return {
            "v": 1,
            "time_control": self.tc.to_json(),
            "state": PAUSED if was_running else self.state,
            "turn": self.turn,
            "moves_made": self.moves_made,
            "active": self._active,
            "loss": self.loss,
            "sides": [self.sides[BLACK].to_dict(), self.sides[WHITE].to_dict()],
        }

    @classmethod
    def restore(cls, tc, data, listener):
        """A clock in the state of a checkpoint; a running game comes back paused."""
        clock = cls(tc, listener)
        clock.state = data["state"]
        clock.turn = data["turn"]
        clock.moves_made = data["moves_made"]
        clock._active = data["active"]
        clock.loss = data.get("loss")
        for i in (BLACK, WHITE):
            clock.sides[i].load(data["sides"][i])
        return clock
