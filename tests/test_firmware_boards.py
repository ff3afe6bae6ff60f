"""The boards of the RP2040 and the ESP32 (board/mcu.py, rp2board.py, esp32board.py) over fake hardware.

No board here: `machine`, `rp2` and `micropython` are stand-ins recording what
the layer asks of them, so the pin map of boards/*.json, the interrupt
handler, BOOTSEL sampling, the battery arithmetic and the USB line are
checked on CPython. (`make typecheck` checks the same files against the real
ports' stubs.)
"""

import importlib
import json
import os
import sys
import types

import pytest

from conftest import REPO
from goclockfw.app.buttons import ARBITER, LEFT, RIGHT, Debouncer
from goclockfw.board.edgetimer import COUNT_MASK


class FakePin:
    IN, OUT, PULL_UP = 0, 1, 2
    IRQ_FALLING, IRQ_RISING = 4, 8
    pins = {}

    def __init__(self, pin_id, mode=None, pull=None):
        if pin_id == 99:
            raise ValueError("invalid pin")
        self.id = pin_id
        self.mode = mode
        self.pull = pull
        self.level = 1
        self.handler = None
        self.hard = None
        self.counters = []  # pulse counters watching the pin (FakePCNT)
        FakePin.pins[pin_id] = self

    def value(self, v=None):
        if v is None:
            return self.level
        self.level = v

    soft_only = False  # an ESP32: Pin.irq(hard=True) is refused

    def irq(self, handler=None, trigger=0, hard=False):
        if hard and FakePin.soft_only:
            raise ValueError("hard IRQ not supported")
        self.handler = handler
        self.trigger = trigger
        self.hard = hard

    def init(self, mode=None, value=None, **kw):
        self.mode = mode
        if value is not None:
            self.level = value
        self.inits = getattr(self, "inits", 0) + 1

    def edge(self, level):
        if level == 0 and self.level == 1:
            for counter in self.counters:  # hardware: counts whatever the CPU does
                counter.falling_edge()
        self.level = level
        if self.handler is not None:  # a pin whose interrupt is off sees nothing
            self.handler(self)


class FakePCNT:
    """esp32.PCNT (MicroPython 1.26+): a pulse counter unit counting a pin's edges."""

    INCREMENT, IGNORE = 1, 0
    made = []

    def __init__(self, unit, pin=None, falling=0, rising=0, filter=0):
        self.unit, self.pin, self.falling, self.rising, self.filter = (
            unit,
            pin,
            falling,
            rising,
            filter,
        )
        self.count = 0
        self.running = False
        pin.counters.append(self)
        FakePCNT.made.append(self)

    def start(self):
        self.running = True

    def falling_edge(self):
        if self.running and self.falling == FakePCNT.INCREMENT:
            self.count += 1

    def value(self, value=None):
        old = self.count
        if value is not None:
            assert value == 0  # the only value PCNT.value() may set
            self.count = 0
        return old


class FakeStateMachine:
    """An rp2.StateMachine: records its set-up; the test puts the words its program pushes."""

    made = []
    fail = False

    def __init__(self, sm_id, prog, freq=None, in_base=None, jmp_pin=None):
        if FakeStateMachine.fail:
            raise ValueError("state machine in use")
        self.id, self.prog, self.freq = sm_id, prog, freq
        self.in_base, self.jmp_pin = in_base, jmp_pin
        self.words = []
        self.running = False
        FakeStateMachine.made.append(self)

    def active(self, on):
        self.running = bool(on)

    def rx_fifo(self):
        return len(self.words)

    def get(self):
        return self.words.pop(0)


class FakeADC:
    ATTN_11DB = 3

    def __init__(self, pin, atten=None):
        self.pin = pin
        self.atten = atten

    def read_u16(self):
        return 26000

    def read_uv(self):
        return 1_950_000


class FakePoll:
    def __init__(self, ready):
        self.ready = ready

    def register(self, obj, flags):
        pass

    def ipoll(self, timeout):
        return iter([(None, 1)] if self.ready() else [])


@pytest.fixture
def hw(monkeypatch):
    clock = {"ms": 1000}
    machine = types.SimpleNamespace(Pin=FakePin, ADC=FakeADC, I2C=None, PWM=None, I2S=None)
    rp2 = types.SimpleNamespace(
        bootsel=0,
        Flash=lambda: "the rp2 flash",
        PIO=types.SimpleNamespace(SHIFT_LEFT=0, JOIN_RX=2),
        asm_pio=lambda **kw: lambda func: ("assembled", func.__name__, kw),
        StateMachine=FakeStateMachine,
    )
    FakeStateMachine.made = []
    FakeStateMachine.fail = False
    rp2.bootsel_button = lambda: rp2.bootsel
    vfs = types.SimpleNamespace(label="vfs")
    partition = types.SimpleNamespace(TYPE_DATA=1, find=lambda kind, label: [vfs])
    esp32 = types.SimpleNamespace(Partition=partition)
    kbd = []
    micropython = types.SimpleNamespace(kbd_intr=kbd.append)
    monkeypatch.setitem(sys.modules, "machine", machine)
    monkeypatch.setitem(sys.modules, "rp2", rp2)
    monkeypatch.setitem(sys.modules, "esp32", esp32)
    monkeypatch.setitem(sys.modules, "micropython", micropython)
    for name in ("goclockfw.board.mcu", "goclockfw.board.rp2board", "goclockfw.board.esp32board"):
        sys.modules.pop(name, None)
    mods = types.SimpleNamespace(
        mcu=importlib.import_module("goclockfw.board.mcu"),
        rp2mod=importlib.import_module("goclockfw.board.rp2board"),
        esp32=importlib.import_module("goclockfw.board.esp32board"),
        rp2=rp2,
        kbd=kbd,
        clock=clock,
    )
    fake_time = types.SimpleNamespace(
        ticks_ms=lambda: clock["ms"] & 0x3FFFFFFF,
        ticks_us=lambda: (clock["ms"] * 1000 + clock.get("us", 0)) & 0x3FFFFFFF,
        sleep_ms=lambda ms: None,
    )
    monkeypatch.setattr(mods.mcu, "time", fake_time)
    monkeypatch.setattr(mods.rp2mod, "time", fake_time)
    line_in = bytearray()
    line_out = bytearray()
    room = {"ok": True}

    class In:
        def readinto(self, buf):
            buf[0] = line_in.pop(0)
            return 1

    class Out:
        def write(self, data, off=0, n=None):  # MicroPython's stream write(buf, off, len)
            line_out.extend(data[off : len(data) if n is None else off + n])
            return len(data) - off if n is None else n

    polls = [FakePoll(lambda: bool(line_in)), FakePoll(lambda: room["ok"])]
    # The first board made gets the line's polls; later ones a line that never has anything.
    monkeypatch.setattr(
        mods.mcu.select, "poll", lambda: polls.pop(0) if polls else FakePoll(lambda: False)
    )
    monkeypatch.setattr(
        mods.mcu,
        "sys",
        types.SimpleNamespace(
            stdin=types.SimpleNamespace(buffer=In()), stdout=types.SimpleNamespace(buffer=Out())
        ),
    )
    mods.line_in, mods.line_out, mods.room = line_in, line_out, room
    FakePin.pins = {}
    yield mods
    for name in ("goclockfw.board.mcu", "goclockfw.board.rp2board", "goclockfw.board.esp32board"):
        sys.modules.pop(name, None)


def board_file(name):
    with open(os.path.join(REPO, "boards", name + ".json")) as f:
        return json.load(f)


def test_pico_buttons_timed_by_pio_state_machines(hw):
    spec = board_file("pico")
    spec.pop("display")
    hw.clock["ms"] = 1000
    board = hw.rp2mod.Rp2Board(spec)
    left_sm, right_sm = FakeStateMachine.made
    assert (left_sm.id, right_sm.id) == (4, 5)  # PIO1: MicroPython's I2S 0 takes PIO0
    assert left_sm.in_base is FakePin.pins[14] and left_sm.jmp_pin is FakePin.pins[14]
    assert left_sm.freq == 20000 and left_sm.running
    assert left_sm.prog[0] == "assembled" and left_sm.prog[2]["fifo_join"] == 2
    assert FakePin.pins[15].handler is None  # no interrupt: the state machine times it
    # The right button goes down 2 s after the machines started; the CPU reads the word
    # 400 ms later (as after a flash erase): the edge keeps its own tick.
    steps = 20000  # 100 us each
    right_sm.words.append(COUNT_MASK - (steps + 2))  # bit 29 clear: went down
    hw.clock["ms"] = 3400
    board.poll_inputs(3400)
    deb = Debouncer()
    board.ring.drain(deb)
    deb.settle(RIGHT, 1, 3420)
    assert deb.pop() == 1 and deb.tick == 3000 and deb.channel == RIGHT
    right_sm.words.append((1 << 29) | (COUNT_MASK - (steps + 1502)))  # up, 150 ms later
    board.poll_inputs(3500)
    board.ring.drain(deb)
    deb.settle(RIGHT, 0, 3520)
    assert deb.pop() == 2 and deb.tick == 3150


def test_pico_pins_interrupts_and_bootsel(hw):
    spec = board_file("pico")
    spec.pop("display")  # no I2C here
    spec["edge_timer"] = False  # interrupts, as when no state machine is free
    board = hw.rp2mod.Rp2Board(spec)
    left, right = FakePin.pins[14], FakePin.pins[15]
    assert left.pull == FakePin.PULL_UP and right.pull == FakePin.PULL_UP
    assert left.hard is True and left.trigger == FakePin.IRQ_FALLING | FakePin.IRQ_RISING
    # A bouncing press of the right button: each edge is recorded with its tick and level.
    deb = Debouncer()
    for ms, level in ((2000, 0), (2001, 1), (2002, 0)):
        hw.clock["ms"] = ms
        right.edge(level)
    board.ring.drain(deb)
    assert board.level(RIGHT) == 1 and board.level(LEFT) == 0
    deb.settle(RIGHT, board.level(RIGHT), 2020)
    assert deb.pop() == 1 and deb.tick == 2000 and deb.channel == RIGHT
    # BOOTSEL has no interrupt: sampled by poll_inputs, at most every SAMPLE_MS, and by
    # the loop's sleep (`wait`, below): the loop need not wake for it.
    assert board.wake_ms(True, 0) is None
    hw.rp2.bootsel = 1
    board.poll_inputs(2030)
    assert board.level(ARBITER) == 1
    hw.rp2.bootsel = 0
    board.poll_inputs(2031)  # too soon: the last sample stands
    assert board.level(ARBITER) == 1
    board.poll_inputs(2050)  # a SAMPLE_MS (20 ms) later: read again
    assert board.level(ARBITER) == 0
    # The sleep: on the serial line, in steps of the sampling period (50 ms with no clock
    # running, 20 ms while one runs), looking at BOOTSEL and the edges after each step.
    clock = hw.clock
    steps = []

    def ipoll(ms):
        steps.append(ms)
        clock["ms"] += ms
        hw.rp2.bootsel = 1 if clock["ms"] >= clock.get("bootsel_at", 1 << 29) else 0
        return iter([])

    board._ipoll_in = ipoll
    assert board.wake_ms(False, 0) is None
    clock["ms"] = 3000
    board.wait(120)
    assert steps == [50, 50, 20] and clock["ms"] == 3120
    assert board.level(ARBITER) == 0
    # BOOTSEL goes down 30 ms into a sleep of a running clock: seen at the next sample.
    board.wake_ms(True, 0)
    steps.clear()
    clock["bootsel_at"] = 3150
    board.wait(1000)
    assert steps == [20, 20] and clock["ms"] == 3160 and board.level(ARBITER) == 1
    # An edge recorded by an interrupt ends the sleep at the next sample too.
    steps.clear()
    clock["ms"] = 4000
    left.edge(0)
    board.wait(1000)
    assert steps == [20] and clock["ms"] == 4020
    board.ring.drain(Debouncer())
    # A byte on the line ends it at once; while the loop reads no requests it sleeps on.
    board._ipoll_in = board._poll.ipoll
    hw.line_in.extend(b"x")
    board.wait(1000)
    assert clock["ms"] == 4020
    board.watch_serial = False
    slept = []
    hw.rp2mod.time.sleep_ms = lambda ms: (slept.append(ms), clock.update(ms=clock["ms"] + ms))
    board.wait(70)
    assert slept == [20, 20, 20, 10] and clock["ms"] == 4090
    hw.line_in.clear()
    # The LED, the battery (VSYS through 1:3 on GPIO29), the keyboard interrupt.
    board.set_led(1)
    assert FakePin.pins["LED"].level == 1
    assert board.battery_mv() == 26000 * 3300 * 3 // 65535
    board.kbd_intr(False)
    board.kbd_intr(True)
    assert hw.kbd == [-1, 3]


def test_esp32_boot_button_and_battery_divider(hw):
    spec = board_file("esp32-devkitc")
    spec.pop("display")
    board = hw.esp32.Esp32Board(spec)
    boot = FakePin.pins[0]
    assert boot.hard is True
    boot.edge(0)
    assert board.level(ARBITER) == 1
    assert board.battery_mv() == 1_950_000 * 2 // 1000
    # Its buttons interrupt, but wake no sleep: the loop looks every 20 ms while a clock runs.
    assert board.wake_ms(True, 0) == 20 and board.wake_ms(False, 0) == 100


def test_soft_interrupts_rest_after_an_edge_until_the_loop_reads(hw):
    """On a port without hard IRQs (the ESP32) a bouncing button could fill the scheduler
    queue: each pin takes one edge, then waits for the loop to read the ring."""
    FakePin.soft_only = True
    try:
        spec = board_file("esp32-devkitc")
        spec.pop("display")
        board = hw.esp32.Esp32Board(spec)
        left = FakePin.pins[32]
        assert left.hard is False
        for ms, level in ((1000, 0), (1001, 1), (1002, 0), (1003, 1), (1004, 0)):  # bounce
            hw.clock["ms"] = ms
            left.edge(level)
        deb = Debouncer()
        board.ring.drain(deb)
        assert deb.first[LEFT] == 1000 and deb.last[LEFT] == 1000  # one edge taken, 4 not
        assert left.handler is None
        board.poll_inputs(1010)  # the loop read the ring: the pin is watched again
        assert left.handler is not None
        deb.observe(LEFT, board.level(LEFT), 1010)  # the level the bounce settled to
        deb.settle(LEFT, board.level(LEFT), 1011)
        assert deb.pop() == 1 and deb.tick == 1000  # pressed, from the first edge
    finally:
        FakePin.soft_only = False


def test_esp32_sleep_ends_once_an_edge_waits(hw, monkeypatch):
    """An edge's pin is not watched until the loop reads the ring: the loop's sleep is cut
    into slices and ends after the one in which an edge came, well inside the debounce."""
    FakePin.soft_only = True
    try:
        spec = board_file("esp32-devkitc")
        spec.pop("display")
        board = hw.esp32.Esp32Board(spec)
        left = FakePin.pins[32]
        slept = []

        def sleep_ms(ms):
            slept.append(ms)
            if len(slept) == 3:
                left.edge(0)  # pressed during the third slice

        monkeypatch.setattr(
            hw.esp32, "time", types.SimpleNamespace(sleep_ms=sleep_ms, ticks_ms=lambda: 1000)
        )
        board.wait(100)
        assert slept == [5, 5, 5]
        board.wait(100)  # the edge still waits in the ring: no sleep at all
        assert slept == [5, 5, 5]
        board.ring.drain(Debouncer())
        board.poll_inputs(1000)
        board.wait(12)
        assert slept == [5, 5, 5, 5, 5, 2]
    finally:
        FakePin.soft_only = False


def test_esp32_button_interrupts_are_off_while_the_flash_may_erase(hw, monkeypatch):
    """A bouncing button during an erase must not queue a soft handler per edge: the board
    turns its interrupts off, then records a pin whose level changed meanwhile and watches
    the others again."""
    FakePin.soft_only = True
    try:
        spec = board_file("esp32-devkitc")
        spec.pop("display")
        board = hw.esp32.Esp32Board(spec)
        monkeypatch.setattr(
            hw.esp32, "time", types.SimpleNamespace(sleep_ms=None, ticks_ms=lambda: 1450)
        )
        left, right, boot = FakePin.pins[32], FakePin.pins[33], FakePin.pins[0]
        board.erasing(True)
        assert left.handler is None and right.handler is None and boot.handler is None
        for level in (0, 1, 0, 1, 0):  # a storm on the right button, ending pressed
            right.edge(level)
        left.edge(0)
        left.edge(1)  # a tap of the left one, wholly inside: not seen
        assert board.ring.head == board.ring.tail
        board.erasing(False)
        deb = Debouncer()
        board.ring.drain(deb)
        assert deb.pending[RIGHT] and deb.first[RIGHT] == 1450 and deb.level[RIGHT] == 1
        assert not deb.pending[LEFT]
        assert left.handler is not None and boot.handler is not None  # watched again
        assert right.handler is None  # as after an edge: until the loop has read the ring
        board.poll_inputs(1450)
        assert right.handler is not None
    finally:
        FakePin.soft_only = False


def test_esp32_a_tap_inside_an_erase_is_counted_by_the_pulse_counter(hw, monkeypatch):
    """Each button pin feeds a pulse counter (esp32.PCNT): a tap wholly inside the storage
    work, which no handler saw, is a press a debounce window before the work's end (not
    before its start) and a release at the end; a button that did nothing stays quiet."""
    FakePin.soft_only = True
    FakePCNT.made = []
    monkeypatch.setattr(hw.esp32.esp32, "PCNT", FakePCNT, raising=False)
    try:
        spec = board_file("esp32-devkitc")
        spec.pop("display")
        board = hw.esp32.Esp32Board(spec)
        assert [(c.unit, c.pin.id) for c in FakePCNT.made] == [(0, 32), (1, 33), (2, 0)]
        assert all(c.running and c.filter == 1023 for c in FakePCNT.made)
        assert not [n for n in board.notices if "PCNT" in n]
        now = {"ms": 1000}
        monkeypatch.setattr(
            hw.esp32, "time", types.SimpleNamespace(sleep_ms=None, ticks_ms=lambda: now["ms"])
        )
        left, right = FakePin.pins[32], FakePin.pins[33]
        left.edge(0)  # a press before the work: its handler records it, the pin rests
        left.edge(1)
        board.ring.drain(Debouncer())
        board.erasing(True)  # the left pin is not watched (its edge is unread): not counted
        right.edge(0)  # a bouncing 80 ms tap of the right button, wholly inside
        right.edge(1)
        right.edge(0)
        right.edge(1)
        now["ms"] = 1400  # a 400 ms erase
        board.erasing(False)
        deb = Debouncer()
        board.ring.drain(deb)
        deb.settle(RIGHT, board.level(RIGHT), 1420)
        assert deb.pop() == 1 and deb.channel == RIGHT and deb.tick == 1390  # pressed
        assert deb.pop() == 2 and deb.tick == 1400  # and let go
        assert deb.pop() == 0 and not deb.pending[LEFT]
        # A short storage step: the press is not dated before the step began.
        board.poll_inputs(1400)
        board.erasing(True)
        right.edge(0)
        right.edge(1)
        now["ms"] = 1405
        board.erasing(False)
        assert [board.ring.ticks[i] for i in range(board.ring.tail, board.ring.head)] == [
            1400,
            1405,
        ]
    finally:
        FakePin.soft_only = False


def test_esp32_without_a_pulse_counter_says_so(hw):
    """MicroPython before 1.26 has no esp32.PCNT: the board works as before and a notice
    says what it cannot do (a tap wholly inside an erase is lost)."""
    FakePin.soft_only = True
    try:
        spec = board_file("esp32-devkitc")
        spec.pop("display")
        board = hw.esp32.Esp32Board(spec)
        assert any("PCNT" in n for n in board.notices), board.notices
    finally:
        FakePin.soft_only = False


def test_pico_w_battery_reading_takes_the_radio_s_chip_select(hw):
    spec = board_file("pico-w")
    spec.pop("display")
    spec["battery"]["offset_mv"] = 300
    board = hw.rp2mod.Rp2Board(spec)
    assert board.battery_mv() == 26000 * 3300 * 3 // 65535 + 300
    cs = FakePin.pins[25]
    assert cs.mode == FakePin.OUT and cs.level == 1


def test_usb_line_reads_bytes_and_never_waits_to_write(hw):
    board = hw.mcu.McuBoard({"board": "bare"})
    buf = bytearray(256)
    assert board.read_serial(buf) == 0
    hw.line_in.extend(b'{"cmd": "info"}\n')
    assert board.read_serial(buf) == 16 and bytes(buf[:16]) == b'{"cmd": "info"}\n'
    ring = bytearray(b'..{"ok": true}..')
    assert board.serial_send(ring, 2, 12) == 12  # a piece of the output ring, no slice made
    assert bytes(hw.line_out) == b'{"ok": true}'
    long = b"x" * 200
    assert board.serial_send(long, 0, 200) == 64  # a USB packet at a time: never a long wait
    hw.room["ok"] = False
    assert board.serial_send(b"later", 0, 5) == 0  # no room: nothing written, the caller keeps it
    assert b"later" not in hw.line_out


def test_usb_line_reads_what_has_arrived_in_one_read_where_stdin_counts_it(hw):
    """An image with patch 0003 (tools/rp2/patches): stdin's any() says how many bytes
    wait; one readinto takes exactly those, never asking for one that has not come."""
    board = hw.mcu.McuBoard({"board": "bare"})
    asked = []

    def readinto(buf, n):
        asked.append(n)
        assert n <= len(hw.line_in)  # never more than has arrived: it would wait
        buf[0:n] = hw.line_in[:n]
        del hw.line_in[:n]
        return n

    board._any = lambda: len(hw.line_in)
    board._readinto = readinto
    buf = bytearray(16)
    assert board.read_serial(buf) == 0 and asked == []  # nothing waits: nothing read
    hw.line_in.extend(b'{"id":7,"cmd":"press","side":"black"}\n')
    assert board.read_serial(buf) == 16 and bytes(buf) == b'{"id":7,"cmd":"p'  # a buffer full
    assert board.read_serial(buf) == 16 and board.read_serial(buf) == 6
    assert asked == [16, 16, 6] and not hw.line_in


def test_the_pico_writes_packets_while_the_line_has_room_for_one(hw):
    """The Pico's line says writable only with room for a 256-byte piece (patch 0002): a
    pass writes up to SEND_PIECES_USB pieces, asking before each, and stops at the first no."""
    board = hw.rp2mod.Rp2Board({"board": "pico"})
    long = bytes(range(250)) * 6
    assert board.serial_send(long, 0, 1500) == 2 * 256  # the CDC's 512-byte FIFO (0006)
    assert bytes(hw.line_out) == long[:512]
    asked = []

    def room():
        asked.append(1)
        return len(asked) <= 1  # room for one piece, then none

    hw.room["ok"] = True
    board._poll_out = FakePoll(room)
    assert board.serial_send(long, 512, 988) == 256 and len(asked) == 2
    assert bytes(hw.line_out) == long[:768]
    assert board.serial_send(b"tail", 0, 4) == 0  # no room: nothing written
    # The ESP32's UART polls writable whatever its FIFO holds: one packet a pass there.
    assert hw.esp32.Esp32Board({"board": "esp32"}).send_pieces == 1


def test_each_family_hands_over_its_flash_block_device(hw):
    assert hw.rp2mod.Rp2Board({"board": "pico"}).flash == "the rp2 flash"
    assert hw.esp32.Esp32Board({"board": "esp32"}).flash.label == "vfs"


def test_missing_or_bad_parts_are_notices_not_crashes(hw):
    board = hw.mcu.McuBoard({"buttons": {"left": 99, "right": 15}, "led": 99})
    assert any("button 0" in n for n in board.notices)
    assert any("led" in n for n in board.notices)
    assert board.level(LEFT) == 0  # no pin: never pressed
    board.set_led(1)  # no LED: nothing happens
    assert board.battery_mv() is None
    assert board.make_player(8000, 7) is None  # "audio" not given: silent


def test_board_file_of_wrong_shapes_gives_notices_not_a_crash(hw):
    board = hw.mcu.McuBoard({"buttons": [14, 15], "audio": "i2s", "i2s": [16, 17, 18]})
    assert any("buttons" in n for n in board.notices)
    assert board.level(LEFT) == 0 and board.level(RIGHT) == 0
    assert board.make_player(8000, 7) is None
    assert any("audio i2s" in n for n in board.notices)


def test_unreadable_board_file_gives_a_bare_board(hw, tmp_path):
    bad = tmp_path / "board.json"
    bad.write_text("{not json")
    assert hw.mcu.load_board_file(str(bad)) == {}
    assert hw.mcu.load_board_file(str(tmp_path / "none.json")) == {}


def test_pico_without_a_display_says_nothing_about_one(hw):
    """boards/pico.json names a display; a Pico with none wired (nothing answers at its
    address) starts without a notice, and without the ssd1306 driver. Only a display that
    answers while the driver is missing is worth a notice."""
    answering = []

    class FakeI2C:
        def __init__(self, i2c_id, sda=None, scl=None, freq=None):
            self.freq = freq

        def scan(self):
            return list(answering)

    hw.mcu.machine.I2C = FakeI2C
    board = hw.rp2mod.Rp2Board(board_file("pico"))
    assert board.display is None
    assert board.notices == []
    answering.append(0x3C)
    board = hw.rp2mod.Rp2Board(board_file("pico"))
    assert board.display is None
    assert [n for n in board.notices if "ssd1306" in n] == [
        "display: a display answers on I2C but the ssd1306 driver is not installed"
    ]
