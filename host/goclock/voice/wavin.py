"""Reading a recording for `goclock voice convert`: any common WAV file, as mono floats.

Taken: PCM of 8 (unsigned), 16, 24 or 32 bits, IEEE float of 32 or 64 bits (also inside
WAVE_FORMAT_EXTENSIBLE, as many recorders write 24-bit and multichannel files), and mono
IMA ADPCM (a clip of a pack, decoded by the firmware's decoder); any number of channels,
mixed down by averaging; any sample rate. Samples come out as floats where full scale is
1.0. Anything else raises WavError with one line saying what the file is and what to do.

Python's `wave` module reads 8/16/24/32-bit PCM only, hence a reader of our own; the
samples are unpacked with `array` (24-bit by widening to 32 first), fast enough for
minutes of audio.
"""

import array
import struct
import sys

from goclockfw.audio import adpcm

PCM, FLOAT, EXTENSIBLE = 1, 3, 0xFFFE
_CODECS = {  # format tags people meet, named in the error
    2: "Microsoft ADPCM",
    6: "A-law",
    7: "mu-law",
    0x11: "IMA ADPCM",
    0x31: "GSM 6.10",
    0x55: "MP3",
    0x50: "MPEG",
}
_ADVICE = "save it as PCM WAV (16- or 24-bit) and convert again"
_UNSIGNED_TO_SIGNED = bytes(b ^ 0x80 for b in range(256))  # 8-bit PCM is unsigned
CLIP_RUN = 3  # this many equal samples in a row at full scale: the recording clipped


class WavError(ValueError):
    """A recording that cannot be converted; the message says why, in one line."""


class Recording:
    """A WAV file read whole: `rate`, `channels`, `samples` (mono floats), `clipped` (the
    longest run of equal samples at full scale in any channel: CLIP_RUN or more is
    clipping)."""

    def __init__(self, rate, channels, samples, clipped, what):
        self.rate = rate
        self.channels = channels
        self.samples = samples
        self.clipped = clipped
        self.what = what  # "44100 Hz stereo 24-bit PCM", for messages

    @property
    def seconds(self):
        return len(self.samples) / self.rate


def _chunks(data):
    if len(data) < 12 or data[0:4] != b"RIFF" or data[8:12] != b"WAVE":
        kind = "an RF64/Wave64 file" if data[0:4] in (b"RF64", b"riff") else "not a WAV file"
        raise WavError(kind + ": " + _ADVICE)
    out = {}
    pos = 12
    while pos + 8 <= len(data):
        ident, size = struct.unpack_from("<4sI", data, pos)
        out.setdefault(ident, data[pos + 8 : pos + 8 + size])  # a cut data chunk: what is there
        pos += 8 + size + (size & 1)
    if b"fmt " not in out:
        raise WavError("no fmt chunk: a damaged WAV file")
    if b"data" not in out:
        raise WavError("no data chunk: a damaged WAV file")
    return out


def _format(fmt):
    if len(fmt) < 16:
        raise WavError("a short fmt chunk: a damaged WAV file")
    tag, channels, rate, _, align, bits = struct.unpack_from("<HHIIHH", fmt)
    if tag == EXTENSIBLE and len(fmt) >= 26:
        tag = struct.unpack_from("<H", fmt, 24)[0]  # the sub-format GUID's first two bytes
    if channels < 1 or rate < 1000 or rate > 768000:
        raise WavError("%d channels at %d Hz: a damaged WAV file" % (channels, rate))
    return tag, channels, rate, align, bits


def _unpack(data, code, width, scale):
    n = len(data) // width * width
    values = array.array(code)
    values.frombytes(data[:n])
    if sys.byteorder == "big":
        values.byteswap()
    return values, scale


def _pcm(data, bits, align, channels):
    width = align // channels if channels and align else (bits + 7) // 8
    if width == 1:
        values = array.array("b", data.translate(_UNSIGNED_TO_SIGNED))
        return values, 128
    if width == 2:
        return _unpack(data, "h", 2, 32768)
    if width == 3:
        # Each 3-byte sample into the top three bytes of a 32-bit one.
        n = len(data) // 3
        wide = bytearray(4 * n)
        wide[1::4] = data[0 : 3 * n : 3]
        wide[2::4] = data[1 : 3 * n : 3]
        wide[3::4] = data[2 : 3 * n : 3]
        return _unpack(bytes(wide), "i", 4, 2147483648)
    if width == 4:
        return _unpack(data, "i", 4, 2147483648)
    raise WavError("%d-bit PCM: not supported; %s" % (bits, _ADVICE))


def _adpcm(fmt, data, fact):
    try:
        _, align, per_block = adpcm.parse_fmt(fmt)
    except ValueError as exc:
        raise WavError("%s; %s" % (exc, _ADVICE)) from None
    out = array.array("h")
    buf = bytearray(2 * per_block)
    for pos in range(0, len(data), align):
        block = data[pos : pos + align]
        n = adpcm.decode_block(block, len(block), buf)
        out.frombytes(bytes(buf[: 2 * n]))
    if sys.byteorder == "big":
        out.byteswap()
    if fact is not None:
        del out[fact:]
    return out, 32768


def _load(path):
    """(chunks, tag, channels, rate, align, bits) of a WAV file whose format is taken."""
    with open(path, "rb") as f:
        data = f.read()
    chunks = _chunks(data)
    tag, channels, rate, align, bits = _format(chunks[b"fmt "])
    if tag == PCM:
        width = align // channels if align else (bits + 7) // 8
        if not 1 <= width <= 4:
            raise WavError("%d-bit PCM: not supported; %s" % (bits, _ADVICE))
    elif not (tag == FLOAT and bits in (32, 64)) and not (
        tag == adpcm.FORMAT_TAG and channels == 1
    ):
        name = "%d-bit float" % bits if tag == FLOAT else _CODECS.get(tag, "format tag %d" % tag)
        raise WavError("%s: not supported; %s" % (name, _ADVICE))
    if len(chunks[b"data"]) < max(1, align):
        raise WavError("no samples in it (an empty recording)")
    return chunks, tag, channels, rate, align, bits


def probe(path):
    """Check a file's header and size only (fast): WavError (or OSError) for a file read()
    would refuse by its format, before any time is spent converting the others."""
    _load(path)


def read(path):
    """The Recording of the WAV file at `path`; WavError (or OSError) when it is none."""
    chunks, tag, channels, rate, align, bits = _load(path)
    body = chunks[b"data"]
    if tag == PCM:
        values, scale = _pcm(body, bits, align, channels)
        what = "%d-bit PCM" % bits
    elif tag == FLOAT:
        values, scale = _unpack(body, "f" if bits == 32 else "d", bits // 8, 1.0)
        what = "%d-bit float" % bits
    else:
        fact = chunks.get(b"fact")
        count = struct.unpack("<I", fact[:4])[0] if fact and len(fact) >= 4 else None
        values, scale = _adpcm(chunks[b"fmt "], body, count)
        what = "IMA ADPCM"
    frames = len(values) // channels
    if frames == 0:
        raise WavError("no samples in it (an empty recording)")
    clipped = _clip_run(values, channels, scale, tag == FLOAT)
    inv = 1.0 / scale
    if channels == 1:
        samples = [v * inv for v in values]
    else:
        inv /= channels
        parts = [values[c : frames * channels : channels] for c in range(channels)]
        samples = [sum(frame) * inv for frame in zip(*parts)]
    layout = {1: "mono", 2: "stereo"}.get(channels, "%d-channel" % channels)
    return Recording(rate, channels, samples, clipped, "%d Hz %s %s" % (rate, layout, what))


def _clip_run(values, channels, scale, is_float):
    """The longest run of one channel's samples held at one value at full scale: within
    1 % of it for integers (a 24-bit take in 32-bit words tops out at 0x7fffff00), at 1.0
    or beyond for floats (which may go over 1.0 without having clipped)."""
    top = 1.0 if is_float else 0.99 * scale
    if max(values) < top and min(values) > -top:
        return 0  # the common case, at C speed
    longest = 0
    for c in range(channels):
        run = 0
        prev = None
        for v in values[c::channels]:
            if -top < v < top:
                run = 0
            elif run and v == prev:
                run += 1
            else:
                run = 1
            longest = max(longest, run)
            prev = v
    return longest
