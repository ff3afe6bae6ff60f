"""One voice clip as the host sees it: what its header says, and a PCM copy to listen to.

The header is read by the firmware's own parser (goclockfw/audio/wavhead.py), so
`goclock voice check` passes exactly the clips the clock's players open: PCM (8- or
16-bit) or IMA ADPCM (256- or 512-byte blocks, with a `fact` chunk). Python's `wave`
module cannot open ADPCM files, hence a reader of our own.

pcm_copy() decodes an ADPCM clip with the firmware's decoder (plain Python on the host)
into a 16-bit PCM WAV, for the PC's audio players: aplay refuses ADPCM.
"""

import io
import os
import wave
import zlib

from goclockfw.audio import adpcm, wavhead

ENCODINGS = {wavhead.ADPCM: "ima-adpcm"}  # bits -> encoding; any other is "pcm"


class ClipError(ValueError):
    """A clip the clock cannot play; the message says why."""


class Clip:
    """What the header of one clip says, and the file's checksum."""

    def __init__(self, path):
        self.path = path
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as exc:
            raise ClipError("cannot read: %s" % exc.strerror) from None
        stream = io.BytesIO(data)
        try:
            bits, rate, frames, align = wavhead.read_header(stream)
        except ValueError as exc:
            raise ClipError(str(exc)) from None
        self.channels = 1  # read_header takes mono clips only
        self.bits = bits
        self.encoding = ENCODINGS.get(bits, "pcm")
        self.sample_rate = rate
        self.sample_width = bits // 8 if self.encoding == "pcm" else None
        self.block_align = align  # 0 for PCM
        self.samples_per_block = adpcm.samples_per_block(align) if align else 0
        self.frames = frames
        self.data_offset = stream.tell()
        held = _samples_held(data, self.data_offset, bits, align)
        if held < frames:
            raise ClipError("cut short: %d samples said, the file holds %d" % (frames, held))
        self.size = len(data)
        self.crc32 = "%08x" % zlib.crc32(data)
        self.duration_ms = (frames * 1000 + rate // 2) // rate

    def format_key(self):
        """Clips of one pack must agree on this (one I2S rate, one decoding)."""
        return (self.encoding, self.sample_rate, self.bits, self.block_align)

    def describe(self):
        if self.encoding == "pcm":
            return "%d Hz %d-bit" % (self.sample_rate, self.bits)
        return "%d Hz IMA ADPCM in %d-byte blocks" % (self.sample_rate, self.block_align)


def _samples_held(data, start, bits, align):
    """Samples the bytes from `start` to the end of the file can hold."""
    n = len(data) - start
    if bits != wavhead.ADPCM:
        return n // (bits // 8)
    full, rest = divmod(n, align)
    return full * adpcm.samples_per_block(align) + adpcm.block_samples(rest)


def decode(clip):
    """The 16-bit little-endian samples of a checked IMA ADPCM Clip, cut at its length."""
    out = bytearray()
    block = bytearray(clip.block_align)
    buf = bytearray(2 * clip.samples_per_block)
    with open(clip.path, "rb") as f:
        f.seek(clip.data_offset)
        while len(out) < 2 * clip.frames:
            n = f.readinto(block)
            got = adpcm.decode_block(block, n, buf)
            if got == 0:
                break
            out += buf[: 2 * got]
    return bytes(out[: 2 * clip.frames])


def pcm_copy(path, folder):
    """A path the PC's audio players can play: `path` itself for PCM, else a 16-bit PCM
    copy in `folder` (made once per clip content). ClipError when it is no clip."""
    clip = Clip(path)
    if clip.encoding == "pcm":
        return path
    out = os.path.join(folder, "%s.wav" % clip.crc32)
    if not os.path.exists(out):
        tmp = out + ".part"
        with wave.open(tmp, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(clip.sample_rate)
            w.writeframes(decode(clip))
        os.replace(tmp, out)
    return out
