"""The desktop board: the firmware under the MicroPython unix port, on a PC.

Set up by environment variables (tools/termclock and the tests set them):

  GOCLOCK_FLASH       directory holding the flash image, flash.img (default ./sim-flash)
  GOCLOCK_BOARD_FILE  a board file (boards/*.json) whose "flash" geometry the image has
                      (default: the Pico's, 352 blocks of 4 KB, littlefs programs 256 B)
  GOCLOCK_FLASH_KB    a smaller flash than the board's: a nearly full flash in tests
  GOCLOCK_SERIAL_FD   file descriptor of the serial line: the master side of
                      a pty, opened non-blocking by the launcher (none: no line)
  GOCLOCK_KEYS_FD     where the keys come from (default 0, stdin)
  GOCLOCK_SOUNDS      directory of the voice packs (default <repo>/sounds)
  GOCLOCK_VIRTUAL     "1": virtual time, moved only by "!wait N" on the keys
  GOCLOCK_T0          first tick (e.g. just before the 2**30 wrap)
  GOCLOCK_BATTERY     file holding the battery voltage in mV (read each check)
  GOCLOCK_VIEW        "0": no view lines (the sim's screen) on stdout
  GOCLOCK_HELD        buttons held down at power-up, e.g. "left,right"
  GOCLOCK_CHIP        "rp2040" or "esp32": the chip's costs on the virtual clock (with
                      GOCLOCK_VIRTUAL=1; desktop/chipmodel.py): each flash erase and
                      program moves it on, the serial line is written as that chip's
                      board writes it, and the flash has that chip's board's geometry
                      unless GOCLOCK_BOARD_FILE says otherwise. "!chip" prints what the
                      model counted. (Also DesktopBoard(chip=...).)

Keys (one byte each; a line typed in a terminal works too): "a" taps the left
button, "l" the right one, space the arbiter key, "h" holds the arbiter key
down until the next "h", "q" quits. A tap is TAP_MS long (desktop/keys.py). Lines starting with
"!" are commands for scripts: "!down left|right|arbiter", "!up ...",
"!wait N" (virtual time: run the clock N ms, then print {"waited": tick}),
"!quit". The keys stream ending also quits.

The speaker, the display and the LED are JSON lines on stdout for the
launcher: {"play": clip path}, {"beep": steps}, {"view": {...}}, {"led": 0|1}.
tools/termclock plays the clips with the PC's audio player and draws the view.

The flash is a NOR flash image (flash.py) with the board's geometry, mounted with the
unix port's own littlefs (os.VfsLfs2) at /flash: the storage code runs exactly as on a
board, down to the raw programs of the log chunks.
"""

import json
import os
import select
import sys
import time

from goclockfw.app.buttons import ARBITER, CHANNEL_NAMES, LEFT, RIGHT
from goclockfw.board.base import Board, write_part
from goclockfw.core.ticks import TICKS_MAX, ticks_add, ticks_diff
from goclockfw.desktop.flash import NorFlash
from goclockfw.desktop.keys import KeyButtons
from goclockfw.desktop.parts import DesktopPlayer
from goclockfw.storage.fs import FS

KEYS = {ord("a"): LEFT, ord("l"): RIGHT, ord(" "): ARBITER}
MOUNT = "/flash"
# The Pico's flash file system (MicroPython rp2: 1408 KB of 4 KB blocks, programs of 256 B).
DEFAULT_FLASH = {"block_size": 4096, "blocks": 352, "progsize": 256, "readsize": 32}


def _env_int(name, default):
    v = os.getenv(name)
    try:
        return int(v) if v else default
    except ValueError:
        return default


def _repo_sounds():
    # <repo>/firmware/goclockfw/desktop/board.py -> <repo>/sounds
    here = __file__ if "/" in __file__ else "./" + __file__
    firmware = here.rsplit("/", 3)[0]
    return firmware + "/../sounds"


class DesktopBoard(Board):
    """The board interface (board/base.py) on a PC: keys for buttons, a pty for the serial
    line, a file for the flash, JSON lines on stdout for the speaker, the LED and the view."""

    family = "desktop"
    name = "desktop"
    has_console = True

    def __init__(self, chip=None):
        Board.__init__(self)  # the edge ring, the notices
        chip = chip or os.getenv("GOCLOCK_CHIP") or None
        self.flash, self.fs = _mount_flash(chip)
        self.sounds = os.getenv("GOCLOCK_SOUNDS") or _repo_sounds()
        self.virtual = os.getenv("GOCLOCK_VIRTUAL") == "1"
        self.view_on = os.getenv("GOCLOCK_VIEW") != "0"
        self._battery = os.getenv("GOCLOCK_BATTERY")
        self._battery_mv = None  # the last good reading of that file
        self._now = _env_int("GOCLOCK_T0", 0) & TICKS_MAX
        self._t0_real = time.ticks_ms()
        self._target = None  # virtual time: the tick "!wait" runs to
        held = (os.getenv("GOCLOCK_HELD") or "").split(",")  # held at power-up
        # A key taps its button; "h", "!down" and "!up" hold and let go.
        self.keys = KeyButtons(
            self.ring, [CHANNEL_NAMES.index(n) for n in held if n in CHANNEL_NAMES]
        )
        self._line = bytearray()  # a "!" command being read
        self._in_cmd = False
        self._one = bytearray(1)
        self._poll = select.poll()
        self._keys = open(_env_int("GOCLOCK_KEYS_FD", 0), "rb")
        self._poll.register(self._keys, select.POLLIN)
        self._serial = None
        fd = _env_int("GOCLOCK_SERIAL_FD", -1)
        if fd >= 0:
            self._serial = open(fd, "r+b")
            self._poll.register(self._serial, select.POLLIN)
        self._led = -1
        self.chip = None
        self._cut = False  # the chip's line took less than it was given
        if chip and not self.virtual:
            # The model moves a virtual clock: on the PC's own clock it would only stall.
            self.notices.append("GOCLOCK_CHIP=%s needs virtual time (GOCLOCK_VIRTUAL=1)" % chip)
        elif chip:
            from goclockfw.desktop.chipmodel import ChipModel

            self.chip = ChipModel(chip, self.ring, self._now)
            self.flash.on_op = self.chip.flash_op
        # As the chip's board: the ESP32's erases nothing while a clock runs (esp32board.py).
        self.erases_while_running = self.chip is None or self.chip.pio

    # ----- time ------------------------------------------------------------

    def ticks(self):
        if self.virtual:
            if self.chip is not None:
                self._now = self.chip.tick()  # flash costs moved it on
            return self._now
        # The unix port's ticks wrap at 2**62; core/ticks.py wants 2**30 like the boards.
        return ticks_add(self._now, time.ticks_diff(time.ticks_ms(), self._t0_real) & TICKS_MAX)

    def wait(self, ms):
        """Idle up to `ms`: sleeps on the keys and the serial line (virtual: jumps)."""
        if self.quit:
            return
        if self.virtual:
            if self._target is not None:
                now = self.ticks()
                left = ticks_diff(self._target, now)
                step = ms if ms < left else left
                step = step if step > 0 else 0
                if self.chip is not None:
                    self.chip.sleep(step)
                    self._now = self.chip.tick()
                else:
                    self._now = ticks_add(now, step)
                if ms > 0 and ticks_diff(self._now, self._target) >= 0:
                    # Reached once the loop would sleep: the passes it asks for at once
                    # (records held to write) run at the target's tick first.
                    self._target = None
                    self.console({"waited": self._now})
                return
            if self.chip is not None and self._cut:
                # Output waits behind the chip's line, which drained meanwhile (virtual
                # time stands still): come back at once for the next piece.
                self.chip.line_drained()
                self._cut = False
                return
            if ms <= 0:
                return  # another pass at once
            ms = 1000  # virtual time stands still until input comes
        if ms > 0:
            for _ in self._poll.ipoll(ms):
                break

    # ----- keys and buttons -------------------------------------------------

    def level(self, ch):
        return self.keys.level(ch)

    def poll_inputs(self, now):
        self.keys.release(now)
        # Keys are read one byte at a time, and not at all while "!wait" runs:
        # what follows a wait in a script happens after it.
        while self._target is None and self._keys is not None and self._ready(self._keys):
            try:
                n = self._keys.readinto(self._one)
            except OSError:
                n = 0
            if not n:
                self.quit = True  # the launcher is gone
                self._poll.unregister(self._keys)
                self._keys = None
                return
            self._key(self._one[0], now)

    def wake_ms(self, running, now):
        """Ms until a key tap lets its button go, or None: the desktop's wait returns at
        once when a key or a serial byte comes."""
        return self.keys.next_release_ms(now)

    def _ready(self, stream):
        for obj, _ev in self._poll.ipoll(0):
            if obj is stream:
                return True
        return False

    def _key(self, b, now):
        if self._in_cmd:
            if b == 10:
                self._in_cmd = False
                self._command(bytes(self._line).decode(), now)
                self._line = bytearray()
            elif len(self._line) < 200:
                self._line.append(b)
            return
        if b == 33:  # "!"
            self._in_cmd = True
            return
        ch = KEYS.get(b)
        if ch is not None:
            self.keys.tap(ch, now)
        elif b == ord("h"):
            self.keys.toggle(ARBITER, now)
        elif b == ord("q"):
            self.quit = True

    def _command(self, text, now):
        words = text.split()
        if not words:
            return
        cmd = words[0]
        arg = words[1] if len(words) > 1 else ""
        if cmd in ("down", "up") and arg in CHANNEL_NAMES:
            self.keys.hold(CHANNEL_NAMES.index(arg), cmd == "down", now)
        elif cmd == "wait" and self.virtual:
            try:
                ms = int(arg)
            except ValueError:
                ms = -1
            if ms >= 0:
                self._target = ticks_add(self._now, ms)
                if ms == 0:
                    self._target = None
                    self.console({"waited": self._now})
        elif cmd == "chip" and self.chip is not None:
            m = self.chip
            self.console(
                {
                    "chip": m.chip,
                    "erases": m.erases,
                    "programs": m.programs,
                    "flash_ms": m.flash_us // 1000,
                    "longest_stall_us": m.longest_stall_us,
                    "longest_pass_us": m.longest_pass_us,
                    "serial_blocking_bytes": m.serial_figures()[0],
                }
            )
        elif cmd == "quit":
            self.quit = True

    # ----- serial -------------------------------------------------------------

    def read_serial(self, buf):
        if self._serial is None:
            return 0
        n = 0
        while n < len(buf) and self._ready(self._serial):
            try:
                k = self._serial.readinto(self._one)
            except OSError:
                k = None
            if k is None:
                break
            if k == 0:  # the line is gone (EIO): stop listening, the clock goes on
                self._poll.unregister(self._serial)
                self._serial = None
                break
            buf[n] = self._one[0]
            n += 1
        return n

    def serial_send(self, buf, start, n):
        """Write what the line takes now of buf[start:start + n], without waiting; the
        count written."""
        if self.chip is not None:  # as the chip's board writes: board/mcu.py's serial_send
            from goclockfw.desktop.chipboard import SEND_PIECE, SEND_PIECE_USB, SEND_PIECES_USB

            sent = 0
            piece = SEND_PIECE_USB if self.chip.pio else SEND_PIECE  # the RP2040's larger
            for _ in range(SEND_PIECES_USB if self.chip.pio else 1):  # the RP2040's several
                if not self.chip.serial_ready():
                    break
                k = n - sent if n - sent < piece else piece
                took = self.chip.serial_write(k)
                sent += took
                if took < k or sent >= n:
                    break
            self._cut = sent < n
            n = sent
        if self._serial is None:
            return n  # no line: the bytes go nowhere, as on a board without a host
        try:
            n = write_part(self._serial, buf, start, n)
        except OSError:
            n = 0
        return n or 0

    def kbd_intr(self, enable):
        # Only reported, not done: on the unix port kbd_intr(-1) restores the
        # default SIGINT action, so a Ctrl-C in the terminal would then KILL
        # the process. The desktop's serial line is a raw pty, where Ctrl-C is
        # a plain byte the protocol refuses; a board calls micropython.kbd_intr.
        self.kbd = 3 if enable else -1
        self.console({"kbd_intr": self.kbd})

    # ----- the rest of the board ----------------------------------------------

    def console(self, obj):
        if not self.view_on and "view" in obj:
            return
        try:
            sys.stdout.write(json.dumps(obj))
            sys.stdout.write("\n")
        except OSError:
            pass  # nobody reads stdout: a clock does not care

    def set_led(self, on):
        on = 1 if on else 0
        if on != self._led:
            self._led = on
            if self.view_on:
                self.console({"led": on})

    def battery_mv(self):
        """The file's voltage. None means "no battery wired" and stops the watch for
        good, so a read that catches the file mid-write (empty, half a number) keeps
        the last good reading instead."""
        if not self._battery:
            return None
        try:
            with open(self._battery) as f:
                self._battery_mv = int(f.read().strip())
        except (OSError, ValueError):
            pass
        return self._battery_mv

    def ram_free(self):
        import gc

        gc.collect()
        return gc.mem_free()

    def make_player(self, rate, volume):
        return DesktopPlayer(self, volume)

    def close_player(self):
        pass

    def network(self, wifi=None):
        """The unix port's sockets (the config's wifi is skipped: the PC has its network);
        the socket is polled with the keys, so the broker's data ends a wait."""
        from goclockfw.net.socklink import SockLink

        return SockLink(self._poll)

    def close(self):
        self.flash.close()


def _board_flash(chip=None):
    path = os.getenv("GOCLOCK_BOARD_FILE")
    if not path and chip:  # the chip's board: boards/<board>.json beside firmware/
        from goclockfw.desktop.chipcosts import chip_costs

        path = "%s/../boards/%s.json" % (
            _repo_sounds().rsplit("/", 2)[0],
            chip_costs(chip)["board"],
        )
    geometry = dict(DEFAULT_FLASH)
    if path:
        try:
            with open(path) as f:
                geometry.update(json.load(f).get("flash", {}))
        except (OSError, ValueError, AttributeError):
            pass
    kb = _env_int("GOCLOCK_FLASH_KB", 0)
    if kb > 0:
        geometry["blocks"] = kb * 1024 // geometry["block_size"]
    return geometry


def _mount_flash(chip=None):
    """(flash, FS): the image in GOCLOCK_FLASH, formatted on first use, mounted at /flash."""
    import vfs  # MicroPython's file systems (1.23 and newer): its own littlefs

    folder = os.getenv("GOCLOCK_FLASH") or "sim-flash"
    try:
        os.mkdir(folder)
    except OSError:
        pass
    g = _board_flash(chip)
    flash = NorFlash(g["block_size"], g["blocks"], folder + "/flash.img")
    opts = {"progsize": g["progsize"], "readsize": g["readsize"]}
    try:
        fs = vfs.VfsLfs2(flash, **opts)  # type: ignore  # the stubs take it for a block device
    except OSError:
        vfs.VfsLfs2.mkfs(flash, **opts)  # type: ignore
        fs = vfs.VfsLfs2(flash, **opts)  # type: ignore  # the stubs take it for a block device
    try:
        vfs.umount(MOUNT)
    except OSError:
        pass
    vfs.mount(fs, MOUNT)
    return flash, FS(MOUNT)


def make_board(path=None, chip=None):
    return DesktopBoard(chip)
