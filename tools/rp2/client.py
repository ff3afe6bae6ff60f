"""The goclock serial protocol (docs/protocol.md) over an emulated Pico's USB line.

`Session.request` sends one request line and runs the chip until the reply with its id
comes back; event lines (after `watch`) are kept in `events`, each with the emulated
time it arrived; anything that is not a JSON line (a traceback, the REPL) in `noise`.
Every wait is in emulated seconds, so a slow machine only makes a test slower.
"""

import json


class DeviceError(AssertionError):
    """A reply that is not what the test needs: no reply in time, or ok=false."""


class Session:
    def __init__(self, pico):
        self.pico = pico
        self.events = []  # (emulated s, event dict)
        self.replies = {}  # id -> reply dict, until taken
        self.noise = []  # lines that are not protocol JSON
        self._partial = b""
        self._next_id = 1

    def _pump(self):
        data = self.pico.output()
        if not data:
            return
        data = self._partial + data
        *lines, self._partial = data.split(b"\n")
        now = self.pico.now_s
        for raw in lines:
            line = raw.strip(b"\r")
            if not line:
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                self.noise.append(line.decode(errors="replace"))
                continue
            if isinstance(obj, dict) and "event" in obj:
                self.events.append((now, obj))
            elif isinstance(obj, dict) and "id" in obj:
                self.replies[obj["id"]] = obj
            else:
                self.noise.append(line.decode(errors="replace"))

    def send(self, cmd, **args):
        """Write one request; returns its id (the reply is taken by `reply`)."""
        rid = self._next_id
        self._next_id += 1
        req = {"id": rid, "cmd": cmd}
        req.update(args)
        self.pico.write(json.dumps(req).encode() + b"\n")
        return rid

    def reply(self, rid, timeout=10.0):
        def done():
            self._pump()
            return rid in self.replies

        if not self.pico.run_until(done, timeout):
            raise DeviceError(
                "no reply to request %d within %.1f emulated s (noise: %s)"
                % (rid, timeout, self.noise[-5:])
            )
        return self.replies.pop(rid)

    def request(self, cmd, timeout=10.0, ok=True, **args):
        """Send a request and return its reply; with ok=True a refusal raises DeviceError."""
        reply = self.reply(self.send(cmd, **args), timeout)
        if ok and not reply.get("ok"):
            raise DeviceError("%s refused: %s" % (cmd, reply.get("error")))
        return reply

    def run_for(self, seconds):
        self.pico.run_for(seconds)
        self._pump()

    def wait_event(self, match, timeout):
        """Run until an event (arrived after this call) satisfies `match`; returns it."""
        start = len(self.events)

        def done():
            self._pump()
            return any(match(ev) for _t, ev in self.events[start:])

        if not self.pico.run_until(done, timeout):
            raise DeviceError("no such event within %.1f emulated s" % timeout)
        for _t, ev in self.events[start:]:
            if match(ev):
                return ev
        raise AssertionError("unreachable")

    def wait_ready(self, timeout=60.0):
        """Boot: the first `info` reply (sent at once; the chip reads it when main.py runs)."""
        return self.request("info", timeout=timeout)

    def calls(self, since=0.0):
        """[(emulated s, side, phrase)] of the call events seen since `since`."""
        return [
            (t, ev.get("side"), ev["phrase"])
            for t, ev in self.events
            if t >= since and ev.get("event") == "call"
        ]
