"""Band-limited resampling in plain Python: a Kaiser-windowed sinc, polyphase.

`goclock voice convert` brings recordings of any rate to the clock's 16 kHz. The host tool
depends on no numerical library, so this is the textbook resampler written out: for a
rate change of L/M (reduced by their gcd: 44100 -> 16000 is 160/441), output sample n
lies at input time t = n*M/L, and is the sum of the input samples around t weighted by a
low-pass sinc kernel centred on t. The kernel's cut-off is ROLLOFF of the lower Nyquist
frequency (so 7.36 kHz when going down to 16 kHz: above 8 kHz would fold back as
aliases), its tails are cut after ZEROS zero crossings each side and shaped by a Kaiser
window (beta BETA: about 80 dB of stop-band attenuation). The kernel is tabulated once per
phase (t's fractional part, one of L values, made when first used), and each output
sample is one dot product, `sum(map(mul, ...))`, at C speed: about a second of CPU per
minute of 48 kHz audio.
"""

import math
from math import gcd
from operator import mul

ZEROS = 16  # zero crossings of the sinc kept on each side
BETA = 8.0  # Kaiser window shape
ROLLOFF = 0.92  # the pass band, as a share of the lower Nyquist frequency


def _bessel_i0(x):
    """The modified Bessel function I0, by its power series (converges fast for x < 20)."""
    total, term, k = 1.0, 1.0, 1
    while term > 1e-12 * total:
        term *= (x / (2 * k)) ** 2
        total += term
        k += 1
    return total


class Resampler:
    """Resamples from `src_rate` to `dst_rate`; one object serves any number of clips."""

    def __init__(self, src_rate, dst_rate):
        g = gcd(src_rate, dst_rate)
        self.up = dst_rate // g  # L
        self.down = src_rate // g  # M
        # Cut-off in cycles per input sample, and the kernel's half width in input samples.
        self.cutoff = 0.5 * ROLLOFF * min(1.0, self.up / self.down)
        self.half = int(math.ceil(ZEROS / (2 * self.cutoff)))
        self._i0_beta = _bessel_i0(BETA)
        self._phases = {}

    def _kernel(self, u):
        if abs(u) >= self.half:
            return 0.0
        x = 2 * self.cutoff * u
        sinc = 1.0 if x == 0 else math.sin(math.pi * x) / (math.pi * x)
        window = _bessel_i0(BETA * math.sqrt(1.0 - (u / self.half) ** 2)) / self._i0_beta
        return 2 * self.cutoff * sinc * window

    def _taps(self, phase):
        """The weights of input samples i-half+1 .. i+half for an output at i + phase/L."""
        taps = self._phases.get(phase)
        if taps is None:
            frac = phase / self.up
            taps = [self._kernel(frac - j) for j in range(-self.half + 1, self.half + 1)]
            self._phases[phase] = taps
        return taps

    def __call__(self, samples):
        """The resampled list of floats; ceil(len * L / M) samples long."""
        if self.up == self.down:
            return list(samples)
        pad = [0.0] * self.half
        x = pad + list(samples) + pad
        width = 2 * self.half
        n_out = -(-len(samples) * self.up // self.down)
        out = []
        for n in range(n_out):
            i, phase = divmod(n * self.down, self.up)
            # x[i + 1] is input sample i - half + 1: the first one the kernel weighs.
            out.append(sum(map(mul, self._taps(phase), x[i + 1 : i + 1 + width])))
        return out


def resample(samples, src_rate, dst_rate):
    """`samples` (floats at `src_rate`) at `dst_rate`, band-limited."""
    return Resampler(src_rate, dst_rate)(samples)
