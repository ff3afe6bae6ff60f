"""The bridge's core: many peers, one clock; requests in, replies back to whoever asked,
events out to whoever watches. Everything here runs on the bridge's event loop.

Requests. A peer's request line that is a JSON object (read strictly, with the firmware's
own reader) goes to the clock with an id of the bridge's (random start, counting up) in
place of the peer's; the reply comes back with the peer's own id, so no peer ever sees
another's replies, whatever ids they chose. A line the bridge cannot read goes to the
clock as it is, and the clock's own error (`bad JSON: …`, with a null id) goes back to
that peer: replies come in order, so a null-id reply answers the oldest request waiting.
Only whole lines are forwarded: a peer that dies in the middle of a line leaves nothing
on the clock's reader, and one that dies waiting for a reply just never gets it.

Opening. At every (re)open of the line the hub sends the bare newline the protocol asks
for, then `info` (checking the protocol version); until its reply, null-id errors (the
answer to a half line a dead program left) and replies with ids it never sent are
skipped. Requests that arrive meanwhile wait for that reply.

Watching. The clock's `watch` is on while any peer (the hall publisher included) watches:
a peer's `watch` changes its own flag, and the clock is told only when the answer for all
of them changes; each peer gets `{"on": …}` as it asked. Event lines go, unchanged, to the
peers that watch.

The line. When it drops, every request waiting for the clock is answered with an error
marked `"bridge": "offline"` (the host tool reads it as a lost line), as is every new one
until it is back; every peer is told with a `log` event (`"notice": "bridge"`, `"line":
"down"` or `"up"`), and on its return the clock's watch is put back as it was.
"""

import collections
import json
import logging

from goclockfw.protocol import strictjson

from ..link.client import MAX_REQUEST, PROTOCOL
from .pending import Entry, Pending, is_id

log = logging.getLogger("goclock.bridge")

INFO_TIMEOUT_S = 3.0  # the clock's answer to the opening `info`
REQUEST_TIMEOUT_S = 30.0  # a request the clock never answers is given up after this
HELD_MAX = 256  # requests waiting for the line to be ready
PEER_WAITING_MAX = 64  # requests of one peer with the clock at once; more are refused


def dumps(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def _refuse_offline(peer, raw, why):
    """A peer's request the clock cannot take now: answered with its own id, marked offline."""
    try:
        req = strictjson.loads(raw)
        cid = req.get("id") if isinstance(req, dict) and is_id(req.get("id")) else None
    except ValueError:
        cid = None
    peer.deliver(dumps({"id": cid, "ok": False, "error": why, "bridge": "offline"}))


class Hub:
    def __init__(self, loop, port, send_line, now=None):
        self.loop = loop
        self.port = port
        self._send_line = send_line  # to the clock (SerialLine.send: thread-safe)
        self._now = now or loop.time
        self.state = "down"  # down | opening | up
        self.down_reason = "not opened yet"
        self.info = None  # the clock's `info`, once checked
        self.peers = set()
        self._pending = Pending(self._now)  # sent to the clock, waiting for its reply
        self._held = collections.deque()  # (peer, raw line) while opening
        self._clock_watch = False
        self._was_up = False
        self.on_ready = []  # callbacks: the line is up and the clock checked
        self.on_change = []  # callbacks: a peer came or went, the watch or the line changed
        self._sweeper = loop.call_later(1.0, self._sweep)

    # ----- peers ---------------------------------------------------------------------

    def _changed(self):
        for callback in list(self.on_change):
            callback()

    def join(self, peer):
        self.peers.add(peer)
        self._changed()

    def leave(self, peer):
        """A peer is gone (closed, dropped): its watch ends; replies owed to it are dropped."""
        if peer not in self.peers:
            return
        self.peers.discard(peer)
        was = peer.watching
        peer.watching = False
        if was:
            self._sync_watch()
        self._changed()

    def set_watch(self, peer, on):
        """A part of the bridge starts or stops watching (the hall publisher)."""
        peer.watching = on
        if on and self.state == "up" and not self._clock_watch:
            self._clock_watch = True
            self._request(self.loop.create_future(), "watch", {"on": True})
        elif not on:
            self._sync_watch()
        self._changed()

    def watchers(self):
        return [p for p in self.peers if p.watching]

    # ----- requests from peers ---------------------------------------------------------

    def submit(self, peer, raw):
        """One line from a peer: bytes without its end, or None for a line over the cap."""
        if raw is None:
            peer.deliver(
                dumps(
                    {"id": None, "ok": False, "error": "request line over %d bytes" % MAX_REQUEST}
                )
            )
            return
        raw = bytes(raw)
        if not raw.strip():
            return  # an empty line (a peer's own opening newline): nothing to answer
        if self.state == "opening":
            if len(self._held) >= HELD_MAX:
                _refuse_offline(peer, raw, "the clock is not ready yet")
                return
            self._held.append((peer, raw))
            return
        if self.state != "up":
            _refuse_offline(
                peer, raw, "the line to %s is down (%s)" % (self.port, self.down_reason)
            )
            return
        self._forward(peer, raw)

    def _forward(self, peer, raw):
        try:
            req = strictjson.loads(raw)
        except ValueError:
            req = None
        cid = req.get("id") if isinstance(req, dict) and is_id(req.get("id")) else None
        if getattr(peer, "waiting", 0) >= PEER_WAITING_MAX:
            peer.deliver(
                dumps(
                    {
                        "id": cid,
                        "ok": False,
                        "error": "too many requests waiting "
                        "for the clock (%d): read the replies first" % PEER_WAITING_MAX,
                    }
                )
            )
            return
        if not isinstance(req, dict) or not (req.get("id") is None or is_id(req.get("id"))):
            self._send(Entry(peer, None), raw)  # as it came: the clock says what is wrong
            return
        cid, has_id = req.get("id"), "id" in req
        cmd = req.get("cmd")
        if isinstance(cmd, str) and cmd.startswith("bridge."):
            peer.deliver(dumps(self._local(peer, cmd, req, cid)))
            return
        watch_on = None
        if cmd == "watch" and isinstance(req.get("on"), bool):
            watch_on = req["on"]
            peer.watching = watch_on
            self._changed()
            want = bool(self.watchers())
            if want == self._clock_watch:
                peer.deliver(dumps({"id": cid, "ok": True, "on": watch_on}))
                return
            req["on"] = want
        entry = Entry(peer, self._pending.new_id(), cid, has_id, watch_on=watch_on)
        req["id"] = entry.bid
        line = dumps(req)
        if len(line.encode("utf-8")) + 1 > MAX_REQUEST:
            peer.deliver(
                dumps({"id": cid, "ok": False, "error": "request line over %d bytes" % MAX_REQUEST})
            )
            return
        self._send(entry, line)

    def _local(self, peer, cmd, req, cid):
        """The bridge's own commands (docs/bridge.md)."""
        if cmd == "bridge.status":
            return {
                "id": cid,
                "ok": True,
                "port": self.port,
                "line": self.state,
                "reason": None if self.state == "up" else self.down_reason,
                "peers": len(self.peers),
                "watchers": len(self.watchers()),
                "clock_watch": self._clock_watch,
                "waiting": len(self._pending),
            }
        handler = getattr(peer, "local_command", None)
        reply = handler(cmd, req) if handler else None
        if reply is None:
            return {"id": cid, "ok": False, "error": "unknown command '%s'" % cmd[:40]}
        reply["id"] = cid
        return reply

    def _send(self, entry, line):
        self._pending.add(entry)
        self._send_line(line)

    # ----- the hub's own requests (the hall publisher, the opening check) -----------------

    def request(self, cmd, **args):
        """Send `cmd` to the clock; a future resolved with the reply (a dict, `ok` in it)."""
        fut = self.loop.create_future()
        if self.state != "up" and cmd != "info":
            fut.set_result({"ok": False, "error": "the line is down", "bridge": "offline"})
            return fut
        self._request(fut, cmd, args)
        return fut

    def _request(self, fut, cmd, args):
        entry = Entry(None, self._pending.new_id(), future=fut)
        msg = dict(args)
        msg["id"] = entry.bid
        msg["cmd"] = cmd
        self._send(entry, dumps(msg))

    # ----- from the clock ---------------------------------------------------------------

    def line_text(self, text):
        if not text.strip():
            return
        try:
            msg = json.loads(text)
        except ValueError:
            log.debug("not the protocol from %s: %r", self.port, text[:80])
            return  # a boot banner, a REPL prompt: not for anyone
        if not isinstance(msg, dict):
            return
        if "event" in msg:
            for peer in list(self.peers):
                if peer.watching:
                    peer.deliver(text)
            return
        if "ok" not in msg or "id" not in msg:
            return
        self._reply(msg)

    def _reply(self, msg):
        entry = self._pending.answered_by(msg["id"])
        if entry is None:
            return  # a late answer, or the answer to a half line a dead program left
        for older in self._pending.settle(entry):
            self._give_up(older, "the clock gave no answer to this request")
        self._answer(entry, msg)
        if not self._pending:
            self._changed()  # nothing waits for the clock any more

    def _answer(self, entry, msg):
        if entry.future is not None:
            if not entry.future.done():
                entry.future.set_result(msg)
            return
        if entry.watch_on is not None and msg.get("ok") is True:
            self._clock_watch = msg.get("on") is True
            msg["on"] = entry.watch_on
            self._changed()
        peer = entry.peer
        if peer is None or peer not in self.peers:
            return  # it left while waiting: nobody to tell
        if entry.bid is not None:
            msg["id"] = entry.cid
            if not entry.has_id:
                msg["id"] = None
        peer.deliver(dumps(msg))

    def _give_up(self, entry, why, offline=False):
        msg = {"id": entry.cid if entry.bid is not None else None, "ok": False, "error": why}
        if offline:
            msg["bridge"] = "offline"
        if entry.future is not None:
            if not entry.future.done():
                entry.future.set_result(msg)
            return
        if entry.peer is not None and entry.peer in self.peers:
            entry.peer.deliver(dumps(msg))

    def _sweep(self):
        for entry in self._pending.overdue(REQUEST_TIMEOUT_S):
            self._give_up(entry, "the clock did not answer within %d s" % REQUEST_TIMEOUT_S)
        self._sweeper = self.loop.call_later(1.0, self._sweep)

    def close(self):
        self._sweeper.cancel()

    # ----- the line coming and going ------------------------------------------------------

    def line_up(self):
        self.state = "opening"
        self._pending.stale = True
        self._send_line("")  # ends whatever half line was left on the clock's reader
        fut = self.loop.create_future()
        self._request(fut, "info", {})
        fut.add_done_callback(self._opened)
        self.loop.call_later(INFO_TIMEOUT_S, self._info_late, fut)

    def _info_late(self, fut):
        if not fut.done():
            fut.set_result(
                {"ok": False, "error": "no answer to info within %.0f s" % INFO_TIMEOUT_S}
            )

    def _opened(self, fut):
        if self.state != "opening":
            return
        msg = fut.result()
        if msg.get("ok") is not True or msg.get("protocol") != PROTOCOL:
            why = msg.get("error") or (
                "it speaks protocol %r, this bridge %d" % (msg.get("protocol"), PROTOCOL)
            )
            log.warning("%s does not answer as a goclock: %s; asking again", self.port, why)
            self.down_reason = "the device does not answer as a goclock (%s)" % why
            for peer, raw in self._held:
                _refuse_offline(peer, raw, self.down_reason)
            self._held.clear()
            self.loop.call_later(1.0, self._retry_open)
            return
        self.info = {k: v for k, v in msg.items() if k not in ("id", "ok")}
        self.state = "up"
        self._clock_watch = False
        log.info(
            "%s: goclock %s on %s", self.port, self.info.get("version"), self.info.get("board")
        )
        if self.watchers():
            self._request(self.loop.create_future(), "watch", {"on": True})
            self._clock_watch = True
        if self._was_up:
            self._notify("up", "the line to %s is back" % self.port)
        self._was_up = True
        held, self._held = self._held, collections.deque()
        for peer, raw in held:
            if peer in self.peers:
                self._forward(peer, raw)
        for callback in list(self.on_ready):
            callback()
        self._changed()

    def _retry_open(self):
        if self.state == "opening":
            self.line_up()

    def line_down(self, reason):
        self.state = "down"
        self.down_reason = reason
        self._clock_watch = False
        log.warning("%s: the line dropped (%s); waiting for it to come back", self.port, reason)
        for entry in self._pending.take_all():
            self._give_up(
                entry,
                "the line to %s dropped before the clock answered (%s)" % (self.port, reason),
                offline=True,
            )
        for peer, raw in self._held:
            _refuse_offline(peer, raw, "the line to %s dropped (%s)" % (self.port, reason))
        self._held.clear()
        self._changed()
        self._notify(
            "down", "the line to %s dropped (%s); the bridge waits for it" % (self.port, reason)
        )

    def _notify(self, state, message):
        ev = dumps({"event": "log", "notice": "bridge", "line": state, "message": message})
        for peer in list(self.peers):
            peer.deliver(ev)

    def _sync_watch(self):
        """After a watcher left: the clock's watch off when nobody watches any more."""
        if self.state == "up" and self._clock_watch and not self.watchers():
            self._clock_watch = False
            self._request(self.loop.create_future(), "watch", {"on": False})
            self._changed()
