"""IMA ADPCM encoding: 16-bit samples into the clip the clock plays (`goclock voice convert`).

The output is what the shipped packs are (and what sox writes): a RIFF/WAVE file, format
tag 0x11, mono, 4 bits a sample, 256-byte blocks of 505 samples, a `fact` chunk with the
clip's length, the last block padded. The encoder tracks the decoder's predictor and step
index with the decoder's own arithmetic (firmware/goclockfw/audio/adpcm.py), so what the
clock decodes is what was meant, and each block's header restarts the predictor from the
true sample: an error cannot drift from one block to the next. Each header's step index
is chosen to suit the block's first samples (_start_index).
"""

import struct

from goclockfw.audio import adpcm

BLOCK_ALIGN = 256
_STEPS = struct.unpack("<89H", adpcm._STEPS)
# How the step index moves after each code's magnitude (the low three bits).
_INDEX_MOVE = (-1, -1, -1, -1, 2, 4, 6, 8)
TRIAL = 24  # samples a candidate start index is judged on


def _code(x, pred, index):
    """(code, new predictor, new index) for sample x: the standard encoder's choice of the
    three magnitude bits, then the decoder's own reconstruction."""
    step = _STEPS[index]
    diff = x - pred
    code = 0
    if diff < 0:
        code = 8
        diff = -diff
    if diff >= step:
        code |= 4
        diff -= step
    if diff >= step >> 1:
        code |= 2
        diff -= step >> 1
    if diff >= step >> 2:
        code |= 1
    delta = step >> 3
    if code & 4:
        delta += step
    if code & 2:
        delta += step >> 1
    if code & 1:
        delta += step >> 2
    pred = max(-32768, pred - delta) if code & 8 else min(32767, pred + delta)
    index = min(adpcm.MAX_STEP_INDEX, max(0, index + _INDEX_MOVE[code & 7]))
    return code, pred, index


def _trial_error(samples, start, index):
    """The squared error over the first TRIAL samples of a block begun at `index`."""
    pred = samples[start]
    err = 0
    for x in samples[start + 1 : start + 1 + TRIAL]:
        _, pred, index = _code(x, pred, index)
        err += (x - pred) * (x - pred)
    return err


def _start_index(samples, start, carried):
    """The step index a block's header should give: the one carried over from the last
    block, or a nearby one (any, for the first block) when it follows the signal better
    at the block's start: a header may set any index, and a wrong one costs the first
    few samples their accuracy."""
    if start == 0:
        candidates = range(0, adpcm.MAX_STEP_INDEX + 1, 4)
    else:
        near = (carried - 8, carried - 3, carried, carried + 3, carried + 8)
        candidates = [i for i in near if 0 <= i <= adpcm.MAX_STEP_INDEX]
    return min(candidates, key=lambda i: (_trial_error(samples, start, i), i != carried))


def _encode_block(samples, start, per_block, index, out):
    """Append one block (header + codes) for samples[start:start + per_block]; the step
    index to carry into the next block."""
    index = _start_index(samples, start, index)
    pred = samples[start]
    out += struct.pack("<hBB", pred, index, 0)
    codes = []
    append = codes.append
    steps, moves, top = _STEPS, _INDEX_MOVE, adpcm.MAX_STEP_INDEX
    for x in samples[start + 1 : start + per_block]:
        # _code() written out: this loop is most of the encoder's time.
        step = steps[index]
        diff = x - pred
        code = 0
        if diff < 0:
            code = 8
            diff = -diff
        delta = step >> 3
        if diff >= step:
            code |= 4
            diff -= step
            delta += step
        half = step >> 1
        if diff >= half:
            code |= 2
            diff -= half
            delta += half
        if diff >= step >> 2:
            code |= 1
            delta += step >> 2
        if code & 8:
            pred -= delta
            if pred < -32768:
                pred = -32768
        else:
            pred += delta
            if pred > 32767:
                pred = 32767
        index += moves[code & 7]
        if index < 0:
            index = 0
        elif index > top:
            index = top
        append(code)
    codes += [0] * (per_block - 1 - len(codes))  # the last block: padded to its full size
    out += bytes(codes[i] | codes[i + 1] << 4 for i in range(0, len(codes), 2))
    return index


def encode(samples, block_align=BLOCK_ALIGN):
    """The ADPCM data of a list of int samples (-32768..32767): whole blocks, padded."""
    per_block = adpcm.samples_per_block(block_align)
    out = bytearray()
    index = 0
    for start in range(0, len(samples), per_block):
        index = _encode_block(samples, start, per_block, index, out)
    return bytes(out)


def wav_bytes(samples, rate, block_align=BLOCK_ALIGN):
    """A whole IMA ADPCM WAV file of `samples` (ints) at `rate` Hz."""
    data = encode(samples, block_align)
    per_block = adpcm.samples_per_block(block_align)
    byte_rate = (rate * block_align + per_block // 2) // per_block
    fmt = struct.pack(
        "<HHIIHHHH", adpcm.FORMAT_TAG, 1, rate, byte_rate, block_align, 4, 2, per_block
    )
    body = b"WAVE"
    body += b"fmt " + struct.pack("<I", len(fmt)) + fmt
    body += b"fact" + struct.pack("<II", 4, len(samples))
    body += b"data" + struct.pack("<I", len(data)) + data
    return b"RIFF" + struct.pack("<I", len(body)) + body
