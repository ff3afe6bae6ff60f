"""IMA ADPCM (WAV format tag 0x11, mono, 4 bits a sample) decoded one block at a time.

A clip is a RIFF/WAVE file whose fmt chunk says format tag 0x11, 1 channel, 4 bits per
sample, `block_align` bytes a block (256 or 512 in the shipped packs) and, in its 2-byte
extension, the samples per block: (block_align - 4) * 2 + 1 (505 or 1017). A `fact`
chunk gives the clip's length in samples; the last block may be short (fewer bytes) or
padded, so a player stops after that many samples.

Each block starts with a 4-byte header: the first sample (int16, little-endian), the
step index (0..88) and a zero byte. Then come the codes, two a byte, the low nibble
first; each code gives one sample. decode_block() writes 16-bit little-endian signed
samples into a bytearray the caller allocated once (2 * samples_per_block bytes), so a
player decodes block after block without allocating.

On MicroPython the work is done by a viper function (audio/adpcm_viper.py); on CPython
(the tests, the tools), and on a port whose compiler has no native emitter (the
WebAssembly port, which refuses the whole viper module), by the same arithmetic in plain
Python. Both give what sox's decoder gives, bit for bit.

    decode_block(src, nbytes, dst) -> samples

decodes the first `nbytes` bytes of `src` (one block, header included: bytes, bytearray
or memoryview) into `dst` (a bytearray of at least 2 * block_samples(nbytes) bytes) and
returns the number of samples written.

`src` may be a view of the tail of `dst` itself (`in_place(dst, block_align)`): a player
then needs no buffer of its own for the block it reads. Both decoders read the header
before the first sample is written, and each code byte before its two samples are; byte
k of the codes is written over only after byte k has been read, since the samples before
it take 4 bytes for every code byte against the one byte the input advances, and the
input starts far enough in (2 * samples - block_align bytes) for that to hold up to the
block's last byte, with nothing to spare there.
"""

try:
    import micropython
except ImportError:  # CPython: the plain-Python decoder below
    micropython = None

FORMAT_TAG = 0x11
HEADER_BYTES = 4
MAX_STEP_INDEX = 88

# The 89 quantiser step sizes of IMA ADPCM, as uint16 little-endian (viper reads it
# through ptr16; bytes keep it in flash when frozen).
_STEPS = (
    b"\x07\x00\x08\x00\x09\x00\x0a\x00\x0b\x00\x0c\x00\x0d\x00\x0e\x00\x10\x00\x11\x00"
    b"\x13\x00\x15\x00\x17\x00\x19\x00\x1c\x00\x1f\x00\x22\x00\x25\x00\x29\x00\x2d\x00"
    b"\x32\x00\x37\x00\x3c\x00\x42\x00\x49\x00\x50\x00\x58\x00\x61\x00\x6b\x00\x76\x00"
    b"\x82\x00\x8f\x00\x9d\x00\xad\x00\xbe\x00\xd1\x00\xe6\x00\xfd\x00\x17\x01\x33\x01"
    b"\x51\x01\x73\x01\x98\x01\xc1\x01\xee\x01\x20\x02\x56\x02\x92\x02\xd4\x02\x1c\x03"
    b"\x6c\x03\xc3\x03\x24\x04\x8e\x04\x02\x05\x83\x05\x10\x06\xab\x06\x56\x07\x12\x08"
    b"\xe0\x08\xc3\x09\xbd\x0a\xd0\x0b\xff\x0c\x4c\x0e\xba\x0f\x4c\x11\x07\x13\xee\x14"
    b"\x06\x17\x54\x19\xdc\x1b\xa5\x1e\xb6\x21\x15\x25\xca\x28\xdf\x2c\x5b\x31\x4b\x36"
    b"\xb9\x3b\xb2\x41\x44\x48\x7e\x4f\x71\x57\x2f\x60\xce\x69\x62\x74\xff\x7f"
)


def samples_per_block(block_align):
    """Samples one full mono block of `block_align` bytes holds (256 -> 505)."""
    return (block_align - HEADER_BYTES) * 2 + 1


def block_samples(nbytes):
    """Samples a (possibly short, last) block of `nbytes` bytes holds; 0 if no header."""
    if nbytes < HEADER_BYTES:
        return 0
    return (nbytes - HEADER_BYTES) * 2 + 1


def in_place(dst, block_align):
    """The view of `dst` (2 * samples_per_block(block_align) bytes or more) a block is read
    into so that decode_block(view, n, dst) decodes it in place: its last block_align bytes
    of the samples' room."""
    end = 2 * samples_per_block(block_align)
    return memoryview(dst)[end - block_align : end]


def parse_fmt(body):
    """(sample_rate, block_align, samples_per_block) of a WAV fmt chunk's body.

    ValueError when it is not mono 4-bit IMA ADPCM with a consistent block size."""
    if len(body) < 16:
        raise ValueError("short fmt chunk")
    tag = body[0] | body[1] << 8
    channels = body[2] | body[3] << 8
    rate = body[4] | body[5] << 8 | body[6] << 16 | body[7] << 24
    align = body[12] | body[13] << 8
    bits = body[14] | body[15] << 8
    if tag != FORMAT_TAG:
        raise ValueError("not IMA ADPCM (format tag %d)" % tag)
    if channels != 1 or bits != 4:
        raise ValueError("IMA ADPCM must be mono, 4 bits a sample")
    if align <= HEADER_BYTES:
        raise ValueError("bad block size %d" % align)
    per_block = samples_per_block(align)
    if len(body) >= 20:
        said = body[18] | body[19] << 8
        if said != per_block:
            raise ValueError("%d samples per %d-byte block, expected %d" % (said, align, per_block))
    return rate, align, per_block


def _decode_py(src, nbytes, dst):
    if nbytes < HEADER_BYTES:
        return 0
    steps = _STEPS
    pred = src[0] | src[1] << 8
    if pred >= 0x8000:
        pred -= 0x10000
    index = src[2]
    if index > MAX_STEP_INDEX:
        index = 0
    dst[0] = pred & 0xFF
    dst[1] = (pred >> 8) & 0xFF
    out = 2
    for i in range(HEADER_BYTES, nbytes):
        byte = src[i]
        for code in (byte & 0x0F, byte >> 4):
            step = steps[2 * index] | steps[2 * index + 1] << 8
            diff = step >> 3
            if code & 4:
                diff += step
            if code & 2:
                diff += step >> 1
            if code & 1:
                diff += step >> 2
            if code & 8:
                pred -= diff
                if pred < -32768:
                    pred = -32768
            else:
                pred += diff
                if pred > 32767:
                    pred = 32767
            if code & 4:
                index += 2 * (code & 3) + 2
                if index > MAX_STEP_INDEX:
                    index = MAX_STEP_INDEX
            elif index > 0:
                index -= 1
            dst[out] = pred & 0xFF
            dst[out + 1] = (pred >> 8) & 0xFF
            out += 2
    return (nbytes - HEADER_BYTES) * 2 + 1


decode_block = _decode_py
if micropython is not None:
    try:
        from goclockfw.audio.adpcm_viper import _decode_viper

        decode_block = _decode_viper
    except SyntaxError:  # a port built without native code (webassembly): plain Python
        pass
