"""`goclock bridge --hall`: a clock without Wi-Fi in the hall, as a Wi-Fi clock would be.

The bridge publishes the clock's topics (hallformat.py; the lead's hall contract) through
an MQTT broker with paho-mqtt (PyPI; EPL-2.0 or EDL-1.0):

- `online` (retained, QoS 1): the clock's version, board and game; the broker's Last Will
  says `{"online":false}` when the bridge dies, and so does the bridge itself while the
  clock's serial line is down;
- `state` (retained): the status with the assignment, `t` (the game time it holds at, from
  the clock's last event and the time since: the serial status has no `t`), `utc` (this
  machine's time of day when the status arrived) and `seq`; on every change and at least
  every 5 s while a clock runs;
- `event` (QoS 1): every event line but `status`, with `game` and `rec` (the record's
  number in the game's log, found by reading the log; null for events not logged);
- `log/<game>` (QoS 1): the log in slices, each a record with the marks before it,
  pulled with `logs.get` from the record after the last one the broker acknowledged
  (PUBACK). That cursor is kept on disk per clock and game (`<state_dir>/<hall>+<clock>.json`),
  so a restart, a broker outage or a replug resends from there: never a gap; perhaps a
  few records twice, which the hall drops by `rec` (logsync.py);
- `cmd` -> the clock, through the whitelist, answered on `reply`.

paho runs its network loop in a thread of its own; what it reports is posted onto the
bridge's event loop, where all the rest runs, one clock line at a time.
"""

import asyncio
import base64
import contextlib
import json
import logging
import os
import re
import time
from dataclasses import dataclass

import paho.mqtt.client as mqtt

from ..errors import UsageError
from ..timecontrol import presets
from . import hallformat as fmt
from .hub import dumps
from .logsync import Cursor, LogSync
from .peers import InternalPeer

log = logging.getLogger("goclock.bridge")

STATE_EVERY_S = 5.0


@dataclass
class HallOptions:
    hall: str
    clock: str
    host: str = "127.0.0.1"
    port: int = 1883
    user: str = None
    password: str = None  # never logged, never published
    state_dir: str = None
    keepalive: int = 30
    tls: object = None  # an ssl.SSLContext for a broker with TLS


def parse_broker(text):
    host, _, port = (text or "127.0.0.1").rpartition(":") if ":" in (text or "") else (text, "", "")
    try:
        return host or "127.0.0.1", int(port) if port else 1883
    except ValueError:
        raise UsageError("--broker takes HOST[:PORT], e.g. 192.168.1.10:1883") from None


class HallPublisher:
    def __init__(self, hub, options):
        self.hub = hub
        self.o = options
        self.root = fmt.root(options.hall, options.clock)
        state_dir = options.state_dir or os.path.join(presets.home(), "bridge")
        self.cursor = Cursor(os.path.join(state_dir, "%s+%s.json" % (options.hall, options.clock)))
        self.log = LogSync(self, hub, self.cursor)
        self.loop = hub.loop
        self.peer = InternalPeer(hub, "hall %s/%s" % (options.hall, options.clock), self._line)
        self.connected = False
        self.status = None
        self.assignment = {}
        self.seq = 0
        self._last_state = None
        self._state_at = 0.0
        self._t = None  # (game time of the last event, loop time it arrived)
        self._line_state_was = None
        self._hall_acked = False  # an arbiter.ack from the hall forwarded, not yet noticed
        self.client = self._make_client()

    def describe(self):
        return "%s on %s:%d" % (self.root, self.o.host, self.o.port)

    def _make_client(self):
        c = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id="goclock-bridge-%s-%s" % (self.o.hall, self.o.clock),
            protocol=mqtt.MQTTv311,
        )
        if self.o.user:
            c.username_pw_set(self.o.user, self.o.password)
        if self.o.tls is not None:
            c.tls_set_context(self.o.tls)
        c.will_set(self.root + "/online", dumps({"online": False}), qos=1, retain=True)
        c.reconnect_delay_set(min_delay=1, max_delay=10)
        c.on_connect = lambda *a: self._post(self._connected, a[3])
        c.on_disconnect = lambda *a: self._post(self._disconnected, a[3])
        c.on_publish = lambda client, userdata, mid, rc, props: self._post(self.log.acked, mid)
        c.on_message = lambda client, userdata, msg: self._post(self._cmd, msg.payload)
        return c

    def _post(self, fn, *args):
        self.loop.call_soon_threadsafe(fn, *args)

    # ----- life ---------------------------------------------------------------------------

    async def start(self):
        self.peer.start()
        self.hub.on_ready.append(self._clock_ready)
        self.hub.on_change.append(self._line_changed)
        self.client.connect_async(self.o.host, self.o.port, keepalive=self.o.keepalive)
        self.client.loop_start()
        if self.hub.state == "up":
            self._clock_ready()

    async def stop(self):
        with contextlib.suppress(Exception):
            if self.connected:
                info = self.client.publish(self.root + "/online", dumps({"online": False}), 1, True)
                await asyncio.get_running_loop().run_in_executor(None, info.wait_for_publish, 3)
        self.client.disconnect()
        self.client.loop_stop()
        self.peer.close()

    # ----- MQTT ---------------------------------------------------------------------------

    def _connected(self, reason):
        if reason.is_failure:
            log.warning("the broker %s:%d refused the bridge: %s", self.o.host, self.o.port, reason)
            return
        log.info("hall: connected to %s:%d as %s", self.o.host, self.o.port, self.root)
        self.connected = True
        self.client.subscribe(self.root + "/cmd", qos=1)
        self.log.restart()
        self._publish_online()
        if self.status is not None:
            self._publish_state(force=True)
        self._spawn(self.log.sync())

    def _disconnected(self, reason):
        if self.connected:
            log.warning("hall: lost the broker (%s); reconnecting", reason)
        self.connected = False

    def publish(self, leaf, payload, qos=1, retain=False):
        if not self.connected:
            return None
        if not isinstance(payload, (bytes, bytearray)):
            payload = dumps(payload)
        return self.client.publish(self.root + "/" + leaf, payload, qos=qos, retain=retain)

    def _publish_online(self):
        if self.hub.state != "up" or self.hub.info is None:
            msg = {"online": False}
        else:
            msg = {
                "online": True,
                "version": self.hub.info.get("version"),
                "board": self.hub.info.get("board"),
                "game": (self.status or {}).get("game"),
            }
        self.publish("online", msg, qos=1, retain=True)

    # ----- the clock ----------------------------------------------------------------------

    def _clock_ready(self):
        self._spawn(self._fresh_clock())

    def _line_changed(self):
        """The clock's line dropped: the hall sees the clock offline until it is back."""
        state = self.hub.state
        if state == "down" and self._line_state_was != "down":
            self._publish_online()
        self._line_state_was = state

    async def _fresh_clock(self):
        self.hub.set_watch(self.peer, True)
        cfg = await self.hub.request("config.get")
        if cfg.get("ok"):
            self.assignment = fmt.assignment_of(cfg.get("config"))
        st = await self.hub.request("status")
        if st.get("ok"):
            self._status(st, force=True)
        self._publish_online()
        await self.log.sync()

    def _spawn(self, coro):
        task = self.loop.create_task(coro)
        task.add_done_callback(_report)

    async def _line(self, text):
        """Every line the hub gives this publisher, in order: events, and the replies to
        the hall's commands."""
        try:
            msg = json.loads(text)
        except ValueError:
            return
        if "ok" in msg and "event" not in msg:
            self.publish("reply", text.encode("utf-8"))
            return
        kind = msg.get("event")
        if kind == "status":
            self._status(msg)
            return
        if kind == "log" and msg.get("notice") == "bridge":
            return  # the bridge's own notices: `online` tells the hall
        if "t" in msg:
            self._t = (msg["t"], self.loop.time())
        await self.log.sync()
        game = (self.status or {}).get("game")
        ev = dict(msg)
        ev["game"] = game
        ev["rec"] = self.log.rec_of(game, msg)
        self.publish("event", ev)
        if kind == "log" and msg.get("notice") in ("arbiter_call", "arbiter_ack"):
            self._publish_arbiter(msg)
        if kind in ("end", "game"):
            self._spawn(self._refresh_status())

    def _publish_arbiter(self, msg):
        """The `arbiter` topic as a Wi-Fi clock keeps it (docs/hall.md): retained, the call
        shown until it is answered; the bridge learns of both from the clock's notices. An
        answer the bridge forwarded from the hall reaches the clock over serial (by "host"):
        the hall is named as the one who answered."""
        if msg["notice"] == "arbiter_call":
            body = {"calling": True, "t": msg.get("t")}
        else:
            said = re.search(r"\((\w+)\)$", msg.get("message") or "")
            by = said.group(1) if said else None
            if by == "host" and self._hall_acked:
                by = "hall"
            self._hall_acked = False
            body = {"calling": False, "by": by}
        self.publish("arbiter", body, retain=True)

    async def _refresh_status(self):
        st = await self.hub.request("status")
        if st.get("ok"):
            self._status(st)

    def _status(self, st, force=False):
        old_game = (self.status or {}).get("game")
        self.status = {k: v for k, v in st.items() if k not in ("event", "id", "ok")}
        if self.status.get("game") != old_game:
            self._publish_online()
            self._spawn(self.log.sync())
        self._publish_state(force)

    def _publish_state(self, force=False):
        now = self.loop.time()
        shape = fmt.shape(self.status)
        running = self.status.get("state") == "running"
        due = running and now - self._state_at >= STATE_EVERY_S
        if not (force or due or shape != self._last_state):
            return
        self._last_state = shape
        self._state_at = now
        self.seq += 1
        t = None
        if self._t is not None:
            t0, at = self._t
            t = t0 + (int((now - at) * 1000) if running else 0)
        payload = fmt.state_payload(
            self.status, self.assignment, t, int(time.time() * 1000), self.seq
        )
        self.publish("state", payload, qos=1, retain=True)

    # ----- commands from the hall -----------------------------------------------------------

    def _cmd(self, payload):
        req, refusal = fmt.check_cmd(payload)
        if refusal is not None:
            log.warning("hall: refused a command on %s/cmd: %s", self.root, refusal["error"])
            self.publish("reply", refusal)
            return
        self._spawn(self._forward(req))

    async def _forward(self, req):
        if req["cmd"] == "arbiter.ack":
            self._hall_acked = True
        if req["cmd"] == "log.resend":
            self.publish("reply", await self._resend(req))
            return
        if req["cmd"] == "reset":
            st = await self.hub.request("status")
            refusal = fmt.reset_refusal(req, st.get("state"))
            if refusal is not None:
                log.warning("hall: refused a reset of a paused game without confirm")
                self.publish("reply", refusal)
                return
            req = {k: v for k, v in req.items() if k != "confirm"}
        self.hub.submit(self.peer, dumps(req).encode("utf-8"))

    async def _resend(self, req):
        """`log.resend` (docs/hall.md): the hall has game `game` up to byte `offset`, record
        `rec` (it lost what the broker took meanwhile), so the log goes again from there.
        The clock's own MQTT client answers the same, with the same checks."""
        rid = req.get("id")
        rid = rid if isinstance(rid, (int, str)) and not isinstance(rid, bool) else None
        game, offset, rec = req.get("game"), req.get("offset"), req.get("rec")
        for v in (game, offset, rec):
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                return {"id": rid, "ok": False, "error": "give 'game', 'offset', 'rec'"}
        r = await self.hub.request("logs.get", game=game, offset=max(offset - 1, 0), length=1)
        if not r.get("ok"):
            return {"id": rid, "ok": False, "error": r.get("error") or "no game %d" % game}
        if offset:
            if base64.b64decode(r.get("data") or "") != b"\n":
                return {"id": rid, "ok": False, "error": "offset %d is not a slice's end" % offset}
        async with self.log.lock:
            self.log.resend_from(game, rec, offset)
        log.info("hall: game %d's log sent again from record %d (byte %d)", game, rec + 1, offset)
        self._spawn(self.log.sync())
        return {"id": rid, "ok": True}


def _report(task):
    if not task.cancelled() and task.exception() is not None:
        log.error("hall publisher: %r", task.exception())
