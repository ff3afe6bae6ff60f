"""Low-battery watch: the voltage is sampled now and then; under the threshold the clock says so once.

FIDE asks for a warning with at least 10 hours of running left after it, so
the threshold (config "battery_low_mv") is set high on the discharge curve.
One low reading is not enough: the voltage dips while the speaker plays, so
LOW_READINGS readings in a row must be under it. After a warning the watch
stays quiet until the voltage has come back REARM_MV above the threshold (a
fresh battery or a charger), so a worn battery is announced once, not every
minute. Pure logic: the board reads the ADC, the app speaks and logs.
"""

from goclockfw.core.ticks import ticks_diff

CHECK_MS = 10000
LOW_READINGS = 3
REARM_MV = 200


class BatteryWatch:
    def __init__(self, low_mv, check_ms=CHECK_MS):
        self.low_mv = low_mv  # 0: never warn
        self.check_ms = check_ms
        self.mv = None  # the last reading
        self.warned = False
        self._low = 0  # readings under the threshold in a row
        self._last = None
        self.present = True  # False once the board said it reads no battery (None)

    def due(self, now):
        return self._last is None or ticks_diff(now, self._last) >= self.check_ms

    def check(self, mv, now):
        """Take a reading (None: not wired); True exactly when the warning is due."""
        self._last = now
        self.mv = mv
        if mv is None:
            self.present = False  # not wired: the loop stops asking
            return False
        if not self.low_mv:
            return False
        if mv >= self.low_mv + REARM_MV:
            self.warned = False
        if mv < self.low_mv:
            self._low += 1
        else:
            self._low = 0
        if self._low >= LOW_READINGS and not self.warned:
            self.warned = True
            return True
        return False
