"""Recordings made in the tests for `goclock voice convert`: WAV files in the formats people
record in (8-bit unsigned, 16/24/32-bit PCM, 32/64-bit float, WAVE_FORMAT_EXTENSIBLE, any
rate, mono or stereo), written byte by byte so that every format is what the test says.

An "utterance" is a tone burst or a noise burst (what the converter must find and keep)
with silence before and after it over a faint noise floor (what it must cut)."""

import array
import math
import random
import struct

from goclock.voice import pack

# (sample format, bytes a sample, format tag)
KINDS = {
    "u8": (1, 1),
    "s16": (2, 1),
    "s24": (3, 1),
    "s32": (4, 1),
    "f32": (4, 3),
    "f64": (8, 3),
}


def _frames(kind, values):
    """The bytes of interleaved samples (floats, full scale 1.0) in format `kind`."""
    if kind in ("f32", "f64"):
        return array.array("f" if kind == "f32" else "d", values).tobytes()
    width = KINDS[kind][0]
    top = (1 << (8 * width - 1)) - 1  # 1.0 is the largest value, -1.0 one above the least
    ints = [int(v * top) for v in values]
    if kind == "u8":
        return bytes(n + 128 for n in ints)
    if kind == "s16":
        return array.array("h", ints).tobytes()
    if kind == "s32":
        return array.array("i", ints).tobytes()
    wide = array.array("i", ints).tobytes()  # 24-bit: the low three bytes of each
    return b"".join(wide[i : i + 3] for i in range(0, len(wide), 4))


def wav_bytes(channels_data, rate, kind="s16", extensible=False, tag=None):
    """A WAV file of `channels_data` (one list of floats per channel; little-endian host)."""
    width, fmt_tag = KINDS[kind]
    channels = len(channels_data)
    frames = _frames(kind, [v for frame in zip(*channels_data) for v in frame])
    align = width * channels
    fmt = struct.pack(
        "<HHIIHH",
        0xFFFE if extensible else (tag or fmt_tag),
        channels,
        rate,
        rate * align,
        align,
        8 * width,
    )
    if extensible:
        guid = struct.pack("<H", fmt_tag) + bytes.fromhex("000000001000800000aa00389b71")
        fmt += struct.pack("<HHI", 22, 8 * width, (1 << channels) - 1) + guid
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt
    body += b"data" + struct.pack("<I", len(frames)) + frames
    if len(frames) & 1:
        body += b"\0"
    return b"RIFF" + struct.pack("<I", len(body)) + body


_SHAPES = {}


def _tone(rate, n):
    """220 Hz and its harmonics 2, 3 and 5, like a voiced vowel (made once per length)."""
    key = (rate, n)
    if key not in _SHAPES:
        w = [2 * math.pi * 220 * k / rate for k in (1, 2, 3, 5)]
        _SHAPES[key] = [
            (math.sin(w[0] * i) + math.sin(w[1] * i) / 2 + math.sin(w[2] * i) / 3) / 1.6
            + math.sin(w[3] * i) / 8
            for i in range(n)
        ]
    return _SHAPES[key]


def utterance(rate, burst_s=0.3, peak=0.5, before_s=0.15, after_s=0.2, noise=True, seed=0):
    """Silence, a burst of `burst_s` at `peak`, silence: a list of floats.

    Even seeds give a tone (like a voiced vowel), odd ones a noise burst (like a
    fricative); both start and end with 5 ms ramps. The silence has a noise floor 70 dB
    under full scale."""
    rnd = random.Random(seed)
    floor = 0.0006 if noise else 0.0
    out = [(rnd.random() - 0.5) * floor for _ in range(int(before_s * rate))]
    n = int(burst_s * rate)
    ramp = max(1, int(0.005 * rate))
    shape = _tone(rate, n) if seed % 2 == 0 else [2 * rnd.random() - 1 for _ in range(n)]
    out += [peak * min(1.0, i / ramp, (n - 1 - i) / ramp) * v for i, v in enumerate(shape)]
    out += [(rnd.random() - 0.5) * floor for _ in range(int(after_s * rate))]
    return out


def record_pack(
    folder, profile_name="en", formats=(("s16", 16000, 1),), peaks=(0.5,), burst_s=None
):
    """A folder of recordings, one per phrase of the profile, cycling through `formats`
    ((kind, rate, channels); kind "s24x" is s24 in WAVE_FORMAT_EXTENSIBLE) and `peaks`. {file name: (kind, rate, channels, peak, burst)}."""
    folder.mkdir(parents=True, exist_ok=True)
    profile = pack.load_profile(profile_name)
    made = {}
    for i, phrase in enumerate(pack.required_phrases(profile)):
        kind, rate, channels = formats[i % len(formats)]
        extensible = kind.endswith("x")  # "s24x": 24-bit in WAVE_FORMAT_EXTENSIBLE
        peak = peaks[i % len(peaks)]
        burst = (burst_s or {}).get(phrase, 0.25 if phrase.isdigit() else 0.4)
        mono = utterance(rate, burst, peak, seed=i)
        # A stereo take: the right channel a little quieter, as from a microphone off centre.
        data = [mono] if channels == 1 else [mono, [v * 0.8 for v in mono]]
        name = pack.file_name(phrase, profile)
        (folder / name).write_bytes(wav_bytes(data, rate, kind.rstrip("x"), extensible))
        made[name] = (kind, rate, channels, peak, burst)
    return made
