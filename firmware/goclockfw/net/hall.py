"""The clock in the hall: what it publishes to the broker and what it takes from it.

The contract is docs/hall.md: under goclock/v1/<hall>/<clock>/ the clock publishes
`online` (retained, and the Last Will), `state` (retained: on every change and at least
every STATE_MS while a clock runs), `event` (every clock event with its game and record
number), `log/<game>` (the game's log, slice by slice, from the last record the broker
acknowledged: net/cursor.py keeps that in flash) and `reply`; it takes requests on `cmd`,
which go through the serial protocol's own reading and checks (protocol/commands.py) to
the one command layer (app/commands.py), with the hall's whitelist first.

`Hall.step(now)` runs once a pass (Session.step): one client step (net/mqtt.py), at most
one log slice (net/logsend.py), a state message when due, the cursor written at a quiet
moment. Nothing
waits. The session made the Hall only because the config has a network: a clock without
one never imports this.
"""

import json

from goclockfw import VERSION
from goclockfw.core.ticks import ticks_diff
from goclockfw.events import EventWriter
from goclockfw.net.cursor import Cursor
from goclockfw.net.logsend import LogSender
from goclockfw.net.mqtt import DOWN, UP, Client, _str
from goclockfw.protocol import strictjson
from goclockfw.protocol.commands import MAX_LINE, Protocol

STATE_MS = 5000  # a running clock's state at least this often
BUSY_MS = 5
NOTICES = 20  # refused cmd messages logged per boot; later ones only counted
ALLOWED = (
    "status",
    "pause",
    "resume",
    "time.set",
    "reset",
    "assign",
    "time.sync",
    "result",
    "arbiter.ack",
)
NOT_ALLOWED = "not allowed over the network"
INFO_AS = (
    ("event", "event"),
    ("round", "round"),
    ("table", "table"),
    ("black", "black_name"),
    ("white", "white_name"),
    ("handicap", "handicap"),
)


def _dumps(obj):
    return json.dumps(obj, separators=(",", ":"))


class Hall:
    def __init__(self, session, link, net):
        self.s = session
        mq = net["mqtt"]
        root = "goclock/v1/%s/%s/" % (net["hall"], net["clock"])
        self.root = root
        self.c = c = Client(
            link,
            "goclock-%s-%s" % (net["hall"], net["clock"]),
            mq["user"],
            mq["password"],
            mq["keepalive"],
        )
        c.will = (root + "online", b'{"online":false}')
        c.sub = root + "cmd"
        c.on_connect = self._connected
        c.on_message = self._message
        c.on_oversized = self._oversized
        c.on_down = self._down
        self.t_state = _str(root + "state")
        self.t_event = _str(root + "event")
        self.t_online = _str(root + "online")
        self.t_reply = _str(root + "reply")
        self.t_arbiter = _str(root + "arbiter")
        self._arb = [None, None]  # the call (game time) and who answered, as published
        self.cmd_topic = (root + "cmd").encode()
        self.tls = mq["tls"]
        self.proto = Protocol(session.commands, None, source="hall")
        self.ev = EventWriter(384)
        self._ids = [["game", None], ["rec", None]]
        self.cursor = Cursor(session.fs)
        self.cursor.load()
        self.log = LogSender(session, c, root, self.cursor, self._tell)
        c.on_puback = self.log.puback  # the log's slices; an event's or a reply's: nothing
        self.seq = 0
        self.state_at = 0
        self.state_due = True
        self.events_dropped = 0
        self.refusals = 0
        self.was_up = False
        self.told = None  # the last link problem told (one notice per change)
        self.faults = 0  # exceptions caught in step
        ca = session.fs.read(mq["ca"]) if self.tls else None
        if self.tls and not ca:
            self._tell(
                "network", "TLS: no CA certificate %s on the clock: not connecting" % mq["ca"]
            )
        else:
            link.tls_ca = ca
            link.host = mq["host"]
            c.start(mq["host"], mq["port"], session.now)
        self.sntp = None
        if net.get("ntp"):
            from goclockfw.net.sntp import Sntp

            self.sntp = Sntp(net["ntp"]["host"], net["ntp"]["port"])
        j = session.journal
        if session.records.started and j.current is not None:
            self.cursor.add(j.current)  # a resumed game: from where the broker has it

    # ----- the session's hooks -------------------------------------------------------

    def clock_event(self, clock, kind, side, t, tick, value, extra, rec):
        """A clock event (Records.clock_event, after its record): published at QoS 1 with
        its game and record number. Only while the link is up: the log has every one."""
        self.state_due = True
        j = self.s.journal
        gid = j.current
        if rec is not None and gid not in self.cursor.games:
            self.cursor.add(gid)  # a game's first record: its log is to be sent
        c = self.c
        if c.state != UP:
            return
        ids = self._ids  # [["game", gid], ["rec", rec]]: filled in, not made anew
        ids[0][1] = gid
        ids[1][1] = rec
        more = ids if extra is None else list(extra) + ids
        ev = self.ev
        ev.clock_event(clock, kind, side, t, tick, value, more)
        if c.publish(self.t_event, ev.line, 1) < 0:
            self.events_dropped += 1

    def changed(self):
        self.state_due = True

    # ----- one step ---------------------------------------------------------------------

    def step(self, now):
        """One pass's network work. Never raises: a fault here (a bug, a TLS library's
        error of a kind not foreseen) is noted once, the link dropped, and the clock goes
        on (the rest of the pass, the serial line, must not depend on the network)."""
        try:
            self._step(now)
        except Exception as e:  # nothing of the network may stop the clock
            self.faults += 1
            why = "%s: %s" % (type(e).__name__, e)
            try:
                self.c._fail(now, why)
            except Exception:
                self.c.state = DOWN

    def _step(self, now):
        s = self.s
        c = self.c
        running = s.clock.state == "running"
        t = self.sntp
        if t is not None and not running and c.link.up(now):
            if t.step(s.tod, now):
                self.state_due = True
                self._tell("network", "time of day from SNTP %s" % t.host)
        if running and (c.may_resolve() or (self.tls and c.state != UP)):
            # A name lookup blocks, and so does each public-key step of a TLS handshake
            # (seconds on a chip): they wait until no clock runs.
            if c.state != DOWN:
                c.abort(now)
            self.log.keep_cursor(now)
            return
        c.step(now)
        if c.state == UP:
            running = s.clock.state == "running"
            if (
                s.changed
                or self.state_due
                or (running and ticks_diff(now, self.state_at) >= STATE_MS)
            ):
                self._state(now)
            if s.calling != self._arb[0] or s.called_by != self._arb[1]:
                self._arbiter()
            self.log.step()
            c._write(now)  # what this pass queued goes now, not a pass later
        self.log.keep_cursor(now)

    def wake_ms(self, now):
        """Ms until the hall needs a pass (the loop sleeps no longer: app/wake.py)."""
        c = self.c
        if c.busy() or self.log.backlog():
            return BUSY_MS
        t = self.sntp
        if t is not None and t.sock is not None:
            return BUSY_MS * 20  # an SNTP answer awaited (no clock runs)
        if c.state == UP:
            ms = c.keepalive_ms - ticks_diff(now, c.last_out)
            if self.s.clock.state == "running":
                d = STATE_MS - ticks_diff(now, self.state_at)
                if d < ms:
                    ms = d
            return ms if ms > 0 else 0
        if c.host is None or (self.tls and self.s.clock.state == "running"):
            return None  # not connecting now (no host; a TLS link waits for a stop)
        d = ticks_diff(c.retry_at, now)
        return d if d > 0 else 0

    # ----- state and online --------------------------------------------------------------

    def _state(self, now):
        s = self.s
        st = s.commands.status()
        msg = {}
        for k in ("state", "turn", "black", "white", "time_control", "game", "moves"):
            msg[k] = st.get(k)
        info = s.store.config.get("game_info") or {}
        for k, as_k in INFO_AS:
            msg[as_k] = info.get(k)
        msg["t"] = s.records.t(s.now) if s.records.started else 0
        msg["utc"] = s.tod.ms(s.now)
        self.seq += 1
        msg["seq"] = self.seq
        if self.c.publish(self.t_state, _dumps(msg).encode(), 0, True) >= 0:
            self.state_at = now
            self.state_due = False

    def _arbiter(self):
        s = self.s
        if s.calling is not None:
            msg = {"calling": True, "t": s.calling, "since_utc": s.calling_utc}
        else:
            msg = {"calling": False, "by": s.called_by}
        if self.c.publish(self.t_arbiter, _dumps(msg).encode(), 1, True) >= 0:
            self._arb[0] = s.calling
            self._arb[1] = s.called_by

    def _connected(self):
        s = self.s
        self.was_up = True
        msg = {
            "online": True,
            "version": VERSION,
            "board": s.board.name,
            "game": s.journal.current if s.records.started else None,
        }
        self.c.publish(self.t_online, _dumps(msg).encode(), 1, True)
        self.state_due = True
        self._arb[0] = -1  # the arbiter topic again (retained): a broker may have lost it
        self.log.rewind()
        if self.told is not None:
            self._tell("network", "connected to the broker again")
            self.told = None

    def _down(self, why):
        self.log.rewind()
        if why != self.told:
            self.told = why
            self._tell("network", "broker: %s" % why)

    def _tell(self, notice, message):
        s = self.s
        s.notice(notice, message, s.now, speak=False)

    # ----- cmd ------------------------------------------------------------------------

    def _message(self, topic, payload):
        if topic != self.cmd_topic:
            return
        n = len(payload)
        if n > MAX_LINE:
            self._refuse(None, "request line over %d bytes" % MAX_LINE, n)
            return
        data = bytes(payload)
        try:
            req = strictjson.loads(data)
        except ValueError:
            req = None
        if isinstance(req, dict) and req.get("cmd") == "log.resend":
            self._reply(self._resend(req))
            return
        if isinstance(req, dict) and isinstance(req.get("cmd"), str):
            rid = req.get("id")
            why = self._not_here(req)
            if why is not None:
                self._refuse(rid if isinstance(rid, (int, str)) else None, why, n, req["cmd"])
                return
            self._reply(self.proto.handle_line(data))
            self.state_due = True
            return
        # Not a request at all: the protocol's own error text, and a notice.
        reply = self.proto.handle_line(data)
        self._reply(reply)
        self._notice_refusal("unreadable cmd (%d bytes): %s" % (n, reply[:120]))

    def _resend(self, req):
        """`log.resend`: the hall has game `game` up to byte `offset`, record `rec` (it
        lost what the broker took meanwhile: a broker restarted without persistence, its
        own reconnect): the log is sent again from there."""
        rid = req.get("id")
        rid = rid if isinstance(rid, (int, str)) and not isinstance(rid, bool) else None
        gid, off, rec = req.get("game"), req.get("offset"), req.get("rec")
        for v in (gid, off, rec):
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                return _dumps({"id": rid, "ok": False, "error": "give 'game', 'offset', 'rec'"})
        j = self.s.journal
        if gid not in j.games:
            return _dumps({"id": rid, "ok": False, "error": "no game %d" % gid})
        try:
            before, size = j.read(gid, off - 1, 1) if off else (b"\n", 0)
        except (ValueError, OSError) as e:
            return _dumps({"id": rid, "ok": False, "error": "log not readable: %s" % e})
        if before != b"\n" or (off and off > size):
            return _dumps({"id": rid, "ok": False, "error": "offset %d is not a slice's end" % off})
        cur = self.cursor.games.get(gid)
        if cur is None:
            self.cursor.games[gid] = [rec, off]
        elif off < cur[1]:
            cur[0] = rec
            cur[1] = off
        self.cursor.dirty = True
        self.log.rewind()
        return _dumps({"id": rid, "ok": True, "game": gid, "offset": off})

    def _not_here(self, req):
        """Why the hall may not ask this, or None: the whitelist, then its own rules."""
        cmd = req["cmd"]
        if cmd not in ALLOWED:
            return NOT_ALLOWED
        state = self.s.clock.state
        if cmd == "time.set" and state != "paused":
            return "time can only be set over the network while the clocks are paused"
        if cmd == "reset" and state == "paused" and req.get("confirm") is not True:
            return 'a game is paused on the clock: resetting it needs "confirm": true'
        return None

    def _refuse(self, rid, error, n, cmd=None):
        self._reply(_dumps({"id": rid, "ok": False, "error": error}))
        what = ("'%s'" % cmd[:40]) if cmd else "message"
        self._notice_refusal("cmd %s refused (%d bytes): %s" % (what, n, error))

    def _oversized(self, length):
        self._refuse(None, "request line over %d bytes" % MAX_LINE, length)

    def _notice_refusal(self, message):
        self.refusals += 1
        if self.refusals <= NOTICES:
            self._tell("network", message)

    def _reply(self, text):
        self.c.publish(self.t_reply, text.encode() if isinstance(text, str) else text, 1)

    # ----- the end ---------------------------------------------------------------------

    def close(self, now):
        c = self.c
        if c.state == UP:
            c.publish(self.t_online, b'{"online":false}', 1, True)
            c._write(now)
        c.close(now)
