"""WAV chunks, PCM and IMA ADPCM clips for the voice tools (CPython only).

ADPCM is decoded by the firmware's own decoder (firmware/goclockfw/audio/adpcm.py), so
the listening test hears what the clock will play.
"""

import struct

from goclockfw.audio import adpcm


def chunks(data):
    """{chunk id: body} of a RIFF/WAVE file's bytes (the first of each id)."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise ValueError("not a RIFF/WAVE file")
    out = {}
    pos = 12
    while pos + 8 <= len(data):
        ident, size = struct.unpack_from("<4sI", data, pos)
        out.setdefault(ident, data[pos + 8 : pos + 8 + size])
        pos += 8 + size + (size & 1)
    return out


def adpcm_info(path):
    """(rate, block_align, samples_per_block, samples) of an IMA ADPCM WAV file."""
    with open(path, "rb") as f:
        c = chunks(f.read())
    rate, align, per_block = adpcm.parse_fmt(c[b"fmt "])
    return rate, align, per_block, struct.unpack("<I", c[b"fact"][:4])[0]


def read_pcm16(path):
    """(rate, 16-bit little-endian mono samples as bytes) of a PCM or IMA ADPCM clip.

    ADPCM clips end at their fact chunk's sample count (a player stops there too)."""
    with open(path, "rb") as f:
        c = chunks(f.read())
    fmt = c[b"fmt "]
    tag, channels, rate = struct.unpack_from("<HHI", fmt)
    bits = struct.unpack_from("<H", fmt, 14)[0]
    data = c[b"data"]
    if channels != 1:
        raise ValueError("%s: not mono" % path)
    if tag == 1 and bits == 16:
        return rate, bytes(data[: len(data) & ~1])
    if tag == 1 and bits == 8:
        return rate, b"".join(struct.pack("<h", (b - 128) << 8) for b in data)
    if tag == adpcm.FORMAT_TAG:
        rate, align, per_block = adpcm.parse_fmt(fmt)
        total = struct.unpack("<I", c[b"fact"][:4])[0] if b"fact" in c else None
        return rate, decode_adpcm(data, align, per_block, total)
    raise ValueError("%s: format tag %d, %d bits: not supported" % (path, tag, bits))


def decode_adpcm(data, align, per_block, total=None):
    """16-bit samples (bytes) of ADPCM `data`, block by block, cut at `total` samples."""
    buf = bytearray(2 * per_block)
    out = bytearray()
    for pos in range(0, len(data), align):
        block = data[pos : pos + align]
        n = adpcm.decode_block(block, len(block), buf)
        out += buf[: 2 * n]
    if total is not None:
        out = out[: 2 * total]
    return bytes(out)
