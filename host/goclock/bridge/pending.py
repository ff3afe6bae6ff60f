"""The requests the bridge has sent to the clock and not yet seen answered, in the order
sent. The clock answers in that order, so a reply settles its own request and every older
one still here is one the clock never answered (a line it could not read to its end, a
reset in between): those are given up. A reply with a null id (the clock's answer to a
line it could not read at all) answers the oldest; right after the line opens it answers
a half line a dead program left instead, and settles nothing (`stale`)."""

import collections
import random


def is_id(value):
    """A request id the bridge passes on: an int or a str (JSON's true is no id)."""
    return type(value) is int or isinstance(value, str)


class Entry:
    """A request sent to the clock, waiting for its reply."""

    __slots__ = ("peer", "bid", "cid", "has_id", "future", "watch_on", "sent")

    def __init__(self, peer, bid, cid=None, has_id=False, future=None, watch_on=None):
        self.peer = peer  # None for the hub's own requests
        self.bid = bid  # the id sent to the clock; None: the line went as it was
        self.cid = cid  # the peer's own id
        self.has_id = has_id
        self.future = future  # the hub's own requests: resolved with the reply
        self.watch_on = watch_on  # a peer's watch request: what that peer asked for
        self.sent = 0.0


class Pending:
    def __init__(self, now):
        self._now = now
        self._order = collections.deque()
        self._by_id = {}
        self._next_id = random.randrange(1, 1 << 30)  # a random start: no reuse across runs
        self.stale = False  # the line just opened: null-id replies are a dead program's

    def __len__(self):
        return len(self._order)

    def new_id(self):
        self._next_id = self._next_id + 1 if self._next_id < (1 << 30) else 1
        return self._next_id

    def add(self, entry):
        entry.sent = self._now()
        if entry.peer is not None:
            entry.peer.waiting += 1
        self._order.append(entry)
        if entry.bid is not None:
            self._by_id[entry.bid] = entry

    def answered_by(self, rid):
        """The request a reply with id `rid` answers; None for a reply nobody waits for
        (a late answer to a request of before this bridge's time, a stale null id)."""
        if rid is None:
            if self.stale or not self._order:
                return None
            return self._order[0]
        return self._by_id.get(rid) if is_id(rid) else None

    def settle(self, entry):
        """Takes `entry` out, and the older requests with it: returns those (unanswered)."""
        self.stale = False
        older = []
        while self._order and self._order[0] is not entry:
            older.append(self._take())
        if self._order:
            self._take()
        return older

    def overdue(self, timeout_s):
        """Takes out the requests sent more than `timeout_s` ago and returns them."""
        now = self._now()
        late = []
        while self._order and now - self._order[0].sent > timeout_s:
            late.append(self._take())
        return late

    def take_all(self):
        """Takes every request out (the line dropped) and returns them, oldest first."""
        return [self._take() for _ in range(len(self._order))]

    def _take(self):
        entry = self._order.popleft()
        self._by_id.pop(entry.bid, None)
        if entry.peer is not None:
            entry.peer.waiting -= 1
        return entry
