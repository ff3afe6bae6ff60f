"""The signal steps of `goclock voice convert`, in plain Python on lists of floats.

- high_pass(): a 2nd-order Butterworth high-pass (rumble, a microphone's DC offset);
- loudness(): integrated loudness in LUFS as ITU-R BS.1770-4 defines it: the signal
  K-weighted (the standard's two filters: a +4 dB shelf above about 1.7 kHz, a high-pass
  at 38 Hz; designed for the clip's rate from the standard's analogue parameters, as
  libebur128 does), mean square over 400 ms blocks overlapping by 75 %, blocks quieter
  than -70 LUFS dropped (absolute gate), then those more than 10 LU under the loudness of
  the rest (relative gate). A clip shorter than one block (a count) is one block;
- speech_bounds(): where the speech starts and ends, by 10 ms frames;
- limit(): a look-ahead peak limiter, so that no sample goes over a ceiling;
- fade(): short ramps at both ends, so a trimmed clip starts and ends without a click.
"""

import math
from itertools import accumulate
from operator import mul

LUFS_OFFSET = -0.691  # BS.1770: the K-weighted mean square of 0 dB is -0.691 LUFS
ABSOLUTE_GATE = -70.0
RELATIVE_GATE = -10.0
BLOCK_S = 0.4
HOP_S = 0.1


def db(x):
    return 20 * math.log10(x) if x > 0 else -math.inf


def biquad(x, b, a):
    """x filtered by b0 + b1 z^-1 + b2 z^-2 over 1 + a1 z^-1 + a2 z^-2 (a normalised)."""
    b0, b1, b2 = b
    a1, a2 = a
    x1 = x2 = y1 = y2 = 0.0
    out = []
    append = out.append
    for v in x:
        y = b0 * v + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2, x1, y2, y1 = x1, v, y1, y
        append(y)
    return out


def _high_pass_coeffs(rate, f0, q):
    w = 2 * math.pi * f0 / rate
    cos, alpha = math.cos(w), math.sin(w) / (2 * q)
    a0 = 1 + alpha
    b = ((1 + cos) / 2 / a0, -(1 + cos) / a0, (1 + cos) / 2 / a0)
    return b, (-2 * cos / a0, (1 - alpha) / a0)


def _k_shelf_coeffs(rate):
    # BS.1770's pre-filter for any rate, from its analogue parameters as libebur128 derives
    # them (at 48 kHz these are the standard's printed coefficients).
    f0, gain_db, q = 1681.974450955533, 3.999843853973347, 0.7071752369554196
    k = math.tan(math.pi * f0 / rate)
    vh = 10 ** (gain_db / 20)
    vb = vh**0.4996667741545416
    a0 = 1 + k / q + k * k
    b = ((vh + vb * k / q + k * k) / a0, 2 * (k * k - vh) / a0, (vh - vb * k / q + k * k) / a0)
    return b, (2 * (k * k - 1) / a0, (1 - k / q + k * k) / a0)


def _k_high_pass_coeffs(rate):
    f0, q = 38.13547087613982, 0.5003270373253953
    k = math.tan(math.pi * f0 / rate)
    a0 = 1 + k / q + k * k
    return (1.0, -2.0, 1.0), (2 * (k * k - 1) / a0, (1 - k / q + k * k) / a0)


def high_pass(x, rate, f0=80.0):
    return biquad(x, *_high_pass_coeffs(rate, f0, math.sqrt(0.5)))


def k_weighted(x, rate):
    """BS.1770's K-weighting: the pre-filter (shelf), then the RLB high-pass."""
    return biquad(biquad(x, *_k_shelf_coeffs(rate)), *_k_high_pass_coeffs(rate))


def loudness(x, rate):
    """Integrated loudness of mono `x` in LUFS (-inf for silence)."""
    if not x:
        return -math.inf
    y = k_weighted(x, rate)
    sums = [0.0] + list(accumulate(map(mul, y, y)))
    block = int(BLOCK_S * rate)
    hop = int(HOP_S * rate)
    if len(y) <= block:
        powers = [sums[-1] / len(y)]
    else:
        starts = range(0, len(y) - block + 1, hop)
        powers = [(sums[s + block] - sums[s]) / block for s in starts]

    def lufs(p):
        return LUFS_OFFSET + 10 * math.log10(p) if p > 0 else -math.inf

    gated = [p for p in powers if lufs(p) > ABSOLUTE_GATE]
    if not gated:
        return -math.inf
    floor = lufs(sum(gated) / len(gated)) + RELATIVE_GATE
    gated = [p for p in gated if lufs(p) > floor]
    return lufs(sum(gated) / len(gated))


def frame_levels(x, rate, frame_s=0.01):
    """(frame length, [RMS of each whole frame in dBFS])."""
    frame = max(1, int(rate * frame_s))
    levels = []
    for start in range(0, len(x) - frame + 1, frame):
        chunk = x[start : start + frame]
        levels.append(10 * math.log10(sum(map(mul, chunk, chunk)) / frame + 1e-20))
    return frame, levels


def speech_bounds(x, rate, below_peak=40.0, above_noise=10.0, lead_s=0.01, tail_s=0.03):
    """(start, end) of the speech in `x`, or None when no frame stands out.

    A 10 ms frame is speech when it is within `below_peak` dB of the loudest frame and
    more than `above_noise` dB over the noise floor (the quietest tenth of the frames),
    but never needs to be more than 20 dB under the loudest (a clip that is all speech
    has no noise floor to find). `lead_s` before the first such frame and `tail_s` after
    the last are kept: the onset of a consonant, and a decay."""
    frame, levels = frame_levels(x, rate)
    if not levels:
        return None
    peak = max(levels)
    noise = sorted(levels)[len(levels) // 10]
    threshold = max(peak - below_peak, min(noise + above_noise, peak - 20.0))
    loud = [i for i, level in enumerate(levels) if level > threshold]
    if not loud:
        return None
    start = max(0, loud[0] * frame - int(lead_s * rate))
    end = min(len(x), (loud[-1] + 1) * frame + int(tail_s * rate))
    return start, end


def limit(x, rate, ceiling, lookahead_s=0.002, release_s=0.05):
    """`x` with its peaks brought under `ceiling` (linear); (samples, largest cut in dB).

    The gain each sample needs is spread over the look-ahead on both sides (a minimum
    over 2 windows, then their average: never above the need, no step to click), and it
    recovers with a release of `release_s`. A final clamp guards the ceiling exactly."""
    if not x or max(map(abs, x)) <= ceiling:
        return list(x), 0.0
    need = [min(1.0, ceiling / abs(v)) if v else 1.0 for v in x]
    w = max(1, int(lookahead_s * rate))
    n = len(x)
    # lowest[i]: the least gain x[i - w .. i + w] need; each sample's gain is the mean of
    # w + 1 of those around it, every one of which covers that sample.
    lowest = [min(need[max(0, i - w) : i + w + 1]) for i in range(n)]
    half = w // 2
    smooth = []
    for i in range(n):
        part = lowest[max(0, i - half) : i - half + w + 1]
        smooth.append(sum(part) / len(part))
    coeff = math.exp(-1.0 / (release_s * rate))
    gain, g = [], 1.0
    for s in smooth:
        g = s if s < g else 1.0 - (1.0 - g) * coeff
        g = min(g, s)
        gain.append(g)
    out = [max(-ceiling, min(ceiling, v * k)) for v, k in zip(x, gain)]
    return out, -db(min(gain))


def fade(x, rate, in_s=0.005, out_s=0.01):
    """`x` with raised-cosine ramps at its start and end."""
    out = list(x)
    for length, positions in (
        (int(in_s * rate), range(len(out))),
        (int(out_s * rate), range(len(out) - 1, -1, -1)),
    ):
        length = min(length, len(out))
        for k, i in zip(range(length), positions):
            out[i] *= 0.5 - 0.5 * math.cos(math.pi * k / length)
    return out
