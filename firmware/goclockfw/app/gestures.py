"""What the arbiter key and the player buttons mean together (the README's table).

  running          arbiter key pressed        pause, at the key's first edge
  paused           arbiter key tapped         resume (on release, if nothing
                                              else was done while it was down)
  after a last-period byo-yomi timeout
                   arbiter key held HOLD_MS   timeout-as-pass ruling (rules art. 22):
                                              the opponent's clock runs
  idle, no move yet
                   arbiter key held HOLD_MS   "late": the next player's button pressed
                                              marks that side late (rules art. 22)
  paused, idle or ended
                   arbiter key held + White's button
                                              reset to the configured time control
                   arbiter key held + Black's button
                                              preset menu: announces "preset 1"
  preset menu      Black's button             next preset (announced by voice)
                   White's button             reset to the announced preset
                   arbiter key tapped         leave the menu, nothing changed
                   MENU_TIMEOUT_MS idle       the same
  a reset that would end a game in progress (paused)
                   "confirm" is said: White's button again within CONFIRM_MS ends it;
                   anything else (or nothing) leaves the game as it was
  running          arbiter key held HOLD_MS   a player calls the arbiter (its first edge
                                              paused the clock): a beep, logged, shown at
                                              the hall until answered
  while a call is on
                   arbiter key held HOLD_MS   the arbiter answers it (at the board)
  a side marked late
                   its own button             it has arrived (charged as the rules say)
  otherwise        a player's button          that player's move (or the start)

Pure logic: what a gesture means is decided here, what it does is done by the command
layer (app/commands.py), as for every other command source, and what the command layer
refuses is said here: "cancel", the refusal's message logged.
  Gestures(commands, announce, notice)
    commands                       app/commands.py's Commands (press, pause, resume, reset,
                                   late, arrive, timeout_pass and what they need to know)
    announce(name)                 say a device notice without logging it ("preset_3")
    notice(kind, message, tick, speak)
                                   a device notice, logged (Session.notice)
"""

from goclockfw.app.commands import Refused
from goclockfw.core.ticks import ticks_diff

BLACK = 0
WHITE = 1
HOLD_MS = 2000  # a hold long enough that no tap is taken for it
TAP_MS = 1500  # a release later than this is no tap (no resume)
MENU_TIMEOUT_MS = 30000
CONFIRM_MS = 5000  # how long a "confirm" waits for White's button
LATE_MS = 10000  # how long "late" waits for the late side's button
_NO_RESET = -2  # `_confirm` when nothing waits for a confirmation


class Gestures:
    def __init__(self, commands, announce, notice):
        self.cmds = commands
        self.announce = announce
        self.notice = notice
        self.arbiter_down = False
        self._since = 0  # tick the arbiter key went down
        self._used = False  # this arbiter press already did something
        self._held = False  # this arbiter press's hold was taken (a call, its answer)
        self._paused_it = False  # this arbiter press paused a running clock
        self.menu = -1  # preset index on offer, -1 outside the menu
        self._menu_since = 0
        self._confirm = _NO_RESET  # the reset waiting for its confirmation (None: configured)
        self._confirm_since = 0
        self.picking_late = False  # "late" was said: the next player's button is the late side
        self._late_since = 0

    # ----- events from the loop ------------------------------------------

    def on_arbiter_down(self, tick, now):
        self.arbiter_down = True
        self._since = tick
        self._used = False
        self._held = False
        self._drop_confirm()
        self.picking_late = False
        self._paused_it = False
        if self.menu < 0 and self.cmds.clock_state() == "running":
            self._used = True
            self._paused_it = True
            try:
                self.cmds.pause(tick)
            except Refused as e:
                self._refused(e, now)

    def on_arbiter_up(self, now):
        was_down = self.arbiter_down
        self.arbiter_down = False
        if not was_down or self._used:
            return
        if self.menu >= 0:
            self.menu = -1  # a tap leaves the menu
            self.announce("cancel")
            return
        if ticks_diff(now, self._since) <= TAP_MS and self.cmds.clock_state() == "paused":
            try:
                self.cmds.resume()
            except Refused as e:
                self._refused(e, now)

    def on_press(self, side, tick, now):
        """A player's button, `side` already mapped from the physical button."""
        if self._confirm != _NO_RESET:
            preset = self._confirm
            self._confirm = _NO_RESET
            if side == WHITE and not self.arbiter_down:
                self._reset_now(preset, now)
            else:
                self.announce("cancel")
            return
        if self.picking_late:
            self.picking_late = False
            try:
                self.cmds.late(side)
            except Refused as e:
                self._refused(e, now)
            return
        if self.menu >= 0:
            self._menu_since = now
            if side == BLACK:
                self.menu = (self.menu + 1) % self.cmds.preset_count()
                self.announce("preset_%d" % (self.menu + 1))
            else:
                chosen = self.menu + 1  # presets are numbered from 1, as announced
                self.menu = -1
                self._reset(chosen, now)
            return
        if self.arbiter_down and self.cmds.clock_state() != "running":
            self._used = True
            if side == WHITE:
                self._reset(None, now)
            elif self.cmds.preset_count() > 0:
                self.menu = 0
                self._menu_since = now
                self.announce("preset_1")
            return
        if self.cmds.is_absent(side):
            try:
                self.cmds.arrive(side, tick)  # the late player sits down: arrival
            except Refused as e:
                self._refused(e, now)
            return
        self.cmds.button_press(side, tick)  # never refused: ignored presses are logged

    def _reset(self, preset, now):
        # A game in progress (paused) is ended only when the arbiter confirms.
        if self.cmds.clock_state() == "paused":
            self._confirm = preset
            self._confirm_since = now
            self.announce("confirm")
        else:
            self._reset_now(preset, now)

    def _reset_now(self, preset, now):
        try:
            self.cmds.reset(preset)
        except Refused as e:
            self._refused(e, now)

    def _refused(self, e, now):
        """What the command layer refused: "cancel" at the board, and why in the log."""
        self.announce("cancel")
        self.notice("error", str(e), now, False)

    def _drop_confirm(self):
        if self._confirm != _NO_RESET:
            self._confirm = _NO_RESET
            self.announce("cancel")

    def idle(self):
        """Nothing is timed: no key down, no menu, no reset to confirm, no late side to pick."""
        return (
            not self.arbiter_down
            and self.menu < 0
            and not self.picking_late
            and self._confirm == _NO_RESET
        )

    def poll(self, now):
        """Hold timing: the timeout-as-pass ruling, "late", the menu's and confirm's time-outs."""
        if self.idle():
            return  # (every pass asks: the usual answer costs one call)
        if (
            self.arbiter_down
            and not self._used
            and self.menu < 0
            and ticks_diff(now, self._since) >= HOLD_MS
        ):
            if self.cmds.can_timeout_pass():
                self._used = True
                try:
                    self.cmds.timeout_pass()
                except Refused as e:
                    self._refused(e, now)
            elif self.cmds.can_mark_late():
                self._used = True
                self.picking_late = True
                self._late_since = now
                self.announce("late")
        if (
            self.arbiter_down
            and not self._held
            and self.menu < 0
            and ticks_diff(now, self._since) >= HOLD_MS
        ):
            self._held = True
            # A call: the hold of the press that paused a running clock (a player's reach
            # for the key). Its answer: any hold while the call is on (the arbiter's).
            try:
                if self.cmds.arbiter_called():
                    self._used = True
                    self.cmds.arbiter_ack("board")
                elif self._paused_it and self.cmds.clock_state() == "paused":
                    self.cmds.arbiter_call()
            except Refused as e:
                self._refused(e, now)
        if self.menu >= 0 and ticks_diff(now, self._menu_since) >= MENU_TIMEOUT_MS:
            self.menu = -1
            self.announce("cancel")
        if self._confirm != _NO_RESET and ticks_diff(now, self._confirm_since) >= CONFIRM_MS:
            self._drop_confirm()
        if self.picking_late and ticks_diff(now, self._late_since) >= LATE_MS:
            self.picking_late = False
            self.announce("cancel")

    def next_due(self, now):
        """Ms until `poll` may have something to do, or None."""
        if self.idle():
            return None
        best = None
        if self.arbiter_down and (not self._used or not self._held):
            best = HOLD_MS - ticks_diff(now, self._since)
        # One by one, not over a tuple: this runs every loop pass and must not allocate.
        if self.menu >= 0:
            best = _sooner(best, MENU_TIMEOUT_MS - ticks_diff(now, self._menu_since))
        if self._confirm != _NO_RESET:
            best = _sooner(best, CONFIRM_MS - ticks_diff(now, self._confirm_since))
        if self.picking_late:
            best = _sooner(best, LATE_MS - ticks_diff(now, self._late_since))
        if best is not None and best < 0:
            best = 0
        return best


def _sooner(best, d):
    return d if best is None or d < best else best
