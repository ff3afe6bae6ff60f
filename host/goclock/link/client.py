"""The protocol client: requests with ids, replies matched to them, event lines kept aside.

See docs/protocol.md. A request is one JSON line of at most 1024 bytes; the reply carries its
id back. Lines with `"event"` arrive in between while `watch` is on; they are queued and read
with `next_event()`. A refused request (`"ok": false`) becomes a `DeviceError`, a device that
answers lines that are not JSON becomes a `ProtocolError`, silence a `DeviceTimeout`.

A connection starts with `open_line()`: a bare newline, which ends whatever half line an
earlier client left when it died mid-request, so that our first request is read whole. The
clock answers that half line (with a null id, as a line it could not read) before it answers
us, so until our first reply arrives, null-id errors are stale and skipped; so are replies
with an id we did not send. Ids start at a random number per connection, so a late reply to
a dead client's request is not taken for ours.
"""

import collections
import json
import random

from ..errors import DeviceError, DeviceTimeout, ProtocolError, UsageError

PROTOCOL = 3  # firmware/goclockfw/protocol/commands.py PROTOCOL_VERSION
MAX_REQUEST = 1024
DEFAULT_TIMEOUT = 3.0


class Client:
    """Talks the goclock protocol over a transport with `write_line` and `read_line`."""

    def __init__(self, transport, timeout=DEFAULT_TIMEOUT, first_id=None):
        self.transport = transport
        self.timeout = timeout
        self.events = collections.deque()
        self.info = None  # the `info` reply, once check_firmware() has run
        self._next_id = random.randrange(1, 1 << 30) if first_id is None else first_id
        self._stale_window = False  # between open_line() and our first reply

    def open_line(self):
        """Start the connection: a newline ends any half line a dead client left behind."""
        self.transport.write_line("")
        self._stale_window = True

    @property
    def name(self):
        return getattr(self.transport, "url", "the clock")

    def request(self, cmd, timeout=None, **args):
        """Send `cmd` with `args`; return the reply's fields (without `id` and `ok`)."""
        req_id = self._next_id
        self._next_id += 1
        if cmd == "config.set":
            self._check_voice(args.get("config"))
        msg = dict(args)
        msg["id"] = req_id
        msg["cmd"] = cmd
        line = json.dumps(msg, ensure_ascii=False, separators=(",", ":"))
        size = len(line.encode("utf-8")) + 1
        if size > MAX_REQUEST:
            raise UsageError(
                "the %s request is %d bytes, over the clock's limit of %d: send less at once"
                % (cmd, size, MAX_REQUEST)
            )
        self.transport.write_line(line)
        return self._await_reply(cmd, req_id, self.timeout if timeout is None else timeout)

    def _check_voice(self, config):
        """Refuse a voice pack the clock does not have (its `info` lists them), before the
        clock stores a config that would leave it silent."""
        voices = (self.info or {}).get("voices")
        if not isinstance(config, dict) or "voice" not in config or not isinstance(voices, list):
            return  # nothing to check, or firmware that does not say what it has
        if config["voice"] not in voices:
            raise UsageError(
                "the clock has no voice pack %r (it has: %s): put it there first with "
                "goclock voice push DIR" % (config["voice"], ", ".join(voices) or "none")
            )

    def _await_reply(self, cmd, req_id, timeout):
        garbage = None
        while True:
            try:
                msg = self._read_message(timeout)
            except DeviceTimeout:
                if garbage is not None:
                    raise ProtocolError(
                        "%s does not speak the goclock protocol (it answered %r); is it a goclock "
                        "running the goclock firmware?" % (self.name, garbage[:60])
                    ) from None
                raise DeviceTimeout(
                    "%s did not answer %s within %.1f s" % (self.name, cmd, timeout)
                ) from None
            if not isinstance(msg, dict):
                # Boot banners and REPL prompts can precede the first reply: remember the
                # first one, and call it garbage only if no real reply follows.
                if garbage is None:
                    garbage = msg if isinstance(msg, str) else json.dumps(msg)
                continue
            if "event" in msg:
                self.events.append(msg)
                continue
            if "id" not in msg or "ok" not in msg:
                garbage = garbage or json.dumps(msg)[:60]
                continue
            if msg["id"] is None and msg["ok"] is False:
                if self._stale_window:
                    continue  # the answer to a half line our opening newline ended
                # The device could not read our request at all (see the protocol).
                raise DeviceError(cmd, msg.get("error", "unreadable request"))
            if msg["id"] != req_id:
                continue  # a late reply to an earlier request, or to another client's
            self._stale_window = False
            if msg["ok"] is not True:
                raise DeviceError(cmd, str(msg.get("error") or "no reason given"))
            reply = dict(msg)
            del reply["id"], reply["ok"]
            return reply

    def _read_message(self, timeout):
        """One line, decoded: a dict for a JSON object, the raw text otherwise."""
        line = self.transport.read_line(timeout).strip()
        if not line:
            return ""
        try:
            return json.loads(line)
        except ValueError:
            return line

    def next_event(self, timeout):
        """The next event line (a dict), or None when none came within `timeout` seconds."""
        if self.events:
            return self.events.popleft()
        try:
            msg = self._read_message(timeout)
        except DeviceTimeout:
            return None
        if isinstance(msg, dict) and "event" in msg:
            return msg
        return None  # stray replies and noise are not events

    def check_firmware(self):
        """Ask for `info` and refuse a device that speaks another protocol version."""
        info = self.request("info")
        proto = info.get("protocol")
        if proto != PROTOCOL:
            if isinstance(proto, int) and proto > PROTOCOL:
                fix = "update this host tool (git pull, then pip install -e . in the repository)"
            else:
                fix = "update the clock's firmware (goclock deploy --board ...)"
            raise ProtocolError(
                "%s runs goclock firmware %s speaking protocol %r, but this goclock speaks "
                "protocol %d: %s" % (self.name, info.get("version", "?"), proto, PROTOCOL, fix)
            )
        self.info = info
        return info
