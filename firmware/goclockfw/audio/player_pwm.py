"""Play beep patterns on a buzzer driven by PWM.

The board's hardware layer makes the `machine.PWM` object and passes it in with its
millisecond clock (time.ticks_ms); nothing here touches pins at import. A pattern is a
tuple of (freq_hz, ms) steps from audio/beep.py, freq 0 being a rest. The clock's loop calls
`poll()` often (every few ms): a step ends on the first poll at or after its end, so a
pattern never blocks the loop and no step drifts (each end is counted from the pattern's
start, not from the poll that noticed it). Clips cannot be played here: `play(path)`
returns False, and the app uses beep.pattern(phrase) on buzzer boards.

Why no speech on PWM: a clip needs a new duty value 8000-16000 times a second. MicroPython
has no DMA path from a buffer to a PWM compare register that works on both boards, and its
timer callbacks are scheduled, not run at that rate; nor does a piezo buzzer render speech
intelligibly. Speech needs the I2S amplifier (audio/player_i2s.py).
"""

from goclockfw.core.ticks import ticks_diff

# Volume 0..10 as PWM duty (of 65535); a buzzer is loudest at 50 %, and hears duty
# roughly logarithmically.
DUTY = (0, 200, 400, 800, 1400, 2400, 4000, 7000, 12000, 20000, 32768)


class PwmPlayer:
    def __init__(self, pwm, clock, volume=7):
        self._pwm = pwm
        self._clock = clock
        self.volume = 0
        self.error = None  # never set: a buzzer has no clip to fail (the announcer asks)
        self._steps = None
        self._step = 0
        self._start = 0
        self._end = 0  # ms after the start at which the current step ends
        pwm.duty_u16(0)
        self.set_volume(volume)

    def set_volume(self, level):
        """Volume 0 (silent: nothing is played) to 10 (full)."""
        self.volume = 0 if level < 0 else 10 if level > 10 else int(level)

    def busy(self):
        return self._steps is not None

    def stop(self):
        self._steps = None
        self._pwm.duty_u16(0)

    def play(self, what):
        """Start a beep pattern; True when it plays (False for a clip path, or volume 0)."""
        self.stop()
        if self.volume == 0 or isinstance(what, str) or not what:
            return False
        self._steps = what
        self._step = 0
        self._start = self._clock()
        self._end = 0
        self._enter(0)
        return True

    def poll(self, now=None):
        """Advance the pattern to `now` (ms ticks; default: the clock). Call it often."""
        if self._steps is None:
            return
        if now is None:
            now = self._clock()
        elapsed = ticks_diff(now, self._start)
        while self._steps is not None and elapsed >= self._end:
            self._enter(self._step + 1)

    def _enter(self, index):
        steps = self._steps
        if index >= len(steps):
            self.stop()
            return
        self._step = index
        freq, ms = steps[index]
        if index == 0:
            self._end = ms
        else:
            self._end += ms
        if freq > 0:
            self._pwm.freq(freq)
            self._pwm.duty_u16(DUTY[self.volume])
        else:
            self._pwm.duty_u16(0)
