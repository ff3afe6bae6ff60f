"""The header of a voice clip: which WAV files the clock plays, and how long they last.

One parser for the players (audio/player_i2s.py, the desktop speaker in desktop/parts.py)
and for `goclock voice check` (host/goclock/voice.py), so that the check passes exactly
the clips a player opens. A clip is a RIFF/WAVE file holding one of

- plain PCM (format tag 1), mono, 8-bit unsigned or 16-bit signed: a recorded pack;
- IMA ADPCM (format tag 0x11), mono, 4 bits a sample, in blocks of 256 or 512 bytes (what
  sox writes for 8-16 kHz, and what a player's buffers hold), with a `fact` chunk: the
  clip's length in samples. The last block is padded by the encoder, so the length cannot
  be had from the data's size; a clip without `fact` is refused rather than guessed at.

Anything else raises ValueError with a message a person can act on. The sizes in a
damaged header are never trusted for an allocation: a chunk is skipped by seeking, and
only the fmt chunk (at most FMT_MAX bytes) is read.
"""

import struct

from goclockfw.audio import adpcm

ADPCM = 4  # the "bits" read_header gives for IMA ADPCM (PCM gives 8 or 16)
ADPCM_BLOCKS = (256, 512)  # block sizes a player's buffers are made for
FMT_MAX = 64  # a fmt chunk is 16-20 bytes (PCM) or 20 (IMA ADPCM); larger is junk


def read_header(f):
    """(bits, rate, frames, block_align) of a clip; leaves `f` at its first sample.

    bits: 8 or 16 for PCM (block_align 0), ADPCM (4) for IMA ADPCM. frames: the clip's
    length in samples (for ADPCM, the `fact` chunk's count)."""
    head = f.read(12)
    if len(head) < 12 or head[0:4] != b"RIFF" or head[8:12] != b"WAVE":
        raise ValueError("not a WAV file")
    fmt = None
    fact = -1
    while True:
        chunk = f.read(8)
        if len(chunk) < 8:
            raise ValueError("no data chunk" if fmt else "no fmt chunk")
        ident = chunk[0:4]
        size = struct.unpack("<I", chunk[4:8])[0]
        padded = size + (size & 1)
        if ident == b"data":
            if fmt is None:
                raise ValueError("data before fmt")
            return _result(fmt, fact, size)
        if ident == b"fmt ":
            if size > FMT_MAX:
                raise ValueError("fmt chunk of %d bytes" % size)
            fmt = _fmt(f.read(padded))
        elif ident == b"fact" and size >= 4:
            body = f.read(4)
            if len(body) < 4:
                raise ValueError("no data chunk")  # the file ends inside its fact chunk
            fact = struct.unpack("<I", body)[0]
            f.seek(padded - 4, 1)
        else:
            f.seek(padded, 1)  # LIST and other chunks: skipped, never read


def _fmt(body):
    if len(body) < 16:
        raise ValueError("short fmt chunk")
    tag, channels, rate = struct.unpack("<HHI", body[0:8])
    bits = struct.unpack("<H", body[14:16])[0]
    if tag == adpcm.FORMAT_TAG:
        rate, align, _ = adpcm.parse_fmt(body)  # mono, 4 bits, samples per block
        if align not in ADPCM_BLOCKS:
            raise ValueError("IMA ADPCM blocks of %d bytes: must be 256 or 512" % align)
        return ADPCM, rate, align
    if tag != 1:
        raise ValueError("format tag %d: must be PCM (1) or IMA ADPCM (17)" % tag)
    if channels != 1:
        raise ValueError("%d channels: must be mono" % channels)
    if bits not in (8, 16):
        raise ValueError("%d-bit PCM: must be 8- or 16-bit" % bits)
    return bits, rate, 0


def _result(fmt, fact, size):
    bits, rate, align = fmt
    if rate <= 0:
        raise ValueError("a sample rate of %d Hz" % rate)
    if bits != ADPCM:
        return bits, rate, size // (bits // 8), 0
    if fact < 0:
        raise ValueError("IMA ADPCM without a fact chunk (the clip's length)")
    room = (size // align) * adpcm.samples_per_block(align) + adpcm.block_samples(size % align)
    if fact > room:
        raise ValueError("fact says %d samples, the data holds %d" % (fact, room))
    return bits, rate, fact, align
