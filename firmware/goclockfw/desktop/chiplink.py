"""The network on a chip model's timeline: a link that stalls, drops and comes back.

`ModelLink` has net/socklink.py's interface (what net/mqtt.py asks of a link), and charges
each socket call to the chip model (desktop/chipmodel.py) as a window in which the loop
is busy, by LINK_COSTS. Behind it `ModelBroker` answers as an MQTT 3.1.1 broker does
(CONNACK, PUBACK, SUBACK, PINGRESP) after a round trip, and keeps what it was sent. Faults,
scripted in model µs: `stall(until_us)` (the link takes nothing and brings nothing: a
radio that lost its access point, a full window), `drop(back_us)` (the connection is gone:
reads see it closed, connects fail until `back_us`).

**Modelled, not measured** (docs/hall.md): the costs are estimates of a non-blocking lwIP
socket call, not figures from a board. The RP2040 (Pico W): the CYW43 is on a PIO SPI bus
at about 31 MHz (~0.26 µs a byte), and a call copies into lwIP's pbufs under the lwIP lock;
the ESP32's lwIP runs on the other core, so a call is a copy and a queue post. What the
model shows is that the client never waits on the link, whatever the link does: a stalled
link costs each pass one refused send, a dropped one a failed read and, after the backoff,
a connect attempt.
"""

from goclockfw.desktop.chipmodel import LOOP_WAIT

# µs per call and per byte (x1000: integer maths), by chip.
LINK_COSTS = {
    "rp2040": {"call_us": 40, "byte_ns": 300, "rtt_us": 3000, "connect_us": 8000},
    "esp32": {"call_us": 25, "byte_ns": 60, "rtt_us": 3000, "connect_us": 8000},
}


class ModelBroker:
    """An MQTT 3.1.1 broker's answers, enough for the clock: it parses what the client
    sends and keeps every PUBLISH (topic, payload, retained)."""

    def __init__(self):
        self.published = []
        self.connects = 0
        self.acks = 0
        self._buf = b""

    def reset(self):
        self._buf = b""

    def feed(self, data):
        """The client's bytes; the answers, as bytes."""
        self._buf += bytes(data)
        out = b""
        while True:
            b = self._buf
            if len(b) < 2:
                return out
            length = 0
            shift = 0
            i = 1
            while True:
                if i >= len(b):
                    return out
                length |= (b[i] & 0x7F) << shift
                i += 1
                if not b[i - 1] & 0x80:
                    break
                shift += 7
            if len(b) < i + length:
                return out
            first = b[0]
            body = b[i : i + length]
            self._buf = b[i + length :]
            kind = first & 0xF0
            if kind == 0x10:
                self.connects += 1
                out += b"\x20\x02\x00\x00"
            elif kind == 0x30:
                tlen = (body[0] << 8) | body[1]
                topic = body[2 : 2 + tlen].decode()
                at = 2 + tlen
                qos = (first >> 1) & 3
                if qos:
                    out += b"\x40\x02" + body[at : at + 2]
                    at += 2
                    self.acks += 1
                self.published.append((topic, body[at:], bool(first & 1)))
            elif kind == 0x80:
                out += b"\x90\x03" + body[0:2] + b"\x01"
            elif kind == 0xC0:
                out += b"\xd0\x00"


class ModelLink:
    def __init__(self, model, broker=None):
        self.m = model
        self.costs = LINK_COSTS[model.chip]
        self.broker = broker or ModelBroker()
        self.open_ = False
        self._ready_us = 0
        self._rx = []  # (µs it arrives, bytes)
        self._stall_until = 0
        self._down_until = 0
        self._dropped = False
        self.calls = 0
        self.refused_sends = 0
        self.longest_call_us = 0
        self.error = None

    # ----- faults -----------------------------------------------------------------

    def stall(self, until_us):
        self._stall_until = until_us

    def drop(self, back_us):
        """The connection breaks now; no new one until `back_us`."""
        if self.open_:
            self._dropped = True
        self._down_until = back_us
        self._rx = []

    # ----- the link interface (net/socklink.py) ----------------------------------------

    def _charge(self, nbytes=0):
        us = self.costs["call_us"] + nbytes * self.costs["byte_ns"] // 1000
        self.calls += 1
        if us > self.longest_call_us:
            self.longest_call_us = us
        self.m.busy(us, LOOP_WAIT)

    def up(self, now):
        return True

    def resolve(self, host, port):
        return (host, port)

    def open(self, addr):
        self._charge()
        self.close()
        if self.m.us < self._down_until:
            raise OSError(113)  # EHOSTUNREACH: the network is not there
        self.open_ = True
        self._dropped = False
        self._ready_us = self.m.us + self.costs["connect_us"]
        self.broker.reset()

    def connected(self):
        if not self.open_:
            return -1
        return 1 if self.m.us >= self._ready_us else 0

    def send(self, data):
        self._charge(len(data))
        if self._dropped:
            raise OSError(104)  # ECONNRESET
        if self.m.us < self._stall_until:
            self.refused_sends += 1
            return 0
        answer = self.broker.feed(data)
        if answer:
            self._rx.append((self.m.us + self.costs["rtt_us"], answer))
        return len(data)

    def recv_into(self, buf):
        self._charge()
        if self._dropped:
            return 0
        if not self._rx or self.m.us < self._stall_until or self._rx[0][0] > self.m.us:
            return None
        at, data = self._rx[0]
        n = len(data) if len(data) < len(buf) else len(buf)
        self._charge(n)
        buf[:n] = data[:n]
        if n < len(data):
            self._rx[0] = (at, data[n:])
        else:
            self._rx.pop(0)
        return n

    def close(self):
        self.open_ = False
        self._rx = []
