"""Play voice clips (and beep patterns) through I2S, streaming from flash.

The board's hardware layer makes the `machine.I2S` object (TX, 16-bit, mono, at the
pack's sample rate) and hands it over; nothing here touches pins. The player puts the
I2S into non-blocking mode: each time a buffer has been taken, the I2S callback only
notes it, and the loop's next pass (`poll`, the announcer calls it every pass; the loop
comes back within wake.BUSY_MS while a clip plays) reads the next piece of the clip from
flash into the same preallocated buffer. So the clock's loop never waits for audio, and
no memory is allocated per piece. The I2S ring (2 KB on the Pico: 64 ms at 16 kHz) plays
on meanwhile. Not in the callback itself: it is scheduled, so it runs wherever the
interpreter is, at the bottom of the deepest call chain too, and a flash read and a
decode from there took the RP2040's 8 KB C stack past its end (tools/rp2/README.md).
Opening a clip's own file (a call, an event) allocates its file object and parses its
header (audio/wavhead.py); that is all, but for the first clip of 512-byte ADPCM blocks
(a larger output buffer) or of 8-bit PCM (the palette below), each made once.

Clips (audio/wavhead.py says which):
- IMA ADPCM, the shipped packs: one block (256 or 512 bytes) read per callback and
  decoded by audio/adpcm.py (viper) into 505 or 1017 16-bit samples; the clip ends after
  the `fact` chunk's count of samples (the last block is padding past it);
- PCM, a recorded pack: 8-bit (widened to 16-bit through a 256-entry palette: framebuf's
  blit does it in C, and the volume is folded into the palette) or 16-bit, `chunk`
  samples a callback.
16-bit and ADPCM clips take their volume from I2S.shift, in 6 dB steps. Patterns:
(freq_hz, ms) steps from audio/beep.py, as square waves.

A clip is a path (a WAV file of its own), or (at, frames) in the pack's clips file
(`use_pack`: the voice pack as `goclock voice push` leaves it, every clip in one file, the
manifest giving where each clip's samples start and how many there are, the pack's format
for all): that file is opened once and kept open, and a clip is then found by a seek, no
header read. Opening a file on the RP2040's littlefs costs 2.6-5 ms (its folder searched
by name) and reading a header 0.7 ms, more than a loop step may take with the rest.

A clip can be made ready ahead (`prepare`, at quiet moments: a call's clip before its
deadline), in two calls so that no one step does both halves: the first finds the clip
(a seek; a clip's own file is opened and its header read), the second decodes its first
block into the buffer the I2S takes.
`play()` of that clip then only hands the buffer over: a call starts in a fraction of a
millisecond instead of the 3-8 ms of opening a file on littlefs, reading its header and
decoding a block. Anything else the player is asked meanwhile drops what was ready.

`play()` cuts whatever is playing: a new call always wins over a late old one. A clip
that cannot be played is refused by play() (False, `error` says why: the announcer beeps
instead); a clip that fails half way (a flash read error) stops, silent, with `error`
set. Neither raises: nothing here may stop the clock.

A watchdog in `poll(now)`: the I2S callback is a scheduled one, and on an ESP32 a full
scheduler queue (a bounce storm while the loop was blocked) drops it; the player would
then wait for it forever, silent for the rest of the game. When a buffer has been out for
STUCK_MS, far longer than it takes to play, the callback is taken as lost and playback
goes on (`stuck` counts it).
"""

from goclockfw.audio.adpcm import decode_block, in_place, samples_per_block
from goclockfw.audio.wavhead import ADPCM, read_header
from goclockfw.core.ticks import ticks_diff

try:
    import framebuf
except ImportError:  # CPython (tests): the same results through slow Python loops
    framebuf = None

# Volume 0..10 as a gain in 1/256ths, about 3 dB a step; 0 is silence.
GAIN = (0, 11, 16, 23, 32, 45, 64, 91, 128, 181, 256)
# 16-bit and ADPCM clips can only be shifted: 6 dB steps.
SHIFT = (16, 5, 4, 4, 3, 3, 2, 1, 1, 0, 0)
TONE_LEVEL = 64  # square-wave amplitude per unit of gain (16384 at full volume)
# A buffer (32 ms of PCM, 32 or 64 ms of ADPCM, plus the I2S ibuf's 128 ms at 16 kHz) is
# long played by then.
STUCK_MS = 500
BLOCKS = (256, 512)  # the ADPCM block sizes (wavhead.ADPCM_BLOCKS): a buffer view each


class I2SPlayer:
    # (`opener` None means the builtin open: a default of `open` itself would keep the
    # class's dict out of flash on the frozen image, tools/rp2/patches/0008)
    def __init__(self, i2s, rate, chunk=512, volume=7, opener=None):
        self.rate = rate
        self.volume = 0
        self.error = None  # why the last clip was refused or stopped, for the log
        self._i2s = i2s
        self._open = open if opener is None else opener
        self._chunk = chunk
        # What goes to the I2S (16-bit samples): made for `chunk` samples and the shipped
        # packs' 256-byte ADPCM blocks (505 samples, 1010 bytes); the first clip of
        # 512-byte blocks (1017 samples) makes it larger (`_out_for`), once. An ADPCM block
        # is read into the tail of it and decoded in place (audio/adpcm.py says why that
        # is safe): no buffer of its own. What 8-bit samples are read into (`_raw`): made
        # for the first 8-bit clip, with its palette (`_make_palette`).
        # The views each kind of clip reads into and sends: made here (and by `_out_for`),
        # so that a callback never slices (a slice of a buffer is a new object).
        self._raw = None
        self._pcm_in = None
        self._src = None
        self._in_flight = False  # a buffer is with the I2S: its callback has not come yet
        self._retired = None  # an output buffer replaced while the I2S may still read it
        self._out_for(max(chunk, samples_per_block(BLOCKS[0])))
        # 8-bit sample -> 16-bit sample, volume included: made for the first 8-bit clip (a
        # recorded pack's; the shipped packs are ADPCM).
        self._palette = None
        self._shift = getattr(type(i2s), "shift", None)
        self._file = None
        self._pack = None  # the pack's clips file (`use_pack`), kept open
        self._pack_bits = 0  # its clips' format: bits (wavhead.ADPCM for ADPCM), block size
        self._pack_align = 0
        self._opened = None  # the clip `prepare` found (its first half), not primed yet
        self._ready = None  # the clip `prepare` opened and primed, not playing yet
        self._primed = False  # the buffer holds the first block of the clip, not yet sent
        self._left = 0  # samples of the clip still to send
        self._bits = 8  # of the clip playing: 8 or 16 (PCM), wavhead.ADPCM
        self._per_block = 0  # samples an ADPCM block decodes to
        self._steps = None  # a beep pattern instead of a clip
        self._step = 0
        self._step_left = 0
        self._half = 0  # samples per half wave of the current tone
        self._phase = 0
        self._busy = False
        self._sent_at = 0  # tick of the first poll that saw the buffer out
        self._stamped = True  # False: a buffer went out since the last poll
        self.stuck = 0  # callbacks taken as lost (the watchdog restarted playback)
        self.set_volume(volume)
        i2s.irq(self._on_sent)

    def _out_for(self, samples):
        """The output buffer for `samples` 16-bit samples, and the views of it."""
        if self._in_flight:
            self._retired = self._out  # the I2S reads it until its callback: kept till then
        self._out = bytearray(2 * samples)
        out = memoryview(self._out)
        self._pcm_out = out[: 2 * self._chunk]
        self._block_out = tuple(
            out[: 2 * samples_per_block(b)] if samples_per_block(b) <= samples else None
            for b in BLOCKS
        )
        self._block_in = tuple(
            in_place(self._out, b) if samples_per_block(b) <= samples else None for b in BLOCKS
        )
        self._send = self._pcm_out
        if framebuf:
            self._fb_out = framebuf.FrameBuffer(self._out, samples, 1, framebuf.RGB565)

    def _make_palette(self):
        self._raw = bytearray(self._chunk)
        self._pcm_in = memoryview(self._raw)
        self._palette = bytearray(512)
        if framebuf:
            self._fb_raw = framebuf.FrameBuffer(self._raw, self._chunk, 1, framebuf.GS8)
            self._fb_pal = framebuf.FrameBuffer(self._palette, 256, 1, framebuf.RGB565)
        self._fill_palette()

    def _fill_palette(self):
        g = GAIN[self.volume]
        pal = self._palette
        for b in range(256):
            v = ((b - 128) * g) & 0xFFFF
            pal[2 * b] = v & 0xFF
            pal[2 * b + 1] = v >> 8

    def set_volume(self, level):
        """Volume 0 (silent: nothing is played) to 10 (full)."""
        level = 0 if level < 0 else 10 if level > 10 else int(level)
        if level != self.volume and self._ready is not None:
            self.stop()  # the block made ready has the old volume in it
        self.volume = level
        if self._palette is not None:
            self._fill_palette()

    def busy(self):
        return self._busy

    def hungry(self):
        """The I2S has taken the last buffer and a clip plays on: `poll` feeds the next."""
        return self._busy and not self._in_flight

    def stop(self):
        """Stop at once; what the I2S already holds (its ibuf) still plays out."""
        self._busy = False
        self._steps = None
        self._ready = None
        self._opened = None
        self._primed = False
        f = self._file
        self._file = None
        if f is not None and f is not self._pack:
            f.close()

    def use_pack(self, path, bits=ADPCM, align=256):
        """Keep the pack's clips file at `path` open (None: no pack): (at, frames) clips
        are in it from now on, each of `bits` (8 or 16 for PCM, wavhead.ADPCM) and, for
        ADPCM, blocks of `align` bytes. False when it cannot be used (`error` says why)."""
        self.stop()
        if self._pack is not None:
            self._pack.close()
            self._pack = None
        if path is None:
            return True
        if not (bits == ADPCM and align in BLOCKS or bits in (8, 16) and not align):
            self.error = "clips of %d bits in blocks of %d bytes: not played" % (bits, align)
            return False
        try:
            self._pack = self._open(path, "rb")
        except OSError:
            self.error = "no clips file " + path
            return False
        self._pack_bits = bits
        self._pack_align = align
        return True

    def prepare(self, clip):
        """Make `clip` ready to start, when nothing plays, in two calls: the first finds
        it (a seek in the clips file; or opens its file and reads its header) (None: call
        again; also while a cut clip's last buffer is still with the I2S), the second
        decodes its first block (True: ready). False when it cannot
        be made ready now (something plays, the volume is 0) or at all (`error` says
        why). Costs what starting it would have."""
        if self._ready is not None and self._ready == clip:
            return True
        if self._busy or self.volume == 0:
            return False
        if self._in_flight:
            # A cut clip's last buffer: the I2S still copies it, and the clip made ready
            # is read and decoded into that same buffer. Call again after its callback.
            return None
        if self._opened is not None and self._opened == clip:
            if not self._first():
                self.stop()
                return False
            self._opened = None
            self._ready = clip
            return True
        self.stop()
        self.error = None
        if not self._open_clip(clip):
            self.stop()
            return False
        self._opened = clip
        return None

    def play(self, what):
        """Start a clip (a WAV's path, or (at, frames) in the clips file) or a beep
        pattern; True when it plays."""
        if self._ready is not None and what == self._ready:
            self._ready = None
            self._busy = True
            if not self._in_flight:
                self._feed()
            return True
        self.stop()
        self.error = None
        if self.volume == 0:
            return False
        if isinstance(what, str) or isinstance(what[0], int):  # a pattern: (freq, ms) steps
            if not self._open_clip(what):
                return False
        else:
            self._steps = what
            self._step = -1
            self._step_left = 0
            self._send = self._pcm_out
        self._busy = True
        if not self._in_flight:
            self._feed()
        return self._busy  # False when the first block could not be read: `error` says why

    def _first(self):
        # The clip's first buffer, made now and sent by the next _feed.
        try:
            more = self._block() if self._bits == ADPCM else self._samples()
        except Exception as exc:
            self.error = "clip stopped: %r" % exc
            more = False
        self._primed = more
        return more

    def _open_clip(self, clip):
        if not isinstance(clip, str):
            f = self._pack
            at, frames = clip
            if f is None:
                self.error = "no clips file for the clip at %d" % at
                return False
            try:
                f.seek(at)  # the manifest's format and length: no header to read
            except OSError as exc:
                self.error = "clip at %d: %s" % (at, exc)
                return False
            bits, align = self._pack_bits, self._pack_align
        else:
            try:
                f = self._open(clip, "rb")
            except OSError:
                self.error = "no clip " + clip
                return False
            try:
                bits, rate, frames, align = read_header(f)
                if rate != self.rate:
                    raise ValueError("%d Hz: the pack plays at %d Hz" % (rate, self.rate))
            except (ValueError, OSError) as exc:
                self.error = "%s: %s" % (clip, exc)
                f.close()
                return False
        self._file = f
        self._bits = bits
        self._left = frames
        if bits == ADPCM:
            i = BLOCKS.index(align)
            if self._block_out[i] is None:
                self._out_for(samples_per_block(align))
            self._src = self._block_in[i]
            self._send = self._block_out[i]
            self._per_block = samples_per_block(align)
        else:
            if bits == 8 and self._palette is None:
                self._make_palette()
            self._src = self._pcm_in
            self._send = self._pcm_out
        return True

    def poll(self, now):
        """Every loop pass: the next buffer sent once the I2S has taken the last one; and
        the watchdog: a buffer out for STUCK_MS means its callback was lost.

        The player reads no clock: a buffer's time is that of the first poll that sees it
        out (one loop pass after the write at most). Not the last poll's time: a call
        started after a long sleep would look stuck at once, and be written over."""
        if not self._in_flight:
            if self._busy:
                self._feed()
            return
        if not self._stamped:
            self._sent_at = now
            self._stamped = True
        elif ticks_diff(now, self._sent_at) >= STUCK_MS:
            self.stuck += 1
            self._in_flight = False
            if self._busy:
                self._feed()

    def _on_sent(self, _):
        # Called (scheduled, not in a hard IRQ) when the I2S has taken the last buffer: only
        # noted; the next `poll` sends the next one (the module's docstring says why).
        self._in_flight = False
        self._retired = None

    def _feed(self):
        try:
            if self._primed:  # made ahead by prepare
                self._primed = False
                more = True
            elif self._steps is not None:
                more = self._tones()
            elif self._file is None:
                more = False
            elif self._bits == ADPCM:
                more = self._block()
            else:
                more = self._samples()
        except Exception as exc:  # a flash read error under a clip, say
            # Run from the I2S callback and from the loop (play, poll): whatever a damaged
            # clip or flash does, the clock goes on, silent, and the log is told.
            self.error = "clip stopped: %r" % exc
            more = False
        if not more:
            self.stop()
            return
        self._in_flight = True
        self._stamped = False  # the next poll takes its time as the watchdog's reference
        self._i2s.write(self._send)

    def _block(self):
        # One ADPCM block from flash, decoded in place of the last one.
        if self._left <= 0:
            return False
        n = self._file.readinto(self._src)  # into the tail of the output buffer
        got = decode_block(self._src, n, self._out)
        count = got if got < self._left else self._left
        if count <= 0:
            return False
        self._left -= count
        if count < self._per_block:
            self._fill(count, self._per_block - count, 0)  # past the clip's end: silence
        if self._shift and SHIFT[self.volume]:
            self._shift(buf=self._send, bits=16, shift=-SHIFT[self.volume])
        return True

    def _samples(self):
        if self._left <= 0:
            return False
        if self._bits == 8:
            n = self._file.readinto(self._src)
            count = n if n < self._left else self._left
            if count <= 0:
                return False
            self._widen()
        else:
            n = self._file.readinto(self._send) // 2
            count = n if n < self._left else self._left
            if count <= 0:
                return False
            if self._shift and SHIFT[self.volume]:
                self._shift(buf=self._send, bits=16, shift=-SHIFT[self.volume])
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
