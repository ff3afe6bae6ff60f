"""Copying a game log from the clock, chunk by chunk, resumable.

Bytes go to `game-NNNNN.log.part` as they arrive (flushed each chunk), and the file is renamed
to `game-NNNNN.log` once the clock says `eof`. A pull cut by an unplugged cable leaves the
`.part`; the next pull asks the clock for the rest from that offset (`logs.get` takes an
offset). Logs are append-only, so a finished file of a game that went on is continued the
same way.
"""

import binascii
import json
import os

from goclockfw.storage import logline

from ..errors import DeviceTimeout, Interrupted, ProtocolError, TransportError

CHUNK = 512  # the most `logs.get` gives at once (docs/protocol.md)


def log_path(out_dir, game):
    return os.path.join(out_dir, "game-%05d.log" % game)


def fetch(client, game, offset):
    """One `logs.get` reply, checked, with its data decoded."""
    reply = client.request("logs.get", game=game, offset=offset, length=CHUNK)
    try:
        data = binascii.a2b_base64(reply.get("data") or "")
        size = int(reply["size"])
    except (binascii.Error, KeyError, TypeError, ValueError):
        raise ProtocolError(
            "the clock sent an unreadable chunk of game %d at byte %d" % (game, offset)
        ) from None
    if reply.get("offset", offset) != offset:
        raise ProtocolError(
            "asked for byte %d of game %d, got byte %s" % (offset, game, reply.get("offset"))
        )
    if not data and not reply.get("eof") and offset < size:
        raise ProtocolError("the clock sent an empty chunk of game %d at byte %d" % (game, offset))
    return data, size, bool(reply.get("eof")) or offset + len(data) >= size


def pull(client, game, out_dir, progress=None):
    """Copy game `game` into `out_dir`; returns what was done. `progress(done, total)`.

    Ctrl-C keeps what arrived in the `.part` and says so (Interrupted, exit status 130)."""
    os.makedirs(out_dir, exist_ok=True)
    dest = log_path(out_dir, game)
    part = dest + ".part"
    try:
        return _pull(client, game, dest, part, progress)
    except KeyboardInterrupt:
        if not os.path.exists(part):
            raise Interrupted("interrupted before any of game %d arrived" % game) from None
        raise Interrupted(
            "interrupted: the %d bytes of game %d pulled so far are kept in %s: run the same "
            "command again to resume" % (os.path.getsize(part), game, part)
        ) from None


def how_text(res):
    """What a pull did, beside its file: '' for a whole new copy."""
    if res["resumed_from"] and not res["fetched"]:
        return " (already complete: nothing new since the last pull)"
    if res["resumed_from"]:
        return " (resumed at byte %d: %d new)" % (res["resumed_from"], res["fetched"])
    return ""


def _pull(client, game, dest, part, progress):
    if not os.path.exists(part) and os.path.exists(dest):
        os.replace(dest, part)  # continue a finished copy of a game that went on
    offset = os.path.getsize(part) if os.path.exists(part) else 0
    data, size, eof = fetch(client, game, offset)
    if offset > size:
        # Longer than the clock's log: not a copy of it (a wiped clock). Start over.
        offset = 0
        data, size, eof = fetch(client, game, 0)
        os.remove(part)
    resumed = offset
    with open(part, "ab") as f:
        try:
            while True:
                f.write(data)
                f.flush()
                offset += len(data)
                if progress:
                    progress(offset, size)
                if eof:
                    break
                data, size, eof = fetch(client, game, offset)
        except (TransportError, DeviceTimeout) as exc:
            raise TransportError(
                "%s after %d of %d bytes of game %d; what arrived is kept in %s: run the same "
                "command again to resume" % (exc, offset, size, game, part)
            ) from None
    os.replace(part, dest)
    return {
        "game": game,
        "path": dest,
        "size": offset,
        "resumed_from": resumed,
        "fetched": offset - resumed,
    }


def read_all(client, game):
    """The whole log of `game` in memory (for export/report straight from the clock)."""
    chunks = []
    offset = 0
    while True:
        data, _, eof = fetch(client, game, offset)
        chunks.append(data)
        offset += len(data)
        if eof:
            return b"".join(chunks)


TAIL_MAX = 16 * CHUNK  # how far back `tail` looks for the last move


def tail(client, game, size):
    """The end of a game's log on the clock, read backwards a chunk at a time until it
    holds the last press (or the whole log, or TAIL_MAX bytes): enough to say how many
    moves the game had and how it ended, without pulling all of it. (data, from_offset)."""
    offset = size
    chunks = []
    while offset > 0 and size - offset < TAIL_MAX:
        start = max(0, offset - CHUNK)
        data, _, _ = fetch(client, game, start)
        chunks.insert(0, data[: offset - start])
        offset = start
        if b'"event":"press"' in b"".join(chunks).split(b"\n", 1)[-1]:
            break
    return b"".join(chunks), offset


def _records_in(data, offset):
    """The records (dicts) in a stretch of a log read from `offset`, unverified (the first
    line may be cut unless the stretch starts the log)."""
    lines = data.split(b"\n")
    out = []
    for line in lines if offset == 0 else lines[1:]:
        line = logline.after_marks(line)
        if not line or logline.claimed(line) is None:
            continue
        try:
            rec = json.loads(line[:-16] + b"}")
        except (ValueError, UnicodeError):
            continue
        if isinstance(rec, dict):
            out.append(rec)
    return out


RESULT_LOOK = 2 * CHUNK  # how far back `listing` looks for the result that counts
HEAD_MAX = 4 * CHUNK  # how far `listing` reads for the first record (names: 64 characters)


def listing(client, game, size):
    """What `logs list` says of a game beside its size: (its "game" record's details, the
    last result record or None), read from the log's first line and its last RESULT_LOOK
    bytes (a result further back, in a game that went on long after a ruling, is not
    seen: `logs report` reads it all). Unverified: for recognising the game."""
    if not size:
        return {}, None
    data = b""
    while len(data) < min(size, HEAD_MAX) and b"\n" not in data:  # the first line, whole
        part, _, eof = fetch(client, game, len(data))
        data += part
        if eof or not part:
            break
    first = data.split(b"\n", 1)[0] if b"\n" in data else b""
    head = next((r for r in _records_in(first, 0) if r.get("event") == "game"), {})
    result = None
    offset = size
    chunks = []
    while offset > 0 and size - offset < RESULT_LOOK and result is None:
        start = max(0, offset - CHUNK)
        reuse = start == 0 and len(data) >= offset  # the first chunk holds it already
        part = data if reuse else fetch(client, game, start)[0]
        chunks.insert(0, part[: offset - start])
        offset = start
        found = [r for r in _records_in(b"".join(chunks), offset) if r.get("event") == "result"]
        result = found[-1] if found else None
    return head, result


def tail_summary(data, offset):
    """(moves, how it ended in words) from a log's tail read from `offset` (its records
    read, not verified: for a person to recognise the game, not as proof)."""
    moves = None
    outcome = None
    for rec in _records_in(data, offset):
        kind = rec.get("event")
        side = str(rec.get("side", "?")).capitalize()
        if kind == "press" and isinstance(rec.get("move"), int):
            moves = rec["move"]
        elif kind == "timeout":
            outcome = "%s lost on time" % side
        elif kind == "forfeit":
            outcome = "%s forfeited (late)" % side
        elif kind == "ruling":
            outcome = None  # the timeout was ruled a pass: the game went on
        elif kind == "end" and outcome is None:
            outcome = "ended: %s" % rec.get("reason", "?")
    return moves, outcome
