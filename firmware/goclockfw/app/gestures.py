"""What the arbiter key and the player buttons mean together (the README's table).

  running          arbiter key pressed        pause, at the key's first edge
  paused           arbiter key tapped         resume (on release, if nothing
                                              else was done while it was down)
  after a last-period byo-yomi timeout
                   arbiter key held HOLD_MS   timeout-as-pass ruling (rules art. 22):
                                              the opponent's clock runs
  paused, idle or ended
                   arbiter key held + White's button
                                              reset to the configured time control
                   arbiter key held + Black's button
                                              preset menu: announces "preset 1"
  preset menu      Black's button             next preset (announced by voice)
                   White's button             reset to the announced preset
                   arbiter key tapped         leave the menu, nothing changed
                   MENU_TIMEOUT_MS idle       the same
  otherwise        a player's button          that player's move (or the start)

Pure logic over a small app interface (app/app.py implements it):
  app.clock_state() -> "idle" | "running" | "paused" | "ended"
  app.can_timeout_pass() -> bool
  app.button_press(side, tick)     a player's press at `tick`
  app.arbiter_pause(tick), app.arbiter_resume(now), app.arbiter_timeout_pass(now)
  app.arbiter_reset(preset)        preset None: the configured time control, else its number from 1
  app.preset_count() -> int, app.announce(name)  (say a device notice)
"""

from goclockfw.core.ticks import ticks_diff

BLACK = 0
WHITE = 1
HOLD_MS = 2000  # a hold long enough that no tap is taken for it
TAP_MS = 1500  # a release later than this is no tap (no resume)
MENU_TIMEOUT_MS = 30000


class Gestures:
    def __init__(self, app):
        self.app = app
        self.arbiter_down = False
        self._since = 0  # tick the arbiter key went down
        self._used = False  # this arbiter press already did something
        self.menu = -1  # preset index on offer, -1 outside the menu
        self._menu_since = 0

    # ----- events from the loop ------------------------------------------

    def on_arbiter_down(self, tick, now):
        self.arbiter_down = True
        self._since = tick
        self._used = False
        if self.menu < 0 and self.app.clock_state() == "running":
            self.app.arbiter_pause(tick)
            self._used = True

    def on_arbiter_up(self, now):
        was_down = self.arbiter_down
        self.arbiter_down = False
        if not was_down or self._used:
            return
        if self.menu >= 0:
            self.menu = -1  # a tap leaves the menu
            self.app.announce("cancel")
            return
        if ticks_diff(now, self._since) <= TAP_MS and self.app.clock_state() == "paused":
            self.app.arbiter_resume(now)

    def on_press(self, side, tick, now):
        """A player's button, `side` already mapped from the physical button."""
        if self.menu >= 0:
            self._menu_since = now
            if side == BLACK:
                self.menu = (self.menu + 1) % self.app.preset_count()
                self.app.announce("preset_%d" % (self.menu + 1))
            else:
                chosen = self.menu + 1  # presets are numbered from 1, as announced
                self.menu = -1
                self.app.arbiter_reset(chosen)
            return
        if self.arbiter_down and self.app.clock_state() != "running":
            self._used = True
            if side == WHITE:
                self.app.arbiter_reset(None)
            elif self.app.preset_count() > 0:
                self.menu = 0
                self._menu_since = now
                self.app.announce("preset_1")
            return
        self.app.button_press(side, tick)

    def poll(self, now):
        """Hold timing: the timeout-as-pass ruling, the menu's time-out."""
        if (
            self.arbiter_down
            and not self._used
            and self.menu < 0
            and ticks_diff(now, self._since) >= HOLD_MS
            and self.app.can_timeout_pass()
        ):
            self._used = True
            self.app.arbiter_timeout_pass(now)
        if self.menu >= 0 and ticks_diff(now, self._menu_since) >= MENU_TIMEOUT_MS:
            self.menu = -1
            self.app.announce("cancel")

    def next_due(self, now):
        """Ms until `poll` may have something to do, or None."""
        best = None
        if self.arbiter_down and not self._used:
            best = HOLD_MS - ticks_diff(now, self._since)
        if self.menu >= 0:
            d = MENU_TIMEOUT_MS - ticks_diff(now, self._menu_since)
            if best is None or d < best:
                best = d
        if best is not None and best < 0:
            best = 0
        return best
