"""A small MQTT 3.1.1 client that never blocks: driven one bounded step per loop pass.

Why not micropython-lib's umqtt.simple: its connect and a QoS 1 publish wait on the socket
(measured in docs/hall.md: 3 s and more with a silent broker; forever without a timeout),
and the clock's loop may not wait 5 ms. This one keeps every packet it sends in one ring
(app/outbuf.py's OutBuffer, allocated once) and hands the socket what it takes each
`step`; it reads at most one buffer of what came each step and acts on whole packets.

What it does: CONNECT with a clean session, a user and password, a keep-alive and a Last
Will; CONNACK (a refusal is told by `refused`, its return code); PUBLISH at QoS 0 and 1
with packet ids, PUBACK from the broker (`on_puback(pid)`); SUBSCRIBE to one topic and its
SUBACK; incoming PUBLISH at QoS 0 or 1 (PUBACKed) to `on_message(topic, payload)`;
PINGREQ after `keepalive` of silence, and a link with no answer for half as long again is
dropped; DISCONNECT. Every failure closes the link and tries again after a backoff that
doubles from 1 s to 30 s (a refused login waits 60 s): `state` says where it is.

Time is the board's tick, given to `step(now)`: nothing here reads a clock.
"""

from goclockfw.app.outbuf import OutBuffer
from goclockfw.core.ticks import ticks_add, ticks_diff

DOWN = 0  # waiting to (re)connect at `retry_at`
CONNECTING = 1  # the TCP connect is under way
WAITING = 2  # CONNECT sent, no CONNACK yet
UP = 3
STATES = ("down", "connecting", "waiting", "up")

CONNECT_MS = 10000  # a TCP connect or a CONNACK that takes longer: try again
BACKOFF_FIRST_MS = 1000
BACKOFF_MAX_MS = 30000
REFUSED_MS = 60000  # after a refused login (bad password, not authorised)
RECV_SIZE = 1536  # one incoming packet: a 1024-byte cmd, its topic and header
OUT_SIZE = 6144

_PUBLISH = 0x30
_PUBACK = 0x40
_SUBACK = 0x90
_CONNACK = 0x20
_PINGRESP = 0xD0
_PINGREQ = b"\xc0\x00"
_DISCONNECT = b"\xe0\x00"
REFUSALS = {
    1: "the broker does not speak MQTT 3.1.1",
    2: "the broker refused the client id",
    3: "the broker is unavailable",
    4: "bad user name or password",
    5: "not authorised",
}


def _str(s):
    """A UTF-8 string with its 2-byte length, as MQTT writes it."""
    b = s.encode() if isinstance(s, str) else bytes(s)
    return bytes((len(b) >> 8, len(b) & 255)) + b


class Client:
    def __init__(self, link, client_id, user=None, password=None, keepalive=60):
        self.link = link
        self.client_id = client_id
        self.user = user
        self._password = password  # kept for CONNECT only: never shown anywhere
        self.keepalive_ms = keepalive * 1000
        self.will = None  # (topic, payload) retained at QoS 1
        self.sub = None  # the one topic subscribed at every connect
        self.addr = None
        self.host = None
        self.port = 1883
        self.state = DOWN
        self.retry_at = 0
        self.backoff = BACKOFF_FIRST_MS
        self.since = 0  # when the state began
        self.refused = 0  # the last CONNACK refusal code (0: none)
        self.error = None  # the last failure, for a notice
        self.out = OutBuffer(OUT_SIZE)
        self._outv = memoryview(self.out.buf)  # what _write hands the socket is a view of it
        self._in = bytearray(RECV_SIZE)
        self._inv = memoryview(self._in)
        self._have = 0  # bytes of an incoming packet in _in
        self._skip = 0  # bytes of an oversized packet still to throw away
        self.oversized = 0  # incoming packets too big for the buffer, thrown away
        self._hdr = bytearray(8)
        self._pid = 0
        self.last_out = 0
        self.last_in = 0
        self.ping_out = False
        self.connects = 0  # successful CONNACKs
        self.drops = 0
        self.on_connect = None  # () after a CONNACK
        self.on_puback = None  # (pid)
        self.on_message = None  # (topic bytes, payload memoryview)
        self.on_oversized = None  # (remaining length) of an incoming packet thrown away
        self.on_down = None  # (reason)

    # ----- connection ------------------------------------------------------------

    def start(self, host, port, now):
        self.host = host
        self.port = port
        self.addr = None
        self.state = DOWN
        self.retry_at = now

    def may_resolve(self):
        """Is a name lookup needed (it blocks: the caller does it only when nothing runs)?"""
        h = self.host
        if h is None or self.addr is not None:
            return False
        for ch in h:
            if ch not in "0123456789.":
                return True
        return False

    def _open(self, now):
        try:
            if self.addr is None:
                self.addr = self.link.resolve(self.host, self.port)
            self.link.open(self.addr)
        except OSError as e:
            self._fail(now, "cannot connect: %s" % (e,))
            return
        self.state = CONNECTING
        self.since = now

    def _fail(self, now, why, wait=None):
        why = " ".join(why.split())  # mbedTLS's messages come with newlines
        was_up = self.state == UP
        self.link.close()
        self.state = DOWN
        self.error = why
        if wait is None:
            wait = self.backoff
            self.backoff = (
                self.backoff * 2 if self.backoff < BACKOFF_MAX_MS // 2 else BACKOFF_MAX_MS
            )
        self.retry_at = ticks_add(now, wait)
        self.out.head = self.out.used = 0  # what was queued for that link is gone
        self.out.holding = False
        self._have = self._skip = 0
        self.ping_out = False
        if was_up:
            self.drops += 1
        if self.on_down is not None:
            self.on_down(why)

    def abort(self, now):
        """Give up a connection under way, quietly, to try again from `now` on."""
        self.link.close()
        self.state = DOWN
        self.retry_at = now
        self.out.head = self.out.used = 0
        self._have = self._skip = 0

    def close(self, now):
        """A clean end: DISCONNECT (the broker then sends no Last Will)."""
        if self.state == UP:
            try:
                self.link.send(_DISCONNECT)
            except OSError:
                pass
        self.link.close()
        self.state = DOWN
        self.retry_at = ticks_add(now, BACKOFF_MAX_MS)

    def _connect_packet(self):
        flags = 0x02  # clean session: the log's cursor, not the broker, remembers
        body = bytearray(b"\x00\x04MQTT\x04")
        payload = bytearray(_str(self.client_id))
        if self.will is not None:
            flags |= 0x04 | 0x08 | 0x20  # a will, QoS 1, retained
            payload.extend(_str(self.will[0]))
            payload.extend(_str(self.will[1]))
        if self.user is not None:
            flags |= 0x80
            payload.extend(_str(self.user))
            if self._password is not None:
                flags |= 0x40
                payload.extend(_str(self._password))
        k = self.keepalive_ms // 1000
        body.extend(bytes((flags, k >> 8, k & 255)))
        body.extend(payload)
        self._packet(0x10, body)

    def _packet(self, first, body):
        self._put_hdr(self._header(first, len(body)))
        self.out.put_part(body)

    def _put_hdr(self, n):
        """The first `n` bytes of _hdr into the ring, byte by byte: no slice, no view."""
        out = self.out
        buf = out.buf
        h = self._hdr
        size = out.size
        at = out.head + out.used
        for i in range(n):
            buf[(at + i) % size] = h[i]
        out.used += n

    def _header(self, first, length):
        h = self._hdr
        h[0] = first
        i = 1
        while True:
            b = length & 0x7F
            length >>= 7
            h[i] = b | (0x80 if length else 0)
            i += 1
            if not length:
                return i

    # ----- publishing ---------------------------------------------------------------

    def next_pid(self):
        p = self._pid + 1
        if p > 65535:
            p = 1
        self._pid = p
        return p

    def room(self, topic_len, payload_len):
        """Does a PUBLISH of this size fit in the ring now (and the link is up)?"""
        return self.state == UP and self.out.free() >= topic_len + payload_len + 7

    def publish(self, topic, payload, qos=0, retain=False, payload2=None):
        """Queue one PUBLISH; `topic` as _str made it (its 2-byte length first), `payload`
        (and `payload2` after it) bytes-like. The packet id (QoS 1), 0 for QoS 0, or -1
        when it does not fit or the link is not up: nothing was queued."""
        n2 = len(payload2) if payload2 is not None else 0
        length = len(topic) + len(payload) + n2 + (2 if qos else 0)
        if self.state != UP or self.out.free() < length + 5:
            return -1
        first = _PUBLISH | (qos << 1) | (1 if retain else 0)
        out = self.out
        self._put_hdr(self._header(first, length))
        out.put_part(topic)
        pid = 0
        if qos:
            pid = self.next_pid()
            h = self._hdr
            h[0] = pid >> 8
            h[1] = pid & 255
            self._put_hdr(2)
        out.put_part(payload)
        if n2:
            out.put_part(payload2)
        return pid

    # ----- one step -------------------------------------------------------------------

    def step(self, now):
        """One bounded step: connect progress, one read, the writes the socket takes,
        keep-alive. Never waits."""
        st = self.state
        if st == DOWN:
            if self.host is not None and ticks_diff(now, self.retry_at) >= 0:
                if self.link.up(now):
                    self._open(now)
            return
        link = self.link
        if st == CONNECTING:
            try:
                c = link.connected()  # with TLS: the socket is wrapped here
            except (OSError, ValueError) as e:
                self._fail(now, "cannot connect: %s" % (e,))
                return
            if c < 0:
                self._fail(now, "cannot connect to %s:%d" % (self.host, self.port))
            elif c > 0:
                self.state = WAITING
                self.since = now
                self.last_in = now
                self._connect_packet()
            elif ticks_diff(now, self.since) > CONNECT_MS:
                self._fail(now, "connect timed out")
            return
        try:
            self._read(now)
            if self.state != DOWN:
                self._write(now)
        except (OSError, ValueError) as e:  # ValueError: mbedTLS's certificate refusals
            self._fail(now, "link lost: %s" % (e,))
            return
        st = self.state
        if st == WAITING:
            if ticks_diff(now, self.since) > CONNECT_MS:
                self._fail(now, "no answer to CONNECT")
        elif st == UP:
            quiet_in = ticks_diff(now, self.last_in)
            if self.ping_out and quiet_in > self.keepalive_ms + self.keepalive_ms // 2:
                self._fail(now, "the broker stopped answering")
            elif not self.ping_out and ticks_diff(now, self.last_out) >= self.keepalive_ms:
                if self.out.free() >= 2:
                    self.out.put_part(_PINGREQ)
                    self.ping_out = True

    def _write(self, now):
        out = self.out
        k = out.take()
        if not k:
            return
        n = self.link.send(self._outv[out.head : out.head + k])
        if n:
            out.sent(n)
            self.last_out = now

    def _read(self, now):
        buf = self._in
        if self._skip:
            n = self.link.recv_into(memoryview(buf)[: min(self._skip, RECV_SIZE)])
            if n is None:
                return
            if n == 0:
                raise OSError("closed by the broker")
            self._skip -= n
            self.last_in = now
            return
        have = self._have
        n = self.link.recv_into(self._inv[have:])
        if n is None:
            return
        if n == 0:
            raise OSError("closed by the broker")
        self.last_in = now
        have += n
        # Whole packets, in order; a part of one waits for the next read.
        pos = 0
        while have - pos >= 2:
            length = 0
            shift = 0
            i = pos + 1
            while True:
                if i >= have:
                    length = -1
                    break
                b = buf[i]
                length |= (b & 0x7F) << shift
                i += 1
                if not b & 0x80:
                    break
                shift += 7
                if shift > 21:
                    raise OSError("bad packet length")
            if length < 0:
                break
            end = i + length
            if end - pos > RECV_SIZE:
                # Too big for the buffer (an oversized cmd): thrown away as it arrives.
                self._skip = end - have if end > have else 0
                have = pos  # drop what of it is here
                self.oversized += 1
                if self.on_oversized is not None:
                    self.on_oversized(length)
                break
            if end > have:
                break
            self._packet_in(buf[pos], i, end, now)
            if self.state == DOWN:
                return
            pos = end
        if pos:
            rest = have - pos
            if rest:
                buf[0:rest] = buf[pos:have]
            have = rest
        self._have = have

    def _packet_in(self, first, start, end, now):
        kind = first & 0xF0
        buf = self._in
        if kind == _PUBACK and end - start >= 2:
            if self.on_puback is not None:
                self.on_puback((buf[start] << 8) | buf[start + 1])
        elif kind == _PUBLISH:
            tlen = (buf[start] << 8) | buf[start + 1]
            at = start + 2 + tlen
            topic = bytes(buf[start + 2 : at])
            qos = (first >> 1) & 3
            if qos:
                pid_hi, pid_lo = buf[at], buf[at + 1]
                at += 2
                h = self._hdr
                h[0] = _PUBACK
                h[1] = 2
                h[2] = pid_hi
                h[3] = pid_lo
                if self.out.free() >= 4:
                    self._put_hdr(4)
            if self.on_message is not None:
                self.on_message(topic, self._inv[at:end])
        elif kind == _PINGRESP:
            self.ping_out = False
        elif kind == _CONNACK and end - start >= 2:
            rc = buf[start + 1]
            if rc:
                self.refused = rc
                self._fail(now, "refused: %s" % REFUSALS.get(rc, "code %d" % rc), REFUSED_MS)
                return
            self.refused = 0
            self.state = UP
            self.since = now
            self.backoff = BACKOFF_FIRST_MS
            self.connects += 1
            self.error = None
            if self.sub is not None:
                body = bytearray(2)
                pid = self.next_pid()
                body[0] = pid >> 8
                body[1] = pid & 255
                body.extend(_str(self.sub))
                body.append(1)  # QoS 1
                self._packet(0x82, body)
            if self.on_connect is not None:
                self.on_connect()
        # SUBACK and anything else: nothing to do

    def busy(self):
        """Something to send, or a connection under way: look again soon."""
        return self.out.used > 0 or self.state == CONNECTING or self.state == WAITING
