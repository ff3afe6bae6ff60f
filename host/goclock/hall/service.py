"""The hall's connection to the broker: every clock of one hall, collected and watched.

paho-mqtt (PyPI; EPL-2.0 or EDL-1.0) runs the network in a thread of its own and
reconnects by itself after a broker restart (on_connect subscribes again). The hall's
session is persistent (clean_session off, a fixed client id per hall and folder): while
the hall is away or slow, the broker keeps its QoS 1 messages (events, log slices) for
it, within the broker's queue limits (`goclock hall setup` raises them); what a broker
restart loses the clocks resend from their cursors (docs/hall.md).

Every message goes, under one lock, to the Collector (log slices) or the Hall model
(online, state, event, arbiter); `reply` messages answer `request()`. Time of day comes
from `now` (injected in tests).
"""

import itertools
import json
import logging
import sys
import threading
import time
import traceback

import paho.mqtt.client as mqtt

from ..bridge.hallformat import VERSION_ROOT, check_name
from ..errors import DeviceTimeout, GoclockError
from . import results
from .collect import Collector
from .model import Hall

log = logging.getLogger("goclock.hall")

LEAVES = ("online", "state", "event", "arbiter", "reply", "log/+")
RESEND_MS = 2000
STOP_WAIT_S = 10.0  # `stop`: how long the network thread may take to end


def wall_ms():
    return int(time.time() * 1000)


class HallService:
    def __init__(
        self,
        hall,
        folder,
        host="127.0.0.1",
        port=1883,
        user=None,
        password=None,
        tls=None,
        client_id=None,
        keepalive=30,
        now=wall_ms,
        persistent=True,
    ):
        self.hall = check_name("hall", hall)
        self.root = "%s/%s" % (VERSION_ROOT, hall)
        self.collector = Collector(folder)
        self.collector.load()
        self._bound = results.load(folder, results.GAMES)  # "clock/game" -> round, table
        self.model = Hall()
        self.now = now
        self.cond = threading.Condition()
        self.connected = False
        self.subacks = 0
        self.connects = 0
        self.refusal = None  # the broker's reason when it refused the hall's login
        self.messages = 0
        self.verdicts = {}  # (clock, game) -> records/verify Check of a game that ended
        self._replies = {}
        self._asked = {}  # (clock, game) -> when log.resend was last sent
        self._ids = itertools.count(1)
        self.host, self.port, self.keepalive = host, port, keepalive
        self.persistent = persistent
        c = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=client_id or "goclock-hall-%s" % hall,
            clean_session=not persistent,
            protocol=mqtt.MQTTv311,
        )
        if user is not None:
            c.username_pw_set(user, password)  # the password is never logged
        if tls is not None:
            c.tls_set_context(tls)
        c.reconnect_delay_set(min_delay=0.1, max_delay=2)
        c.max_inflight_messages_set(100)
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_subscribe = self._on_subscribe
        c.on_message = self._on_message if persistent else self._on_reply_only
        self.client = c

    # ----- the connection -----------------------------------------------------------------

    def start(self):
        self.client.connect_async(self.host, self.port, self.keepalive)
        self.client.loop_start()
        return self

    def stop(self, wait_s=STOP_WAIT_S):
        """Disconnect and end the network thread, waiting `wait_s` for it at most: a hall
        that is told to stop stops. A thread still running then (it is a daemon: the
        process may end) is reported with where it is, for a bug report."""
        with self.cond:
            self.connected = False  # ours: not a broker lost
        self.client.disconnect()
        ender = threading.Thread(target=self.client.loop_stop, daemon=True)
        ender.start()
        ender.join(wait_s)
        if ender.is_alive():
            net = getattr(self.client, "_thread", None)  # (paho's own: for the report only)
            frame = sys._current_frames().get(net.ident) if net is not None else None
            where = "".join(traceback.format_stack(frame)) if frame is not None else "?"
            log.warning(
                "hall: the MQTT thread did not end within %g s; left at:\n%s", wait_s, where
            )

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def _on_connect(self, client, userdata, flags, reason, props):
        if reason.is_failure:
            with self.cond:
                self.refusal = str(reason)
                self.cond.notify_all()
            log.warning("hall: the broker %s:%d refused the hall: %s", self.host, self.port, reason)
            return
        log.info("hall: connected to %s:%d", self.host, self.port)
        leaves = LEAVES if self.persistent else ("reply",)
        client.subscribe([("%s/+/%s" % (self.root, leaf), 1) for leaf in leaves])
        with self.cond:
            self.connected = True
            self.refusal = None
            self.connects += 1
            if self.connects > 1:  # back after an outage: what did the broker forget?
                for (clock, game), g in self.collector.games.items():
                    if not g.ended:
                        self._asked.pop((clock, game), None)
                        self._resend(clock, game, self.now())
            self.cond.notify_all()

    def _on_disconnect(self, client, userdata, flags, reason, props):
        with self.cond:
            if self.connected:
                log.warning("hall: lost the broker (%s); reconnecting", reason)
            self.connected = False
            self.cond.notify_all()

    def _on_subscribe(self, client, userdata, mid, reasons, props):
        with self.cond:
            self.subacks += 1
            self.cond.notify_all()

    def _on_message(self, client, userdata, msg):
        try:
            self.take(msg.topic, bytes(msg.payload))
        except Exception:  # one bad message must not stop the hall's network thread
            log.exception("hall: a message on %s could not be handled", msg.topic)

    def _on_reply_only(self, client, userdata, msg):
        """A one-shot command (`hall assign`) reads replies only: the hall view, running
        beside it, collects the logs."""
        if msg.topic.endswith("/reply"):
            self._on_message(client, userdata, msg)

    # ----- messages -----------------------------------------------------------------------

    def take(self, topic, payload):
        """One message: to the collector, the model, or a waiting request."""
        parts = topic.split("/")
        if len(parts) < 5 or "/".join(parts[:3]) != self.root:
            return
        clock, leaf = parts[3], "/".join(parts[4:])
        now = self.now()
        with self.cond:
            self.messages += 1
            if leaf.startswith("log/"):
                what = self.collector.take(clock, leaf[4:], payload)
                if what == "new":
                    self._bind(clock, int(leaf[4:]))
                    self._check_ended(clock, int(leaf[4:]))
                elif what == "held":
                    self._resend(clock, int(leaf[4:]), now)
                elif what in ("refused", "conflict"):
                    self.model.notice(now, "%s: a log slice %s" % (clock, what))
            elif leaf == "reply":
                self._reply(clock, payload)
            else:
                self.model.take(clock, leaf, payload, now)
            self.cond.notify_all()

    def _resend(self, clock, game, now):
        """A gap (or a reconnect): ask the clock for its log again from what the hall has
        (`log.resend`, docs/hall.md), at most every RESEND_MS per game. Not waited for: a
        clock that cannot (the bridge) answers with a refusal, and the slices come when
        they come."""
        if not self.persistent:
            return
        g = self.collector.game(clock, game)
        key = (clock, game)
        if now - self._asked.get(key, -RESEND_MS) < RESEND_MS:
            return
        self._asked[key] = now
        req = {
            "id": "hall-resend",
            "cmd": "log.resend",
            "game": game,
            "offset": g.size,
            "rec": g.rec,
        }
        self.client.publish(
            "%s/%s/cmd" % (self.root, clock), json.dumps(req, separators=(",", ":")), qos=1
        )

    def _bind(self, clock, game):
        """Note which round and table a game was played at, when it is first seen: the
        clock's state (its assignment) if it names this game, else the hall's last
        assignment to that clock (results.py reads it back; the log's own `info` wins)."""
        key = "%s/%d" % (clock, game)
        if key in self._bound:
            return
        st = self.model.clock(clock).state or {}
        where = {"round": st.get("round"), "table": st.get("table")}
        if st.get("game") != game or not isinstance(where["round"], int):
            last = results.last_assignment(
                results.load(self.collector.folder, results.ASSIGNMENTS), clock
            )
            where = {"round": last[0], "table": last[1]} if last else {"round": None, "table": None}
        self._bound[key] = where
        try:
            results.save(self.collector.folder, results.GAMES, self._bound)
        except OSError as exc:
            log.warning("hall: cannot write %s: %s", results.GAMES, exc)

    def _check_ended(self, clock, game):
        g = self.collector.game(clock, game)
        if g.ended and (clock, game) not in self.verdicts:
            check = g.check()
            self.verdicts[(clock, game)] = check
            level = logging.INFO if check.ok else logging.WARNING
            log.log(level, "hall: %s game %d collected: %s", clock, game, check.verdict)
            self.model.notice(self.now(), "%s game %d collected: %s" % (clock, game, check.verdict))

    def _reply(self, clock, payload):
        try:
            msg = json.loads(payload)
        except ValueError:
            return
        if isinstance(msg, dict) and (clock, msg.get("id")) in self._replies:
            self._replies[(clock, msg.get("id"))] = msg

    # ----- waiting and asking -------------------------------------------------------------

    def wait(self, pred, timeout=20.0, what="the hall"):
        """Until pred() holds (checked under the lock after every message), bounded."""
        with self.cond:
            if not self.cond.wait_for(pred, timeout):
                raise DeviceTimeout("%s: not within %.0f s" % (what, timeout))

    def wait_connected(self, timeout=20.0):
        """Until connected and subscribed (or the broker refused the login)."""
        start = self.subacks

        def ready():
            return self.refusal is not None or (self.connected and self.subacks > start)

        if self.connected and self.subacks:
            return
        self.wait(ready, timeout, "no answer from the broker %s:%d" % (self.host, self.port))
        if self.refusal is not None:
            raise GoclockError("the broker refused the hall: %s" % self.refusal)

    def request(self, clock, cmd, timeout=10.0, **args):
        """Send `cmd` to one clock's `cmd` topic; its reply (a dict with `ok`)."""
        check_name("clock", clock)
        rid = "hall-%d" % next(self._ids)
        key = (clock, rid)
        req = dict(args, id=rid, cmd=cmd)
        with self.cond:
            self._replies[key] = None
        try:
            info = self.client.publish(
                "%s/%s/cmd" % (self.root, clock), json.dumps(req, separators=(",", ":")), qos=1
            )
            if info.rc != mqtt.MQTT_ERR_SUCCESS:
                raise GoclockError(
                    "cannot send %s to %s: not connected to the broker" % (cmd, clock)
                )
            self.wait(
                lambda: self._replies[key] is not None, timeout, "%s: no reply to %s" % (clock, cmd)
            )
            with self.cond:
                return self._replies[key]
        finally:
            with self.cond:
                self._replies.pop(key, None)

    def summary(self):
        """Each game collected: clock, game, records, bytes, held, verdict (when checked)."""
        with self.cond:
            out = []
            for (clock, game), g in sorted(self.collector.games.items()):
                check = self.verdicts.get((clock, game))
                out.append(
                    {
                        "clock": clock,
                        "game": game,
                        "records": g.rec,
                        "bytes": g.size,
                        "duplicates": g.duplicates,
                        "waiting_for": g.missing[:5],
                        "ended": g.ended,
                        "verdict": check.verdict if check else None,
                        "ok": check.ok if check else None,
                    }
                )
            return out
