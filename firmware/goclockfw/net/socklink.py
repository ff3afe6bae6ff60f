"""A TCP link that never blocks: the socket under the MQTT client (net/mqtt.py).

The same code on the MicroPython unix port (the desktop board), on a Pico W or an ESP32
(lwIP) and on CPython (tests): a non-blocking socket, a connect that is started and then
polled, writes of what the socket takes now, reads of what is there now.

    link.up(now)            the path is there (Wi-Fi joined; always on a desktop)
    link.resolve(host, port) the address: a name lookup BLOCKS (DNS), so the client asks
                            only when no clock runs, or for an IP literal (no lookup)
    link.open(addr)         start connecting (raises OSError when it cannot even start)
    link.connected()        1 connected, 0 not yet, -1 failed
    link.send(mv)           bytes taken now (0: the socket is full)
    link.recv_into(buf)     bytes read now, None: nothing yet; 0: the peer closed
    link.close()

With `tls_ca` set (the CA certificate, DER), the connected socket is wrapped in TLS
(MicroPython's `tls` module, mbedTLS) without a handshake at connect: the handshake goes on
in the reads and writes that follow, a piece each, and the broker's certificate must be
signed by that CA and name the host. Its public-key steps take long on a chip (docs/hall.md,
TLS): net/hall.py lets a TLS link connect only while no clock runs.

A board may pass `poller`, a select.poll its `wait` sleeps on: the socket is registered
there while open, so data from the broker ends the loop's sleep (the desktop board).
"""

import select
import socket

_EAGAIN = (11, 115, 119)  # EAGAIN, EINPROGRESS, lwIP's EINPROGRESS on some ports
_FAILED = select.POLLERR | select.POLLHUP


class SockLink:
    def __init__(self, poller=None):
        self.sock = None
        self.poller = poller  # the board's poll object, or None
        self._poll = select.poll()
        self._read = None
        self._write = None
        self.error = None  # why the link failed, for a notice
        self.tls_ca = None  # the CA's certificate (DER): TLS on every connection
        self.host = None

    def up(self, now):
        return True

    def resolve(self, host, port):
        return socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM)[0][-1]

    def open(self, addr):
        self.close()
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        self.sock = s
        self._read = getattr(s, "readinto", None) or s.recv_into
        self._write = s.send
        self._poll.register(s, select.POLLOUT)
        if self.poller is not None:  # the connect's end wakes the board's wait too
            self.poller.register(s, select.POLLIN | select.POLLOUT)
        try:
            s.connect(addr)
        except OSError as e:
            if e.args[0] not in _EAGAIN:
                self.close()
                raise

    def connected(self):
        if self.sock is None:
            return -1
        for _obj, ev in self._poll.poll(0):
            if ev & _FAILED:
                return -1
            if ev & select.POLLOUT:
                self._poll.modify(self.sock, select.POLLIN)
                if self.poller is not None:
                    self.poller.modify(self.sock, select.POLLIN)
                if self.tls_ca is not None:
                    self._wrap()
                return 1
        return 0

    def _wrap(self):
        import tls  # MicroPython's mbedTLS binding (on ports built with it)

        ctx = tls.SSLContext(tls.PROTOCOL_TLS_CLIENT)
        ctx.load_verify_locations(self.tls_ca)
        ctx.verify_mode = tls.CERT_REQUIRED
        w = ctx.wrap_socket(
            self.sock, server_side=False, do_handshake_on_connect=False, server_hostname=self.host
        )
        self._read = w.readinto
        self._write = w.write
        self._tls = w

    def send(self, data):
        try:
            n = self._write(data)
        except OSError as e:
            if e.args[0] in _EAGAIN:
                return 0
            raise
        return n or 0

    def recv_into(self, buf):
        try:
            return self._read(buf)
        except OSError as e:
            if e.args[0] in _EAGAIN:
                return None
            raise

    def close(self):
        s = self.sock
        if s is None:
            return
        self.sock = None
        for p in (self._poll, self.poller):
            if p is not None:
                try:
                    p.unregister(s)
                except (OSError, KeyError, ValueError):
                    pass
        try:
            s.close()
        except OSError:
            pass
