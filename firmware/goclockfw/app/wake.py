"""When the loop wakes next: every reason to wake, in one place.

Between passes the board's loop sleeps (`board.wait(ms)`); a board may end the sleep
early (a serial byte, a button's edge), never late. The sleep is the shortest of:

  the running side's next deadline or call      (not while an edge holds the clock back:
                                                 its debounce window wakes the loop first)
  the debounce window of an edge                app/buttons.py
  a gesture's hold or time-out                  app/gestures.py
  the next progress mark                        app/records.py
  BUSY_MS while a clip plays                    the next clip of the same call, a buzzer step
  BUSY_MS while the next call is not ready      its table, then its clip, one quiet pass each
                                                (Session.step), not at the deadline itself
  the LED's next blink (paused, ended)          Session.led
  the next status event (watched, running)      STATUS_MS
  the hall's next moment (a network configured) net/hall.py: output, reconnect, state
  MAX_WAIT_MS                                   the ceiling
    -- `session_ms` stops here: a session stepped without a board (tests, the power-cut
       workload) sleeps by these; a board's loop adds --
  the board's own                               board.wake_ms (buttons that wake nothing)
  1 ms while the upkeep looks next            app/upkeep.py: one step a pass; or a look
                                                left by a pass that answered a host
  BUSY_MS while output waits for the host       app/outbuf.py
  BUSY_MS while display pages wait              app/screen.py
  VIEW_MS while a clock runs and is shown       the view is redrawn that often

Every figure is recomputed each pass from the parts' state: nothing is scheduled, so
nothing can be forgotten, and a pass allocates nothing for it.
"""

from goclockfw.core import gameclock
from goclockfw.core.ticks import ticks_diff

MAX_WAIT_MS = 1000  # the loop wakes at least this often (interrupts wake it sooner)
STATUS_MS = 1000  # status events while a clock runs (when watched)
VIEW_MS = 100  # how often the shown view is recomputed while a clock runs
BUSY_MS = 5  # something under way (a clip, output, display pages): look again this soon
RUNNING = gameclock.RUNNING
PAUSED = gameclock.PAUSED
ENDED = gameclock.ENDED


def session_ms(s, now):
    """Ms the session `s` may sleep at `now` before it must step again."""
    if s.records.held:
        return 0  # records held to write (app/records.py `hold`)
    clock = s.clock
    ms = MAX_WAIT_MS
    state = clock.state
    running = state == RUNNING
    if running:
        nd = clock.deadline
        if nd is not None and s.now == now:  # held back by an edge: the debounce wakes us
            d = ticks_diff(nd, now)
            if d < ms:
                ms = d
        r = s.records
        if r.started:
            d = ticks_diff(r.mark_at, now)  # the next progress mark
            if d < ms:
                ms = d
    if s.deb.waiting:
        d = s.deb.next_due(now)
        if 0 <= d < ms:
            ms = d
    d = s.gestures.next_due(now)
    if d is not None and d < ms:
        ms = d
    if ms > BUSY_MS and (s.announcer.busy() or (running and not s.calls_ready())):
        ms = BUSY_MS  # a clip plays; or the next call's table and clip wait for a quiet pass
    if state == PAUSED or state == ENDED:
        # The LED blinks (Session.led): wake for its next change.
        period = 512 if state == PAUSED else 128
        d = period - (now & (period - 1))
        if d < ms:
            ms = d
    elif running and s.protocol.watching:
        d = STATUS_MS - ticks_diff(now, s.status_at)
        if d < ms:
            ms = d
    h = s.hall
    if h is not None:
        d = h.wake_ms(now)  # the network: output, a reconnect, a state message (net/hall.py)
        if d is not None and d < ms:
            ms = d
    return ms if ms > 0 else 0


def loop_ms(loop, now):
    """Ms the board's loop `loop` may sleep at `now`: the session's, then the loop's own."""
    b = loop.board
    s = loop.session
    running = s.clock.state == RUNNING
    ms = session_ms(s, now)
    d = b.wake_ms(running, now)  # a board whose buttons wake nothing looks often
    if d is not None and d < ms:
        ms = d
    if ms > 1 and s.upkeep.looks(now):
        # One erase a pass: the next pass at once (the loop's sleep is long now); or the
        # step left its look for work to the next pass (it had other work): that one.
        ms = 1
    if s.out.used and ms > BUSY_MS:
        ms = BUSY_MS  # output waiting for the host: come back soon to send more
    scr = loop.screen
    if scr is not None:
        if scr.dirty and ms > BUSY_MS:
            ms = BUSY_MS  # pages waiting for the display
        if running and VIEW_MS < ms:
            ms = VIEW_MS
    elif running and b.has_console and VIEW_MS < ms:
        ms = VIEW_MS
    return ms
