"""Clips made in the tests (CPython): PCM through `wave`, IMA ADPCM and broken headers by hand,
and a fake I2S that takes one buffer at a time, as machine.I2S does in non-blocking mode."""

import random
import struct
import wave

from goclockfw.audio import adpcm


def pcm_wav(path, rate=8000, width=1, channels=1, frames=b"\x80" * 800):
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(frames)
    return str(path)


def adpcm_blocks(count, align, seed, last=None):
    """`count` blocks of random codes (any bytes are a valid IMA ADPCM stream) behind
    headers with random first samples and in-range step indexes; the last one `last`
    bytes long when given."""
    rnd = random.Random(seed)
    out = bytearray()
    for i in range(count):
        size = last if (last is not None and i == count - 1) else align
        head = struct.pack("<hBB", rnd.randrange(-20000, 20000), rnd.randrange(89), 0)
        out += head + bytes(rnd.randrange(256) for _ in range(size - 4))
    return bytes(out)


def adpcm_wav_bytes(
    data,
    samples,
    align=256,
    rate=16000,
    tag=0x11,
    channels=1,
    bits=4,
    per_block=None,
    fact=True,
    fmt_size=None,
):
    """A RIFF/WAVE file of IMA ADPCM `data`; every header field can be set wrong."""
    if per_block is None:
        per_block = adpcm.samples_per_block(align)
    fmt = struct.pack("<HHIIHHHH", tag, channels, rate, rate // 2, align, bits, 2, per_block)
    size = len(fmt) if fmt_size is None else fmt_size
    body = b"WAVE" + b"fmt " + struct.pack("<I", size) + fmt
    if fact:
        body += b"fact" + struct.pack("<II", 4, samples)
    body += b"data" + struct.pack("<I", len(data)) + data
    if len(data) & 1:
        body += b"\0"
    return b"RIFF" + struct.pack("<I", len(body)) + body


def decoded(data, align, samples):
    """The 16-bit samples (ints) of ADPCM `data`, block by block (the decoder checked
    against sox in test_voice_adpcm.py), cut at `samples`."""
    out = []
    buf = bytearray(2 * adpcm.samples_per_block(align))
    for pos in range(0, len(data), align):
        block = data[pos : pos + align]
        n = adpcm.decode_block(block, len(block), buf)
        out += struct.unpack("<%dh" % n, bytes(buf[: 2 * n]))
    return out[:samples]


def samples(data):
    return list(struct.unpack("<%dh" % (len(data) // 2), bytes(data)))


class FakeI2S:
    """Takes one buffer at a time, like machine.I2S in non-blocking mode."""

    def __init__(self):
        self.out = bytearray()
        self.sizes = []  # bytes of each write
        self.handler = None
        self.pending = False
        self._held = None  # the buffer written, as machine.I2S holds it: a bare pointer
        self._held_bytes = b""  # ... and what it held when written

    def irq(self, handler):
        self.handler = handler

    def write(self, buf):
        assert not self.pending, "a second write before the first was taken"
        self.pending = True
        self.out.extend(buf)
        self.sizes.append(len(buf))
        self._held, self._held_bytes = buf, bytes(buf)

    def take(self):
        """The I2S has taken the pending buffer: its callback runs, then the loop's next
        pass polls the player (player_i2s: the poll sends the next buffer). The buffer must
        hold what it held when written: the real I2S copies it into its ring bit by bit
        until then."""
        assert bytes(self._held) == self._held_bytes, "a buffer written over in flight"
        self.pending = False
        self.handler(self)
        player = getattr(self.handler, "__self__", None)  # the bound _on_sent's player
        if player is not None and not self.pending:
            player.poll(0)

    def drain(self, limit=100000):
        while self.pending and limit:
            self.take()
            limit -= 1
        assert limit, "the player never stopped"

    @staticmethod
    def shift(buf, bits, shift):
        for i in range(0, len(buf), 2):
            v = int.from_bytes(buf[i : i + 2], "little", signed=True) >> -shift
            buf[i : i + 2] = v.to_bytes(2, "little", signed=True)
