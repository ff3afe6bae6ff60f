"""Text chunks in a PNG: the hash of what an image was made from, and its licence.

A committed PNG is stamped with the SHA-256 of its source (the SVG, the case model and
its parameters), so a test can tell a stale image without rendering it again.
"""

import struct
import zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunks(data):
    if not data.startswith(SIGNATURE):
        raise ValueError("not a PNG")
    pos = len(SIGNATURE)
    while pos + 8 <= len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if len(body) != length:
            raise ValueError("truncated PNG chunk %r" % kind)
        yield kind, body
        pos += 12 + length


def _chunk(kind, body):
    crc = zlib.crc32(kind + body) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)


def read_text(data):
    """The tEXt chunks of PNG `data` as a dict (latin-1 keys and values)."""
    out = {}
    for kind, body in _chunks(data):
        if kind == b"tEXt" and b"\0" in body:
            key, value = body.split(b"\0", 1)
            out[key.decode("latin-1")] = value.decode("latin-1")
    return out


def with_text(data, texts):
    """PNG `data` with tEXt chunks `texts` (replacing chunks of the same keys)."""
    keys = {k.encode("latin-1") for k in texts}
    out = [SIGNATURE]
    for kind, body in _chunks(data):
        if kind == b"tEXt" and body.split(b"\0", 1)[0] in keys:
            continue
        if kind == b"IEND":
            for k, v in sorted(texts.items()):
                out.append(_chunk(b"tEXt", k.encode("latin-1") + b"\0" + v.encode("latin-1")))
        out.append(_chunk(kind, body))
    return b"".join(out)


def size(data):
    """(width, height) of PNG `data`."""
    for kind, body in _chunks(data):
        if kind == b"IHDR":
            return struct.unpack(">II", body[:8])
    raise ValueError("PNG without IHDR")
