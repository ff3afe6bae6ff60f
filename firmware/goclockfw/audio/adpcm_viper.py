"""The IMA ADPCM block decoder of audio/adpcm.py as viper code, for the boards.

A module of its own because a MicroPython port without the native emitter (the
WebAssembly port, where the clock runs in a web page) refuses to compile any file holding
viper code: there audio/adpcm.py catches the SyntaxError and keeps its plain-Python
decoder, which gives the same samples.
"""

import micropython

from goclockfw.audio.adpcm import _STEPS  # defined before adpcm.py imports this module


# The decorator must be spelled out: MicroPython's compiler recognises it by name.
@micropython.viper
def _decode_viper(src, nbytes: int, dst) -> int:
    if nbytes < 4:
        return 0
    s = ptr8(src)  # noqa: F821 (a viper builtin)
    d = ptr16(dst)  # noqa: F821
    steps = ptr16(_STEPS)  # noqa: F821
    pred = s[0] | (s[1] << 8)
    if pred >= 0x8000:
        pred -= 0x10000
    index = s[2]
    if index > 88:
        index = 0
    d[0] = pred
    out = 1
    i = 4
    while i < nbytes:
        byte = s[i]
        code = byte & 0x0F
        half = 0
        while half < 2:
            step = steps[index]
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
                if index > 88:
                    index = 88
            elif index > 0:
                index -= 1
            d[out] = pred
            out += 1
            code = byte >> 4
            half += 1
        i += 1
    return out
