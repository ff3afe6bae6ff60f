"""What the RP2040 and ESP32 boards share: pins from the board file, serial over USB stdio.

`McuBoard` is the board interface (board/base.py) on a microcontroller with `machine`;
board/rp2board.py and board/esp32board.py add what differs (the arbiter key, the battery
ADC, the flash block device, the PIO edge timers, how the loop sleeps). The pin map is
data: /board.json, copied from boards/ by `make flash`. Anything missing or failing to
start (no amplifier, no display, no ADC) is left out with a notice (`notices`), never a
crash: the clock runs without it.

The player buttons are wired to GND with the internal pull-ups on, so a
pressed button reads 0; their edges (both ways) are timestamped in a hard
interrupt that only stores the tick into the EdgeRing (app/buttons.py).
"""

import json
import select
import sys
import time

import machine
import micropython

from goclockfw.app.buttons import ARBITER, LEFT, RIGHT
from goclockfw.board.base import Board
from goclockfw.storage.fs import FS

SEND_PIECE = 64  # bytes handed to the line per write (a UART's, a stock image's USB)
AUDIO_KEYS = ("audio", "i2s", "buzzer")  # what make_player reads of the pin map


def load_board_file(path="board.json"):
    """The pin map; an unreadable file gives {} (a clock without extras)."""
    try:
        with open(path) as f:
            data = json.load(f)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


class McuBoard(Board):
    family = "mcu"
    send_piece = SEND_PIECE  # bytes a write, at most (rp2board: more)
    send_pieces = 1  # writes a pass makes, each after a POLLOUT (rp2board: more)

    def __init__(self, spec):
        Board.__init__(self)  # the edge ring, the notices
        self.spec = spec
        self.name = spec.get("board", self.family)
        self.fs = FS("")
        self.flash = self._flash()  # the file system's block device: the log chunks use it raw
        self.sounds = spec.get("sounds", "/sounds")
        self.display = None
        self._pins: list = [None, None, None]
        self._armed = bytearray(3)  # a soft-interrupt pin is watched (see _setup_button)
        self._soft = bytearray(3)  # the pin's interrupt is a soft one
        self._has_soft = False  # ... for any pin
        self._handlers: list = [None, None, None]  # each pin's interrupt handler, kept
        self._led = None
        self._adc = None
        self._player = None
        self._i2s = None
        self._one = bytearray(1)
        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)
        self._poll_out = select.poll()
        self._poll_out.register(sys.stdout, select.POLLOUT)
        self._ipoll_in = self._poll.ipoll  # bound once: a read allocates nothing
        self._readinto = self._in.readinto
        self._any = getattr(self._in, "any", None)  # patch 0003's: the bytes waiting
        buttons = spec.get("buttons", {})
        if not isinstance(buttons, dict):
            self._note("buttons: %r is not an object of pins" % (buttons,))
            buttons = {}
        self._setup_button(LEFT, buttons.get("left"))
        self._setup_button(RIGHT, buttons.get("right"))
        self._setup_arbiter(spec.get("arbiter"))
        self._setup_led(spec.get("led"))
        self._setup_battery(spec.get("battery"))
        self._setup_display(spec.get("display"))
        # Only the audio's part is read again (make_player, at each voice pack): the rest of
        # the pin map (0.4 KB of dicts on an RP2040) goes back to the heap.
        self.spec = {k: spec[k] for k in AUDIO_KEYS if k in spec}

    # ----- time ------------------------------------------------------------

    def ticks(self):
        # RP2040 and ESP32 wrap ticks_ms at 2**30 already: core/ticks.py's period.
        return time.ticks_ms()

    def wait(self, ms):
        """Idle up to `ms`; interrupts and I2S callbacks still run meanwhile."""
        if ms > 0:
            time.sleep_ms(ms)

    # ----- buttons ---------------------------------------------------------

    def _note(self, text):
        self.notices.append(text)

    def _setup_button(self, ch, pin_id):
        if pin_id is None:
            return
        try:
            pin = machine.Pin(pin_id, machine.Pin.IN, machine.Pin.PULL_UP)
        except (ValueError, TypeError, OSError) as e:
            self._note("button %d on pin %r: %s" % (ch, pin_id, e))
            return
        self._pins[ch] = pin
        if ch != ARBITER and self._edge_timer(ch, pin):
            return  # timed by a state machine: no interrupt needed
        ring = self.ring
        ticks_ms = time.ticks_ms
        armed = self._armed

        # One closure per pin, made once: the handler allocates nothing.
        def on_edge(p):
            ring.put(ch, ticks_ms(), 1 - p.value())

        # A soft interrupt (the ESP32 has no hard ones) is served from MicroPython's
        # scheduler, whose queue holds 8: a bouncing button must not fill it (the I2S
        # callback would be dropped). So after its first edge the pin is not watched
        # until the loop has read the ring (`poll_inputs` arms it again); the loop's
        # level check sees what the bounce settled to.
        def on_edge_once(p):
            ring.put(ch, ticks_ms(), 1 - p.value())
            p.irq(handler=None)
            armed[ch] = 0

        trigger = machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING
        try:
            pin.irq(handler=on_edge, trigger=trigger, hard=True)
            self._handlers[ch] = on_edge
        except (TypeError, ValueError):
            pin.irq(handler=on_edge_once, trigger=trigger)  # a port without hard IRQs
            self._handlers[ch] = on_edge_once
            self._soft[ch] = 1
            self._has_soft = True
        armed[ch] = 1

    def _setup_arbiter(self, spec):
        # The BOOT button of ESP32 boards is a plain GPIO; the Pico overrides this.
        if isinstance(spec, int):
            self._setup_button(ARBITER, spec)

    def _edge_timer(self, ch, pin):
        """Give channel `ch` a hardware edge timer (RP2040: PIO); False where there is none."""
        return False

    def wake_ms(self, running, now):
        """The longest sleep the loop may take: a press is charged at its edge whatever
        the loop does, but what follows it (the other clock shown, the mover's calls cut)
        waits for the loop to wake, and the loop is not woken by a button."""
        return 20 if running else 100

    def level(self, ch):
        """1 while the button of channel `ch` is pressed."""
        pin = self._pins[ch]
        if pin is None:
            return 0
        return 1 - pin.value()

    def levels(self):
        """Every button's level, bit ch for channel ch (pins read directly: one call a pass)."""
        pins = self._pins
        v = 0
        if pins[0] is not None:
            v = 1 - pins[0].value()
        if pins[1] is not None:
            v |= (1 - pins[1].value()) << 1
        if pins[2] is not None:
            v |= (1 - pins[2].value()) << 2
        return v

    def poll_inputs(self, now):
        """Soft-interrupt pins disarmed by an edge are armed again (the ring was read)."""
        if not self._has_soft:
            return
        for ch in range(3):
            if self._soft[ch] and not self._armed[ch]:
                self._armed[ch] = 1
                trigger = machine.Pin.IRQ_FALLING | machine.Pin.IRQ_RISING
                self._pins[ch].irq(handler=self._handlers[ch], trigger=trigger)

    # ----- serial (USB stdio) ---------------------------------------------

    def read_serial(self, buf):
        """Bytes waiting on the USB line, read into `buf`: the count.

        A stdio read waits for every byte it is asked, so only what has arrived is asked
        for: with the count stdin's `any()` gives (the images this project builds,
        tools/rp2/patches/0003), one read; without it (a stock image), one byte at a time
        after a poll that says one is there (~30 us a byte on an RP2040), with bound
        methods and buffers looked up once."""
        cap = len(buf)
        any_ = self._any
        if any_ is not None:
            n = any_()
            if n > cap:
                n = cap
            return self._readinto(buf, n) if n > 0 else 0
        ipoll = self._ipoll_in
        readinto = self._readinto
        one = self._one
        n = 0
        while n < cap:
            for _ in ipoll(0):
                break
            else:
                break
            if not readinto(one):
                break
            buf[n] = one[0]
            n += 1
        return n

    def serial_send(self, buf, start, n):
        """Write what the line takes now of buf[start:start + n], without waiting; the
        count written.

        A host that stopped reading must not stall the loop: USB CDC on the Pico waits
        up to 500 ms for room, so only when the line says it has room, and only a
        `send_piece` at a time (what POLLOUT promises room for), is anything written, up
        to `send_pieces` of them; the session keeps the rest (app/outbuf.py). The stream's
        write(buf, offset, length) takes the piece without a slice of it being made."""
        sent = 0
        piece = self.send_piece
        for _ in range(self.send_pieces):
            ready = False
            for _ in self._poll_out.ipoll(0):
                ready = True
            if not ready:
                break
            k = n - sent
            if k > piece:
                k = piece
            # The raw stream: no "\n" -> "\r\n" cooking, the bytes of the line as they are.
            try:
                # (called, not bound to a name: `f = obj.write` makes a bound method object)
                written = self._out.write(buf, start + sent, k)
            except OSError:
                written = None  # no host listening: the bytes go nowhere, the clock goes on
            written = k if written is None else written
            sent += written
            if written < k or sent >= n:
                break
        return sent

    def _flash(self):
        """The block device of the flash file system (rp2board.py, esp32board.py say which)."""
        return None

    def kbd_intr(self, enable):
        micropython.kbd_intr(3 if enable else -1)

    # ----- LED, battery, RAM -----------------------------------------------

    def _setup_led(self, pin_id):
        if pin_id is None:
            return
        try:
            self._led = machine.Pin(pin_id, machine.Pin.OUT)
            self._led.value(0)
        except (ValueError, TypeError, OSError) as e:
            self._note("led %r: %s" % (pin_id, e))

    def set_led(self, on):
        if self._led is not None:
            self._led.value(1 if on else 0)

    def _setup_battery(self, spec):
        """Board specific: rp2board.py and esp32board.py make the ADC (and battery_mv)."""

    def ram_free(self):
        import gc

        gc.collect()  # what is really free, not what awaits collection
        return gc.mem_free()

    def unique_id(self):
        """The chip's own id: the RP2040's flash id, the ESP32's MAC (`info`'s `clock_id`)."""
        try:
            return machine.unique_id()
        except (AttributeError, OSError):
            return None

    # ----- display and sound -----------------------------------------------

    def _setup_display(self, spec):
        if not isinstance(spec, dict):
            return
        try:
            i2c = machine.I2C(
                spec.get("i2c_id", 0),
                sda=machine.Pin(spec["sda"]),
                scl=machine.Pin(spec["scl"]),
                freq=spec.get("freq", 400000),
            )
            addr = spec.get("addr", 0x3C)
            if addr not in i2c.scan():
                return  # no display wired: nothing to say (and no driver needed)
        except (KeyError, ValueError, TypeError, OSError) as e:
            self._note("display: %s" % e)
            return
        try:
            import ssd1306  # type: ignore[import-not-found]  # micropython-lib: mip install ssd1306

            self.display = ssd1306.SSD1306_I2C(128, 64, i2c, addr=addr)
        except ImportError:
            self._note("display: a display answers on I2C but the ssd1306 driver is not installed")
        except (ValueError, TypeError, OSError) as e:
            self._note("display: %s" % e)

    def make_player(self, rate, volume):
        """The speaker (I2S amplifier) or the buzzer (PWM) of the board file, or None."""
        self.close_player()
        audio = self.spec.get("audio", "none")
        try:
            if audio == "i2s":
                self._player = self._make_i2s(self.spec.get("i2s", {}), rate, volume)
            elif audio == "pwm":
                from goclockfw.audio.player_pwm import PwmPlayer

                pwm = machine.PWM(machine.Pin(self.spec["buzzer"]))
                self._player = PwmPlayer(pwm, self.ticks, volume)
        except (KeyError, ValueError, TypeError, OSError, AttributeError) as e:
            # AttributeError: an "i2s" entry that is not an object of pins
            self._note("audio %s: %s" % (audio, e))
            self._player = None
        return self._player

    def _make_i2s(self, spec, rate, volume):
        from goclockfw.audio.player_i2s import I2SPlayer

        self._i2s = machine.I2S(
            spec.get("id", 0),
            sck=machine.Pin(spec["sck"]),
            ws=machine.Pin(spec["ws"]),
            sd=machine.Pin(spec["sd"]),
            mode=machine.I2S.TX,
            bits=16,
            format=machine.I2S.MONO,
            rate=rate,
            ibuf=spec.get("ibuf", 4096),
        )
        return I2SPlayer(self._i2s, rate, volume=volume)

    def network(self, wifi=None):
        """Wi-Fi where the chip has it (a Pico W, an ESP32: MicroPython's `network.WLAN`),
        else None (a plain Pico: the bridge publishes for it). Asked only when the config
        has a network, so a clock without one imports nothing of it."""
        try:
            import network
        except ImportError:
            return None
        if not hasattr(network, "WLAN"):
            return None
        from goclockfw.net.wlan import WlanLink

        return WlanLink(network, wifi)

    def close_player(self):
        if self._player is not None:
            self._player.stop()
            self._player = None
        if self._i2s is not None:
            self._i2s.deinit()
            self._i2s = None
