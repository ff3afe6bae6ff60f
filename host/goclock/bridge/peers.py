"""The bridge's peers: the programs it serves, each with a bounded queue of its own.

A peer's lines wait in its own queue and a task of its own writes them, so a peer that
reads slowly delays nobody else: not the clock's line, not the other peers. The queue is
bounded in bytes; a peer whose queue passes the bound has stopped reading, and it is
dropped with a last line saying so (a `log` event, `"notice": "bridge"`, `"dropped"`),
never buffered without end. What the operating system buffers for a socket comes on top,
and is bounded by it.
"""

import asyncio
import collections
import contextlib
import json
import logging

from goclockfw.protocol.lineread import LineReader

from ..link.client import MAX_REQUEST

log = logging.getLogger("goclock.bridge")

QUEUE_BYTES = 256 * 1024  # a peer this far behind has stopped reading
DROP_GRACE_S = 5.0  # time a dropped peer gets to read its last line before the socket closes


class Peer:
    """What the hub needs of a peer: `deliver(text)` (one line, no newline), `watching`."""

    kind = "peer"

    def __init__(self, hub, name, queue_bytes=QUEUE_BYTES):
        self.hub = hub
        self.name = name
        self.watching = False
        self.closed = False
        self.waiting = 0  # its requests with the clock (the hub bounds them)
        self.queue_bytes = queue_bytes
        self.reader = LineReader(MAX_REQUEST)
        self._queue = collections.deque()
        self._queued = 0
        self._wake = asyncio.Event()
        self._sender = None

    def start(self):
        self.hub.join(self)
        self._sender = asyncio.get_running_loop().create_task(self._send_loop())

    def feed(self, data):
        """Bytes from the peer: every whole line goes to the hub."""
        for line in self.reader.feed(data):
            if self.closed:
                return
            self.hub.submit(self, line)

    def deliver(self, text):
        if self.closed:
            return
        self._queue.append(text)
        self._queued += len(text) + 1
        if self._queued > self.queue_bytes:
            self.drop(
                "you stopped reading: %d bytes were waiting for you (the bound is %d)"
                % (self._queued, self.queue_bytes)
            )
            return
        self._wake.set()

    async def _send_loop(self):
        try:
            while not self.closed:
                await self._wake.wait()
                self._wake.clear()
                while self._queue and not self.closed:
                    text = self._queue.popleft()
                    self._queued -= len(text) + 1
                    await self.write(text)
        except (ConnectionError, OSError):
            self.close()
        except asyncio.CancelledError:
            pass
        except Exception as exc:  # a peer's failure must not reach the hub
            log.warning("%s: %s", self.name, exc)
            self.close()

    def drop(self, why):
        """Stop serving a peer that does not keep up; it is told why, if it reads again."""
        if self.closed:
            return
        log.warning("dropped %s: %s", self.name, why)
        self._end()
        msg = {"event": "log", "notice": "bridge", "line": "dropped", "message": why}
        self.goodbye(json.dumps(msg, ensure_ascii=False, separators=(",", ":")))

    def close(self):
        """The peer went away (or the bridge stops)."""
        if self.closed:
            return
        self._end()
        self.goodbye(None)

    def _end(self):
        self.closed = True
        self._queue.clear()
        self._queued = 0
        if self._sender is not None:
            self._sender.cancel()
        self.hub.leave(self)

    # ----- what a kind of peer provides ---------------------------------------------------

    async def write(self, text):
        raise NotImplementedError

    def goodbye(self, last_line):
        """Close the connection, after `last_line` if there is one."""


class StreamPeer(Peer):
    """A program on the bridge's Unix socket (the host tool): JSON lines both ways."""

    kind = "socket"
    HIGH_WATER = 16 * 1024  # what asyncio keeps beyond our queue before drain() waits

    def __init__(self, hub, name, reader, writer, queue_bytes=QUEUE_BYTES):
        super().__init__(hub, name, queue_bytes)
        self._reader = reader
        self._writer = writer
        writer.transport.set_write_buffer_limits(high=self.HIGH_WATER)

    async def serve(self):
        self.start()
        try:
            while not self.closed:
                data = await self._reader.read(65536)
                if not data:
                    break
                self.feed(data)
        except (ConnectionError, OSError):
            pass
        finally:
            self.close()

    async def write(self, text):
        self._writer.write(text.encode("utf-8") + b"\n")
        await self._writer.drain()

    def goodbye(self, last_line):
        transport = self._writer.transport
        if last_line is not None:
            with contextlib.suppress(Exception):
                transport.write(last_line.encode("utf-8") + b"\n")
            transport.close()  # sends what is buffered first
            asyncio.get_running_loop().call_later(DROP_GRACE_S, transport.abort)
        else:
            transport.close()


class InternalPeer(Peer):
    """A part of the bridge itself that watches (the hall publisher): lines to a callback."""

    kind = "internal"

    def __init__(self, hub, name, on_line, queue_bytes=4 * QUEUE_BYTES):
        super().__init__(hub, name, queue_bytes)
        self._on_line = on_line

    async def write(self, text):
        await self._on_line(text)

    def deliver(self, text):
        """Never dropped (the bridge would lose its hall): past the bound, the oldest
        lines go instead. The hall loses those events; the log is resent from the clock's
        journal, so no record is lost."""
        if self.closed:
            return
        self._queue.append(text)
        self._queued += len(text) + 1
        lost = 0
        while self._queued > self.queue_bytes and len(self._queue) > 1:
            self._queued -= len(self._queue.popleft()) + 1
            lost += 1
        if lost:
            log.warning("%s is behind: %d lines dropped", self.name, lost)
        self._wake.set()
