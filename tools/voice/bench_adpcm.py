"""How long the firmware's ADPCM decoder takes per second of 16 kHz audio.

Runs under the MicroPython unix port (the viper decoder, and the plain-Python one for
comparison) and under CPython:
    MICROPYPATH=firmware .venv/bin/micropython tools/voice/bench_adpcm.py
    .venv/bin/python -m tools.voice.bench_adpcm
It decodes tests/data/voice_adpcm/sweep.wav's blocks over and over (one reused output
buffer, as a player would) and prints microseconds per second of audio, best of 5 runs.
"""

import sys
import time

try:
    from time import ticks_diff, ticks_us
except ImportError:  # CPython

    def ticks_us():
        return time.perf_counter_ns() // 1000

    def ticks_diff(a, b):
        return a - b


from goclockfw.audio import adpcm  # MicroPython: MICROPYPATH=firmware; CPython: installed

RATE = 16000
ALIGN = 256


def blocks(path):
    f = open(path, "rb")
    data = f.read()
    f.close()
    pos = data.find(b"data") + 8
    return [data[i : i + ALIGN] for i in range(pos, len(data) - ALIGN + 1, ALIGN)]


def run(decode, bl, seconds):
    buf = bytearray(2 * adpcm.samples_per_block(ALIGN))
    need = seconds * RATE
    best = None
    for _ in range(5):
        done = 0
        t0 = ticks_us()
        while done < need:
            for b in bl:
                done += decode(b, ALIGN, buf)
        us = ticks_diff(ticks_us(), t0)
        per_s = us * RATE // done
        best = per_s if best is None or per_s < best else best
    return best


def main():
    here = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
    bl = blocks(here + "/../../tests/data/voice_adpcm/sweep.wav")
    fast = adpcm.decode_block
    print(
        "%s: decode_block %d us per second of 16 kHz audio"
        % (sys.implementation.name, run(fast, bl, 20))
    )
    if fast is not adpcm._decode_py:
        print(
            "%s: plain-Python decoder %d us per second"
            % (sys.implementation.name, run(adpcm._decode_py, bl, 2))
        )


main()
