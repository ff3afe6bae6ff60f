"""The firmware's IMA ADPCM decoder (firmware/goclockfw/audio/adpcm.py) against sox's.

The references were made by sox (tools/voice/adpcm_fixtures.py): a sox-encoded test
signal, two hand-made blocks (an out-of-range step index, saturating codes), and the
CRC-32 of sox's decoding of every shipped ADPCM clip. Checked under CPython (the plain
Python decoder) and under the MicroPython unix port (the viper decoder), bit for bit.
"""

import json
import os
import struct
import zlib

import pytest

from conftest import FIRMWARE, REPO, run_micropython
from goclockfw.audio import adpcm

DATA = os.path.join(REPO, "tests", "data", "voice_adpcm")
PACKS = os.path.join(REPO, "sounds")


def chunks(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:4] == b"RIFF" and data[8:12] == b"WAVE"
    out, pos = {}, 12
    while pos + 8 <= len(data):
        ident, size = struct.unpack_from("<4sI", data, pos)
        out[ident] = data[pos + 8 : pos + 8 + size]
        pos += 8 + size + (size & 1)
    return out


def decode_file(path):
    """Every block of an ADPCM file decoded in full, as sox does, with one buffer."""
    c = chunks(path)
    rate, align, per_block = adpcm.parse_fmt(c[b"fmt "])
    data = c[b"data"]
    buf = bytearray(2 * per_block)
    out = bytearray()
    for pos in range(0, len(data), align):
        block = memoryview(data)[pos : pos + align]
        n = adpcm.decode_block(block, len(block), buf)
        assert n == adpcm.block_samples(len(block))
        out += buf[: 2 * n]
    return bytes(out)


def reference(name):
    with open(os.path.join(DATA, name + ".sox.raw"), "rb") as f:
        return f.read()


@pytest.mark.parametrize("name", ["sweep", "odd"])
def test_cpython_decoder_matches_sox_bit_for_bit(name):
    ours = decode_file(os.path.join(DATA, name + ".wav"))
    ref = reference(name)
    assert len(ours) == len(ref) > 1000
    assert ours == ref


def test_the_odd_blocks_reach_the_limits():
    # The fixture is only worth having if it drives the predictor to both rails.
    samples = struct.unpack("<%dh" % (len(reference("odd")) // 2), reference("odd"))
    assert max(samples) == 32767 and min(samples) == -32768


def shipped():
    path = os.path.join(DATA, "shipped.json")
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def test_every_shipped_adpcm_clip_decodes_as_sox_decodes_it():
    table = shipped()
    on_disk = {
        "%s/%s" % (pack, name)
        for pack in ("zh", "ja", "en")
        for name in os.listdir(os.path.join(PACKS, pack))
        if name.endswith(".wav")
    }
    assert set(table) == on_disk and len(on_disk) > 200
    for clip, want in sorted(table.items()):
        pcm = decode_file(os.path.join(PACKS, clip))
        assert (zlib.crc32(pcm), len(pcm) // 2) == (want["crc32"], want["samples"]), clip


def test_a_short_last_block_is_a_prefix_of_the_full_one():
    c = chunks(os.path.join(DATA, "sweep.wav"))
    block = c[b"data"][256:512]
    full = bytearray(2 * 505)
    adpcm.decode_block(block, 256, full)
    for nbytes in (0, 3, 4, 5, 100, 255):
        part = bytearray(2 * 505)
        n = adpcm.decode_block(block, nbytes, part)
        assert n == adpcm.block_samples(nbytes) == (0 if nbytes < 4 else 2 * nbytes - 7)
        assert part[: 2 * n] == full[: 2 * n]
        assert part[2 * n :] == bytes(len(part) - 2 * n)  # nothing written past the samples


@pytest.mark.parametrize("align", [256, 512])
def test_a_block_decoded_in_place_gives_the_samples_of_one_decoded_apart(align):
    """The player reads a block into the tail of its output buffer and decodes it there
    (adpcm.in_place): every sample as from a buffer of its own, for full and short blocks
    and whatever the codes (the decoder never writes over a byte it has not read)."""
    import random

    rng = random.Random(align)
    per = adpcm.samples_per_block(align)
    for n in (align, align - 1, align // 2, 5, 4):
        for _ in range(20):
            src = bytes(rng.randrange(256) for _ in range(align))
            apart = bytearray(2 * per)
            a = adpcm.decode_block(src, n, apart)
            here = bytearray(2 * per)
            view = adpcm.in_place(here, align)
            view[:] = src
            assert adpcm.decode_block(view, n, here) == a
            assert here[: 2 * a] == apart[: 2 * a]


def test_parse_fmt_takes_mono_4bit_ima_only():
    good = struct.pack("<HHIIHHHH", 0x11, 1, 16000, 8110, 256, 4, 2, 505)
    assert adpcm.parse_fmt(good) == (16000, 256, 505)
    assert adpcm.parse_fmt(good[:16]) == (16000, 256, 505)  # no extension: computed
    assert adpcm.samples_per_block(512) == 1017
    bad = {
        "PCM": struct.pack("<HHIIHHHH", 1, 1, 16000, 32000, 2, 16, 0, 0),
        "stereo": struct.pack("<HHIIHHHH", 0x11, 2, 16000, 16220, 512, 4, 2, 505),
        "3-bit": struct.pack("<HHIIHHHH", 0x11, 1, 16000, 6000, 256, 3, 2, 505),
        "inconsistent": struct.pack("<HHIIHHHH", 0x11, 1, 16000, 8110, 256, 4, 2, 1017),
        "no room": struct.pack("<HHIIHHHH", 0x11, 1, 16000, 8110, 4, 4, 2, 1),
        "short": good[:12],
    }
    for why, body in bad.items():
        with pytest.raises(ValueError):
            adpcm.parse_fmt(body)
            pytest.fail("%s was taken" % why)


DRIVER = """
import binascii, json, micropython, sys
from goclockfw.audio import adpcm

def decode(path):
    # As the I2S player does: parse the header, then read block after block into the
    # tail of one preallocated buffer and decode it there, in place (adpcm.in_place).
    f = open(path, "rb")
    head = f.read(12)
    fmt = None
    while True:
        chunk = f.read(8)
        size = chunk[4] | chunk[5] << 8 | chunk[6] << 16 | chunk[7] << 24
        if chunk[0:4] == b"data":
            break
        body = f.read(size + (size & 1))
        if chunk[0:4] == b"fmt ":
            fmt = adpcm.parse_fmt(body)
    rate, align, per_block = fmt
    buf = bytearray(2 * per_block)
    block = adpcm.in_place(buf, align)
    crc = 0
    total = 0
    left = size
    micropython.heap_lock()  # reading and decoding a block allocate nothing
    try:
        while left > 0:
            n = f.readinto(block)
            if n > left:
                n = left
            if n <= 0:
                break
            got = adpcm.decode_block(block, n, buf)
            crc = binascii.crc32(buf, crc) if got == per_block else crc
            total += got
            left -= n
    finally:
        micropython.heap_unlock()
    f.close()
    return crc, total, got

def random_blocks():
    # Blocks of both sizes the packs use, full and short, decoded into a buffer of their
    # own and in place: the same samples ([same, blocks] for the test).
    seed, same, count = 7, True, 0
    for align in (256, 512):
        per = adpcm.samples_per_block(align)
        for n in (align, align - 1, 5, 4):
            src = bytearray(align)
            for i in range(align):
                seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
                src[i] = seed >> 16 & 0xFF
            src[2] = src[2] % 89
            apart = bytearray(2 * per)
            a = adpcm.decode_block(src, n, apart)
            here = bytearray(2 * per)
            view = adpcm.in_place(here, align)
            view[:] = src
            b = adpcm.decode_block(view, n, here)
            same = same and a == b and apart[: 2 * a] == here[: 2 * b]
            count += 1
    return [same, count]

viper = adpcm.decode_block is adpcm._decode_viper
out = {"viper": viper, "in_place": random_blocks()}
for path in sys.argv[1:]:
    crc, total, last = decode(path)
    out[path] = [crc, total, last]
print(json.dumps(out))
"""


def test_micropython_viper_decoder_matches_sox(micropython, tmp_path):
    script = tmp_path / "adpcm_driver.py"
    script.write_text(DRIVER)
    table = shipped()
    clips = [c for c in sorted(table) if c.endswith(("count_7.wav", "timeout_pass.wav"))]
    assert len(clips) >= 4
    paths = [os.path.join(DATA, "sweep.wav"), os.path.join(DATA, "odd.wav")]
    paths += [os.path.join(PACKS, c) for c in clips]
    env_path = FIRMWARE  # run_micropython puts firmware/ on MICROPYPATH
    assert os.path.isdir(os.path.join(env_path, "goclockfw", "audio"))
    out = run_micropython(micropython, str(script), *paths)
    assert out.returncode == 0, out.stderr.decode()
    got = json.loads(out.stdout)
    assert got.pop("viper") is True
    assert got.pop("in_place") == [True, 8]
    for name in ("sweep", "odd"):
        ref = reference(name)
        assert got[paths.pop(0)] == [zlib.crc32(ref), len(ref) // 2, 505]
    for clip, path in zip(clips, paths):
        assert got[path] == [table[clip]["crc32"], table[clip]["samples"], 505], clip
