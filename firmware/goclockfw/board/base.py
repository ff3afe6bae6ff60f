"""The board interface: everything the firmware asks of the hardware it runs on.

Every board is a `Board`: the RP2040 (board/rp2board.py) and the ESP32 (board/esp32board.py),
both through board/mcu.py; the desktop under the MicroPython unix port (desktop/board.py); a
web page under MicroPython's WebAssembly port (browser/board.py); the chip model's board
(desktop/chipboard.py); the tests' boards (tests/support/). The session
(app/session.py) uses a board's identity, storage and speaker; the loop (app/loop.py) its
time, inputs, serial line, display and LED. The loop calls these methods and reads these
attributes; it never asks whether a board has them, so a board leaves out a part by keeping
its default here, never by leaving the name out.

No `machine`, `rp2` or `esp32` here: the desktop and the browser board (MicroPython's
WebAssembly port has no `machine` module) subclass it too.

Must implement (a board has no clock without them):
  ticks()               the tick in ms, wrapping as core/ticks.py says (2**30)
  wait(ms)              idle up to `ms`; may return early (a byte, an edge); never longer
Usually implement:
  level(ch)             1 while the button of channel `ch` (app/buttons.py LEFT, RIGHT, ARBITER)
                        is pressed
  levels()              every channel's level at once, bit ch for channel ch: the loop
                        reads them every pass (the default asks `level` three times)
  poll_inputs(now)      every pass, before the edges are read: move edges the hardware
                        timed (a PIO FIFO) into `ring`, re-arm interrupts, read keys
  read_serial(buf)      request bytes waiting, read into `buf` (at most its length): the
                        count, 0 when none wait
  serial_send(buf, start, n)
                        write what the line takes now of buf[start:start + n], never
                        waiting; the count written (no slice is made: on the chip each
                        would allocate)
Optional parts, with their defaults (what a board without the part does):
  name, family          "board", "base": the board's name (in `info`) and its kind
  fs, flash             None: storage/fs.py FS over the flash's file system and the
                        block device under it (the game logs use it raw)
  sounds                "/sounds": the voice packs' directory; voices() lists them
  ring                  an EdgeRing (app/buttons.py) the interrupts fill; the loop drains it
  display               None, or an SSD1306-like driver (app/screen.py draws on it)
  notices               (): what could not be started (a pin, a display), logged at start
  quit                  False; True ends the loop (the desktop's "q"; a clock never quits)
  watch_serial          set by the loop each pass: False while no request may be read
                        (replies would not fit, app/hostline.py), so a board whose `wait`
                        sleeps on the serial line sleeps on without it
  serial_ring           6144: bytes of the serial output ring (app/outbuf.py), a reply's
                        room (REPLY_ROOM, 1024) and the event lines the line lags behind by;
                        a USB line that drains at full speed (the RP2040's) needs less
  erases_while_running  True; False where a press during a flash erase cannot be timed (the
                        ESP32's soft interrupts): a running game then erases only at its
                        reserve (storage/journal.py)
  has_console, console(obj)
                        False, nothing: the desktop's launcher output (the sim's screen)
  wake_ms(running, now) None; else the longest sleep this board's inputs allow (buttons
                        that wake nothing, a key tap to let go): one term of app/wake.py
  erasing(on)           nothing; told True before flash work that may erase and False
                        after it (the ESP32 turns its button interrupts off meanwhile)
  make_player(rate, volume), close_player()
                        None, nothing: the speaker (an audio/ player) for clips of `rate` Hz
  battery_mv()          None: the battery's voltage in mV (app/battery.py watches it)
  set_led(on)           nothing: the LED
  kbd_intr(enable)      nothing: may Ctrl-C on the serial line stop the firmware
  ram_free()            -1: free heap in bytes (after a collection), for `info`
  unique_id()           None: the chip's own unique id (bytes: machine.unique_id() on the
                        RP2040 and the ESP32), `info`'s `clock_id`; a board without one
                        gets an id made once and kept in flash (storage/identity.py)
  network(wifi)         None: the board's network link for the hall (net/socklink.py's
                        interface), asked only when the config has a network; `wifi` is
                        the config's {"ssid", "password"} or None. The desktop: the unix
                        port's sockets; a Pico W or an ESP32: net/wlan.py
  close()               nothing: release what the board holds (boot.py, at the end)
"""

from goclockfw.app.buttons import EdgeRing


def write_part(stream, buf, start, n):
    """stream.write(buf[start:start + n]) without making the slice where the stream takes
    an offset and a length (MicroPython's streams: write(buf, off, len)); a slice where it
    does not (CPython's files). What write returns."""
    try:
        return stream.write(buf, start, n)
    except TypeError:
        return stream.write(memoryview(buf)[start : start + n])


def take_pending(pending, buf):
    """Move up to len(buf) bytes from the front of the bytearray `pending` into `buf`; the
    count (`read_serial` of a board whose line's bytes arrive into a bytearray: the
    desktop's models, the browser's page, the tests)."""
    n = min(len(buf), len(pending))
    if n:
        buf[0:n] = pending[:n]
        pending[:n] = b""  # (MicroPython's bytearray has no `del` of a slice)
    return n


class Board:
    family = "base"
    name = "board"
    sounds = "/sounds"
    display = None
    quit = False
    virtual = False  # ticks move only when a test or script says so (the desktop's option)
    watch_serial = True
    serial_ring = 6144
    erases_while_running = True
    has_console = False

    def __init__(self, fs=None, flash=None):
        self.fs = fs
        self.flash = flash
        self.ring = EdgeRing()
        self.notices: list = []

    # ----- time -------------------------------------------------------------------------

    def ticks(self):
        raise NotImplementedError("a board must keep time")

    def wait(self, ms):
        pass

    # ----- buttons ----------------------------------------------------------------------

    def level(self, ch):
        return 0

    def levels(self):
        return self.level(0) | self.level(1) << 1 | self.level(2) << 2

    def poll_inputs(self, now):
        pass

    def wake_ms(self, running, now):
        return None

    # ----- serial line ------------------------------------------------------------------

    def read_serial(self, buf):
        return 0

    def serial_send(self, buf, start, n):
        return n  # no line: the bytes go nowhere, as on a board without a host

    def kbd_intr(self, enable):
        pass

    # ----- storage, sound, the rest -----------------------------------------------------

    def erasing(self, on):
        pass

    def make_player(self, rate, volume):
        return None

    def close_player(self):
        pass

    def voices(self):
        """The voice packs on the clock, by name."""
        import os

        try:
            return sorted(n for n in os.listdir(self.sounds) if not n.startswith("."))
        except OSError:
            return []

    def battery_mv(self):
        return None

    def set_led(self, on):
        pass

    def console(self, obj):
        pass

    def ram_free(self):
        return -1

    def unique_id(self):
        return None

    def network(self, wifi=None):
        return None

    def close(self):
        pass
