"""What the hall knows of every clock, from its retained `online`, `state` and `arbiter`
topics and its events; and the times a view shows at a given instant (docs/hall.md).

Pure: every method takes the hall machine's time of day in ms (`now`), so the view's
count-down is tested with injected time. A state holds at its `utc` instant: the running
side's time counts down from there when the hall's own clock agrees with the clock's
within a second, and from the message's arrival otherwise (a clock with no time of day,
or set wrong). It never drifts between messages: each shown time is computed from the
last state, never decremented step by step. The view never flags a side itself: at 0:00
it waits for the clock, which decides.
"""

import json

from goclockfw import timetext

AGREE_MS = 1000  # a clock's time of day this close to the hall's is taken as it is
EVENTS_KEPT = 8


def left_text(ms):
    """A time left as the clock shows it: rounded up (goclockfw/timetext.py, the one rule)."""
    return "-" if ms is None else timetext.left_text(int(ms))


def used_text(ms):
    """A time used or counted up: rounded down."""
    return "-" if ms is None else timetext.used_text(max(0, int(ms)))


def project(side, tc, elapsed):
    """A side's status `elapsed` ms after it held, its clock running: a new dict with the
    running fields moved on (main time, then the period in use, then, in byo-yomi, the
    next periods; an untimed side's total counts up). Never below 0."""
    st = dict(side)
    if elapsed <= 0:
        return st
    if "spent_ms" in st:
        st["spent_ms"] = st["spent_ms"] + elapsed
        return st
    main = st.get("main_ms") or 0
    if main > 0 or "period_ms" not in st:
        take = min(main, elapsed)
        st["main_ms"] = main - take
        elapsed -= take
        if elapsed <= 0 or "period_ms" not in st:
            return st
    period = st.get("period_ms") or 0
    kind = (tc or {}).get("type")
    periods = st.get("periods")
    full = (tc or {}).get("period")
    while elapsed >= period and kind == "byoyomi" and periods and periods > 1 and full:
        elapsed -= period  # the period ends; the next one starts whole
        periods -= 1
        period = int(full) * 1000
    st["period_ms"] = max(0, period - elapsed)
    if periods is not None:
        st["periods"] = periods
    return st


class ClockState:
    """One clock as the hall sees it."""

    def __init__(self, name):
        self.name = name
        self.online = None  # None: never heard of
        self.info = {}
        self.state = None  # the last state message
        self.seq = None  # its seq
        self.ref = None  # the hall's time of day at which that state holds
        self.arbiter = None  # the last arbiter message
        self.events = []  # the last few events, newest last
        self.last_seen = None

    def running_side(self):
        st = self.state or {}
        return st.get("turn") if st.get("state") == "running" else None

    def sides(self, now):
        """{"black": status, "white": status} as of `now`, the running side counted down."""
        st = self.state or {}
        out = {}
        running = self.running_side()
        for side in ("black", "white"):
            s = st.get(side)
            if not isinstance(s, dict):
                out[side] = None
            elif side == running and self.ref is not None:
                out[side] = project(s, st.get("time_control"), now - self.ref)
            else:
                out[side] = dict(s)
        return out

    @property
    def calling(self):
        return bool(self.arbiter and self.arbiter.get("calling"))


class Hall:
    """Every clock of one hall, fed with (topic leaf, payload, now)."""

    def __init__(self):
        self.clocks = {}
        self.notices = []  # (now, text) of things refused or odd, newest last

    def clock(self, name):
        c = self.clocks.get(name)
        if c is None:
            c = self.clocks[name] = ClockState(name)
        return c

    def notice(self, now, text):
        self.notices.append((now, text))
        del self.notices[:-50]

    def take(self, clock, leaf, payload, now):
        """One message of `clock`'s topic `leaf` (online, state, event, arbiter, reply)
        arriving at `now`. Unreadable payloads are noted, never raised."""
        c = self.clock(clock)
        c.last_seen = now
        if not payload:  # a retained message cleared
            return
        try:
            msg = json.loads(payload)
        except ValueError:
            self.notice(now, "%s: an unreadable %s message" % (clock, leaf))
            return
        if not isinstance(msg, dict):
            self.notice(now, "%s: a %s message that is not an object" % (clock, leaf))
            return
        if leaf == "online":
            c.online = msg.get("online") is True
            if c.online:
                c.info = msg
                c.seq = None  # a clock that booted counts its states from 1 again
        elif leaf == "state":
            seq = msg.get("seq")
            if isinstance(seq, int) and c.seq is not None and seq < c.seq:
                return  # an older state overtaken by a newer one (QoS 0, no order kept)
            c.seq = seq if isinstance(seq, int) else c.seq
            c.state = msg
            utc = msg.get("utc")
            agree = isinstance(utc, int) and abs(now - utc) <= AGREE_MS
            c.ref = utc if agree else now
        elif leaf == "arbiter":
            c.arbiter = msg
        elif leaf == "event":
            c.events.append(msg)
            del c.events[:-EVENTS_KEPT]

    def calls(self):
        """The clocks calling the arbiter, longest waiting first."""
        waiting = [c for c in self.clocks.values() if c.calling]
        return sorted(waiting, key=lambda c: (c.arbiter.get("since_utc") or 0, c.name))
