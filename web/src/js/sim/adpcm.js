// The voice pack's clips for WebAudio: a WAV's header, and IMA ADPCM decoded to 16-bit
// samples. The same reading as the firmware's (audio/wavhead.py, audio/adpcm.py): mono
// IMA ADPCM in 256- or 512-byte blocks with a `fact` chunk, or mono 8/16-bit PCM.
// tests/web checks that this decoder and the firmware's, run in the page, give the same
// samples for every clip of the packs.

const STEPS = [
  7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 19, 21, 23, 25, 28, 31, 34, 37, 41, 45, 50, 55, 60, 66,
  73, 80, 88, 97, 107, 118, 130, 143, 157, 173, 190, 209, 230, 253, 279, 307, 337, 371, 408,
  449, 494, 544, 598, 658, 724, 796, 876, 963, 1060, 1166, 1282, 1411, 1552, 1707, 1878, 2066,
  2272, 2499, 2749, 3024, 3327, 3660, 4026, 4428, 4871, 5358, 5894, 6484, 7132, 7845, 8630,
  9493, 10442, 11487, 12635, 13899, 15289, 16818, 18500, 20350, 22385, 24623, 27086, 29794,
  32767,
];
const HEADER = 4;

/** Decode one block (header included) of `n` bytes at `src[at]` into `dst[out]`; the count. */
export function decodeBlock(src, at, n, dst, out) {
  if (n < HEADER) return 0;
  let pred = src[at] | (src[at + 1] << 8);
  if (pred >= 0x8000) pred -= 0x10000;
  let index = src[at + 2];
  if (index > 88) index = 0;
  dst[out++] = pred;
  for (let i = at + HEADER; i < at + n; i++) {
    const byte = src[i];
    for (let half = 0; half < 2; half++) {
      const code = half ? byte >> 4 : byte & 0x0f;
      const step = STEPS[index];
      let diff = step >> 3;
      if (code & 4) diff += step;
      if (code & 2) diff += step >> 1;
      if (code & 1) diff += step >> 2;
      if (code & 8) {
        pred -= diff;
        if (pred < -32768) pred = -32768;
      } else {
        pred += diff;
        if (pred > 32767) pred = 32767;
      }
      if (code & 4) {
        index += 2 * (code & 3) + 2;
        if (index > 88) index = 88;
      } else if (index > 0) {
        index -= 1;
      }
      dst[out++] = pred;
    }
  }
  return (n - HEADER) * 2 + 1;
}

function u16(b, i) {
  return b[i] | (b[i + 1] << 8);
}
function u32(b, i) {
  return (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)) >>> 0;
}

/** {format: "adpcm"|"pcm", rate, bits, frames, align, data: [offset, size]} of a clip. */
export function readHeader(b) {
  const tag = (i) => String.fromCharCode(b[i], b[i + 1], b[i + 2], b[i + 3]);
  if (b.length < 12 || tag(0) !== "RIFF" || tag(8) !== "WAVE") throw new Error("not a WAV file");
  let at = 12;
  let fmt = null;
  let fact = -1;
  while (at + 8 <= b.length) {
    const id = tag(at);
    const size = u32(b, at + 4);
    const body = at + 8;
    if (id === "data") {
      if (!fmt) throw new Error("data before fmt");
      const n = Math.min(size, b.length - body);
      let frames;
      if (fmt.format === "adpcm") {
        if (fact < 0) throw new Error("IMA ADPCM without a fact chunk");
        frames = fact;
      } else {
        frames = Math.floor(n / (fmt.bits / 8));
      }
      return { ...fmt, frames, data: [body, n] };
    }
    if (id === "fmt ") {
      const format = u16(b, body);
      const channels = u16(b, body + 2);
      const rate = u32(b, body + 4);
      const align = u16(b, body + 12);
      const bits = u16(b, body + 14);
      if (channels !== 1) throw new Error("not mono");
      if (format === 0x11 && bits === 4) fmt = { format: "adpcm", rate, bits, align };
      else if (format === 1 && (bits === 8 || bits === 16)) fmt = { format: "pcm", rate, bits, align: 0 };
      else throw new Error(`format tag ${format}, ${bits} bits: not a clip the clock plays`);
    } else if (id === "fact" && size >= 4) {
      fact = u32(b, body);
    }
    at = body + size + (size & 1);
  }
  throw new Error("no data chunk");
}

/** The clip's samples as an Int16Array (`frames` of them), and its rate. */
export function decodeWav(bytes) {
  const h = readHeader(bytes);
  const [start, size] = h.data;
  const out = new Int16Array(h.frames);
  if (h.format === "pcm") {
    for (let i = 0; i < h.frames; i++) {
      out[i] = h.bits === 16 ? (u16(bytes, start + 2 * i) << 16) >> 16 : (bytes[start + i] - 128) << 8;
    }
    return { rate: h.rate, samples: out };
  }
  const perBlock = (h.align - HEADER) * 2 + 1;
  const block = new Int16Array(perBlock);
  let done = 0;
  for (let at = start; at < start + size && done < h.frames; at += h.align) {
    const n = Math.min(h.align, start + size - at);
    const got = decodeBlock(bytes, at, n, block, 0);
    const take = Math.min(got, h.frames - done);
    out.set(block.subarray(0, take), done);
    done += take;
  }
  return { rate: h.rate, samples: out.subarray(0, done) };
}
