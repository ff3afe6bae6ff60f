"""The reference data of tests/test_voice_adpcm.py, made with sox (run once; committed).

tests/data/voice_adpcm/ gets
  - sweep.wav: 0.6 s of a rising tone, noise bursts and a full-scale square wave (so the
    predictor saturates), 16 kHz, encoded by sox as IMA ADPCM (256-byte blocks);
  - odd.wav: two blocks written by hand: the first with step index 200 (out of range:
    a decoder starts from 0), the second with extreme codes from a header at +32767;
  - *.sox.raw: sox's own decoding of each, 16-bit little-endian, every block in full;
  - shipped.json: for every clip of the packs in sounds/, the CRC-32 and sample count of
    sox's decoding (`make sounds` runs this after make_packs.py).
CI needs no sox: the tests compare the firmware decoder with these.
Run: python -m tools.voice.adpcm_fixtures
"""

import json
import math
import os
import random
import struct
import subprocess
import sys
import tempfile
import wave
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "tests", "data", "voice_adpcm")


def sox_decode(path):
    """sox's decoding of an ADPCM WAV file: bytes of 16-bit little-endian samples."""
    cmd = ["sox", "-R", "-D", path, "-b", "16", "-e", "signed-integer", "-t", "raw", "-"]
    return subprocess.run(cmd, check=True, capture_output=True).stdout


def _sweep_samples(rate=16000):
    rnd = random.Random(13)
    out = []
    for i in range(int(rate * 0.6)):
        t = i / rate
        if t < 0.25:
            v = 0.7 * math.sin(2 * math.pi * (200 + 6000 * t) * t)
        elif t < 0.4:
            v = rnd.uniform(-1, 1) * (0.9 if (i // 400) % 2 else 0.05)
        else:
            v = 1.0 if (i // 37) % 2 else -1.0
        out.append(max(-32768, min(32767, int(v * 32767))))
    return out


def make_sweep(path):
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "src.wav")
        with wave.open(src, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(16000)
            w.writeframes(struct.pack("<%dh" % len(_sweep_samples()), *_sweep_samples()))
        subprocess.run(["sox", "-R", "-D", src, "-e", "ima-adpcm", "-b", "4", path], check=True)


def make_odd(path):
    """Two hand-made 256-byte blocks in a WAV file sox reads."""
    rnd = random.Random(7)
    block1 = struct.pack("<hBB", -1234, 200, 0) + bytes(rnd.randrange(256) for _ in range(252))
    block2 = struct.pack("<hBB", 32767, 88, 0) + bytes([0x77] * 126 + [0xFF] * 126)
    data = block1 + block2
    samples = 2 * 505
    fmt = struct.pack("<HHIIHHHH", 0x11, 1, 16000, 8110, 256, 4, 2, 505)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt
    body += b"fact" + struct.pack("<II", 4, samples)
    body += b"data" + struct.pack("<I", len(data)) + data
    with open(path, "wb") as f:
        f.write(b"RIFF" + struct.pack("<I", len(body)) + body)


def write_shipped(sounds=None):
    sounds = sounds or os.path.join(ROOT, "sounds")
    table = {}
    for pack in sorted(os.listdir(sounds)):
        folder = os.path.join(sounds, pack)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            if name.endswith(".wav"):
                pcm = sox_decode(os.path.join(folder, name))
                table["%s/%s" % (pack, name)] = {"crc32": zlib.crc32(pcm), "samples": len(pcm) // 2}
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "shipped.json"), "w", encoding="utf-8") as f:
        json.dump(table, f, indent=1, sort_keys=True)
        f.write("\n")


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, make in (("sweep", make_sweep), ("odd", make_odd)):
        path = os.path.join(OUT, name + ".wav")
        make(path)
        with open(os.path.join(OUT, name + ".sox.raw"), "wb") as f:
            f.write(sox_decode(path))
    write_shipped()
    print("written to", os.path.relpath(OUT, ROOT), file=sys.stderr)


if __name__ == "__main__":
    main()
