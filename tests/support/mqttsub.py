"""A hall-side MQTT client for tests (paho-mqtt): subscribes, waits for the SUBACK, keeps
every message, and wakes a waiter on each one (no polling, bounded waits)."""

import json
import threading

import paho.mqtt.client as mqtt


class Subscriber:
    def __init__(self, port, topic, client_id="test-hall"):
        self.messages = []  # (topic, payload bytes, retained)
        self._cond = threading.Condition()
        self._subscribed = threading.Event()
        self._connected = threading.Event()
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id)
        c.on_connect = lambda *a: (c.subscribe(topic, qos=1), self._connected.set())
        self.subacks = 0
        c.on_subscribe = lambda *a: self._suback()
        c.on_message = self._message
        c.connect("127.0.0.1", port)
        c.loop_start()
        self.client = c
        if not self._subscribed.wait(15):
            raise TimeoutError("no SUBACK from the broker")

    def _suback(self):
        with self._cond:
            self.subacks += 1
            self._cond.notify_all()
        self._subscribed.set()

    def wait_subscribed(self, count, timeout=30.0):
        """Until the broker has acknowledged `count` subscriptions in all (a broker
        restart: paho reconnects, and on_connect subscribes again)."""
        with self._cond:
            if not self._cond.wait_for(lambda: self.subacks >= count, timeout):
                raise TimeoutError("not subscribed again")

    def _message(self, client, userdata, msg):
        with self._cond:
            self.messages.append((msg.topic, bytes(msg.payload), bool(msg.retain)))
            self._cond.notify_all()

    def mark(self):
        """Where the messages stand now: `wait(..., after=mark)` looks only at later ones."""
        with self._cond:
            return len(self.messages)

    def wait(self, pred, timeout=20.0, after=0):
        """The first message (topic, payload, retained) from number `after` on for which
        `pred(topic, payload)` holds; waits for it."""
        seen = [after]

        def found():
            for m in self.messages[seen[0] :]:
                seen[0] += 1
                if pred(m[0], m[1]):
                    found.hit = m
                    return True
            return False

        with self._cond:
            if not self._cond.wait_for(found, timeout):
                raise TimeoutError("no such message; last: %r" % self.messages[-3:])
            return found.hit

    def wait_json(self, leaf, pred=lambda m: True, timeout=20.0, after=0):
        def match(topic, payload):
            if not topic.endswith("/" + leaf):
                return False
            try:
                return pred(json.loads(payload))
            except ValueError:
                return False

        return json.loads(self.wait(match, timeout, after)[1])

    def on(self, leaf):
        with self._cond:
            return [m for m in self.messages if m[0].endswith("/" + leaf)]

    def publish(self, topic, payload):
        info = self.client.publish(topic, payload, qos=1)
        info.wait_for_publish(10)

    def close(self):
        self.client.disconnect()
        self.client.loop_stop()
