"""Copying a game log from the clock, chunk by chunk, resumable.

Bytes go to `game-NNNNN.log.part` as they arrive (flushed each chunk), and the file is renamed
to `game-NNNNN.log` once the clock says `eof`. A pull cut by an unplugged cable leaves the
`.part`; the next pull asks the clock for the rest from that offset (`logs.get` takes an
offset). Logs are append-only, so a finished file of a game that went on is continued the
same way.
"""

import binascii
import os

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
