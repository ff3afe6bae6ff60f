"""Play voice clips (and beep patterns) through I2S, streaming from flash.

The board's hardware layer makes the `machine.I2S` object (TX, 16-bit, mono, at the
pack's sample rate) and hands it over; nothing here touches pins. The player puts the
I2S into non-blocking mode: each time a buffer has been taken, the I2S callback reads
the next chunk of the clip from flash into the same preallocated buffer. So the clock's
loop never waits for audio, and no memory is allocated per chunk. Opening a clip (a call,
an event) allocates its file object and parses its header; that is all.

Clips: PCM WAV, mono, 8-bit (widened to 16-bit through a 256-entry palette: framebuf's
blit does it in C, and the volume is folded into the palette) or 16-bit (volume by
I2S.shift, in 6 dB steps). Patterns: (freq_hz, ms) steps from audio/beep.py, as square waves.

`play()` cuts whatever is playing: a new call always wins over a late old one.

A watchdog in `poll(now)` (the announcer calls it every loop pass): the I2S callback is a
scheduled one, and on an ESP32 a full scheduler queue (a bounce storm while the loop was
blocked) drops it; the player would then wait for it forever, silent for the rest of the
game. When a buffer has been out for STUCK_MS, far longer than it takes to play, the
callback is taken as lost and playback goes on (`stuck` counts it).
"""

import struct

from goclockfw.core.ticks import ticks_diff

try:
    import framebuf
except ImportError:  # CPython (tests): the same results through slow Python loops
    framebuf = None

# Volume 0..10 as a gain in 1/256ths, about 3 dB a step; 0 is silence.
GAIN = (0, 11, 16, 23, 32, 45, 64, 91, 128, 181, 256)
# 16-bit clips can only be shifted: 6 dB steps.
SHIFT = (16, 5, 4, 4, 3, 3, 2, 1, 1, 0, 0)
TONE_LEVEL = 64  # square-wave amplitude per unit of gain (16384 at full volume)
STUCK_MS = 500  # a buffer (32 ms of sound, plus the I2S ibuf's) is long played by then


def read_header(f):
    """(rate, sample_width, channels, data_bytes) of a WAV file; leaves `f` at the samples."""
    head = f.read(12)
    if len(head) < 12 or head[0:4] != b"RIFF" or head[8:12] != b"WAVE":
        raise ValueError("not a WAV file")
    fmt = None
    while True:
        chunk = f.read(8)
        if len(chunk) < 8:
            raise ValueError("no data chunk")
        ident = chunk[0:4]
        size = struct.unpack("<I", chunk[4:8])[0]
        if ident == b"data":
            if fmt is None:
                raise ValueError("data before fmt")
            return fmt[0], fmt[1], fmt[2], size
        if ident != b"fmt ":
            f.seek(size + (size & 1), 1)  # LIST and other chunks: skipped, never read
            continue
        body = f.read(size + (size & 1))
        if len(body) < 16:
            raise ValueError("short fmt chunk")
        tag, channels, rate = struct.unpack("<HHI", body[0:8])
        bits = struct.unpack("<H", body[14:16])[0]
        if tag != 1:
            raise ValueError("not PCM")
        fmt = (rate, bits // 8, channels)


class I2SPlayer:
    def __init__(self, i2s, rate, chunk=512, volume=7, opener=open):
        self.rate = rate
        self.volume = 0
        self.error = None  # why the last play() refused, for the log
        self._i2s = i2s
        self._open = opener
        self._chunk = chunk
        self._raw = bytearray(chunk)  # 8-bit samples as read from flash
        self._out = bytearray(2 * chunk)  # 16-bit samples for the I2S
        self._palette = bytearray(512)  # 8-bit sample -> 16-bit sample, volume included
        if framebuf:
            self._fb_raw = framebuf.FrameBuffer(self._raw, chunk, 1, framebuf.GS8)
            self._fb_out = framebuf.FrameBuffer(self._out, chunk, 1, framebuf.RGB565)
            self._fb_pal = framebuf.FrameBuffer(self._palette, 256, 1, framebuf.RGB565)
        self._shift = getattr(type(i2s), "shift", None)
        self._file = None
        self._left = 0  # samples of the clip still to send
        self._width = 1
        self._steps = None  # a beep pattern instead of a clip
        self._step = 0
        self._step_left = 0
        self._half = 0  # samples per half wave of the current tone
        self._phase = 0
        self._busy = False
        self._in_flight = False
        self._sent_at = 0  # tick of the last buffer handed over (`poll` sets it)
        self._now = 0
        self.stuck = 0  # callbacks taken as lost (the watchdog restarted playback)
        self.set_volume(volume)
        i2s.irq(self._on_sent)

    def set_volume(self, level):
        """Volume 0 (silent: nothing is played) to 10 (full)."""
        level = 0 if level < 0 else 10 if level > 10 else int(level)
        self.volume = level
        g = GAIN[level]
        for b in range(256):
            v = ((b - 128) * g) & 0xFFFF
            self._palette[2 * b] = v & 0xFF
            self._palette[2 * b + 1] = v >> 8

    def busy(self):
        return self._busy

    def stop(self):
        """Stop at once; what the I2S already holds (its ibuf) still plays out."""
        self._busy = False
        self._steps = None
        f = self._file
        self._file = None
        if f is not None:
            f.close()

    def play(self, what):
        """Start a clip (path of a WAV) or a beep pattern; True when it plays."""
        self.stop()
        self.error = None
        if self.volume == 0:
            return False
        if isinstance(what, str):
            if not self._open_clip(what):
                return False
        else:
            self._steps = what
            self._step = -1
            self._step_left = 0
        self._busy = True
        if not self._in_flight:
            self._feed()
        return True

    def _open_clip(self, path):
        try:
            f = self._open(path, "rb")
        except OSError:
            self.error = "no clip " + path
            return False
        try:
            rate, width, channels, size = read_header(f)
        except (ValueError, OSError) as exc:
            self.error = "%s: %s" % (path, exc)
            f.close()
            return False
        if rate != self.rate or channels != 1 or width not in (1, 2):
            self.error = "%s: %d Hz, %d ch, %d-bit: want %d Hz mono 8/16-bit" % (
                path,
                rate,
                channels,
                8 * width,
                self.rate,
            )
            f.close()
            return False
        self._file = f
        self._width = width
        self._left = size // width
        return True

    def poll(self, now):
        """The watchdog: a buffer out for STUCK_MS means its callback was lost."""
        self._now = now
        if self._in_flight and ticks_diff(now, self._sent_at) >= STUCK_MS:
            self.stuck += 1
            self._in_flight = False
            if self._busy:
                self._feed()

    def _on_sent(self, _):
        # Called (scheduled, not in a hard IRQ) when the I2S has taken the last buffer.
        self._in_flight = False
        if self._busy:
            self._feed()

    def _feed(self):
        if self._steps is not None:
            done = not self._tones()
        elif self._file is not None:
            done = not self._samples()
        else:
            done = True
        if done:
            self.stop()
            return
        self._in_flight = True
        self._sent_at = self._now  # as of the last poll: the watchdog's reference
        self._i2s.write(self._out)

    def _samples(self):
        if self._left <= 0:
            return False
        if self._width == 1:
            n = self._file.readinto(self._raw)
            count = n if n < self._left else self._left
            if count <= 0:
                return False
            self._widen()
        else:
            n = self._file.readinto(self._out) // 2
            count = n if n < self._left else self._left
            if count <= 0:
                return False
            if self._shift and SHIFT[self.volume]:
                self._shift(buf=self._out, bits=16, shift=-SHIFT[self.volume])
        self._left -= count
        if count < self._chunk:
            self._fill(count, self._chunk - count, 0)  # silence after the clip's end
        return True

    def _widen(self):
        if framebuf:
            self._fb_out.blit(self._fb_raw, 0, 0, -1, self._fb_pal)
            return
        raw, out, pal = self._raw, self._out, self._palette
        for i in range(self._chunk):
            b = raw[i]
            out[2 * i] = pal[2 * b]
            out[2 * i + 1] = pal[2 * b + 1]

    def _fill(self, start, count, value):
        if framebuf:
            self._fb_out.fill_rect(start, 0, count, 1, value)
            return
        lo, hi = value & 0xFF, value >> 8
        for i in range(start, start + count):
            self._out[2 * i] = lo
            self._out[2 * i + 1] = hi

    def _tones(self):
        # A square wave, run by run: each run is one fill_rect, not a sample loop.
        filled = 0
        level = TONE_LEVEL * GAIN[self.volume]
        while filled < self._chunk:
            if self._step_left <= 0:
                self._step += 1
                if self._step >= len(self._steps):
                    if filled == 0:
                        return False
                    self._fill(filled, self._chunk - filled, 0)
                    return True
                freq, ms = self._steps[self._step]
                self._step_left = self.rate * ms // 1000
                self._half = self.rate // (2 * freq) if freq > 0 else 0
                self._phase = 0
            run = self._chunk - filled
            if run > self._step_left:
                run = self._step_left
            if self._half:
                in_half = self._half - self._phase % self._half
                if run > in_half:
                    run = in_half
                high = (self._phase // self._half) & 1 == 0
                self._fill(filled, run, level if high else (-level) & 0xFFFF)
            else:
                self._fill(filled, run, 0)
            self._phase += run
            self._step_left -= run
            filled += run
        return True
