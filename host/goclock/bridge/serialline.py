"""The clock's serial line, owned by the bridge: opened, read and written by threads of
its own, and opened again when it drops (the cable pulled and plugged in again).

pyserial blocks, and a USB write can block too, so neither runs on the bridge's event
loop: a reader thread hands each line to `on_line`, a writer thread sends what `send`
queued, and a supervisor reopens the port with a growing pause (0.2 s up to 2 s) while
it is gone. `on_up()` and `on_down(reason)` say when the line comes and goes. All three
callbacks are called from these threads: the hub posts them onto its loop.
"""

import queue
import threading

from ..errors import DeviceTimeout, GoclockError, ProtocolError
from ..link.transport import SerialTransport

RETRY_S = (0.2, 0.5, 1.0, 2.0)


class SerialLine:
    def __init__(self, port, on_line, on_up, on_down, opener=SerialTransport):
        self.port = port
        self.on_line = on_line
        self.on_up = on_up
        self.on_down = on_down
        self._opener = opener
        self._out = queue.Queue()
        self._stop = threading.Event()
        self._lost = threading.Event()  # the current transport has failed
        self._transport = None
        self._thread = None
        self.last_error = None

    def open_once(self):
        """Open the port now (raises its GoclockError), before the threads start: a
        bridge that cannot open its port at all says so and does not start."""
        self._transport = self._opener(self.port)

    def start(self):
        self._thread = threading.Thread(target=self._supervise, name="bridge-line", daemon=True)
        self._thread.start()

    def send(self, text):
        """Queue one line for the clock (its newline is added): text, or bytes as they are."""
        self._out.put(text)

    def stop(self):
        self._stop.set()
        self._out.put(None)
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._close()

    # ----- threads -----------------------------------------------------------------

    def _supervise(self):
        failures = 0
        while not self._stop.is_set():
            if self._transport is None:
                try:
                    self._transport = self._opener(self.port)
                except GoclockError as exc:
                    self.last_error = str(exc)
                    self._stop.wait(RETRY_S[min(failures, len(RETRY_S) - 1)])
                    failures += 1
                    continue
            failures = 0
            self._lost.clear()
            self._drain_queue()  # nothing queued for the old line goes to the new one
            self._transport.discard_input()
            reader = threading.Thread(target=self._read, name="bridge-read", daemon=True)
            reader.start()
            self.on_up()
            self._write_until_lost()
            reader.join(timeout=5)
            self._close()
            if not self._stop.is_set():
                self.on_down(self.last_error or "the line dropped")

    def _drain_queue(self):
        try:
            while True:
                if self._out.get_nowait() is None:
                    self._out.put(None)
                    return
        except queue.Empty:
            pass

    def _write_until_lost(self):
        while not self._stop.is_set() and not self._lost.is_set():
            try:
                text = self._out.get(timeout=0.5)
            except queue.Empty:
                continue
            if text is None or self._lost.is_set():
                return
            try:
                self._transport.write_line(text)
            except Exception as exc:  # the line is gone (or a bug): reopen it
                self._fail(exc)
                return

    def _read(self):
        transport = self._transport
        while not self._stop.is_set() and not self._lost.is_set():
            try:
                line = transport.read_line(0.5)
            except DeviceTimeout:
                continue
            except ProtocolError:
                continue  # an overlong line is dropped; the next one may be fine
            except Exception as exc:  # the line is gone (or a bug): reopen it
                self._fail(exc)
                return
            self.on_line(line)

    def _fail(self, exc):
        if not self._lost.is_set():
            self.last_error = str(exc)
            self._lost.set()
            self._out.put(None)  # wake the writer

    def _close(self):
        t, self._transport = self._transport, None
        if t is not None:
            t.close()
