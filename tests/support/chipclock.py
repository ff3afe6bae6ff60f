"""The whole firmware on a chip model (CPython): games played through the real loop and session
on desktop/chipboard.py's board, with the chip's costs on a virtual timeline, and the figures
tests/test_chip_model.py asserts and tools/bench/chips.py prints.

The flash is a NorFlash with the board's geometry (boards/<board>.json "flash") under
littlefs-python with MicroPython's settings, so every erase littlefs or the log chunks ask
for is counted. The speaker is the firmware's I2SPlayer on the model's I2S (the real clips of
the voice pack, decoded block by block), the display app/screen.py on the model's SSD1306.
Presses are button edges at scripted µs; what a press was charged is what the command
layer's `press` was given.
"""

import json
import os
import sys

from goclockfw.app.buttons import LEFT, RIGHT, EdgeRing
from goclockfw.app.loop import Loop
from goclockfw.app.session import Session
from goclockfw.audio.player_i2s import I2SPlayer
from goclockfw.board.base import Board
from goclockfw.core.ticks import ticks_diff
from goclockfw.desktop.chipboard import SEND_PIECE, ChipBoard
from goclockfw.desktop.chipcosts import chip_costs
from goclockfw.desktop.chipmodel import ModelI2S
from goclockfw.desktop.flash import NorFlash
from goclockfw.storage.journal import RESERVE

from .lfs import lfs_fs  # relative: tools/bench/chips.py imports this as tests.support

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHIPS = ("rp2040", "esp32")
SIDES = ("black", "white")


def game_presses(moves, seed, long_every=7):
    """[(ms after the start, side)] of a game of `moves` moves: 2 to 28 s a move, every
    `long_every`-th one 31 to 58 s (into the calls of a 60 s byo-yomi period)."""
    import random

    rnd = random.Random(seed)
    out = []
    t = 0
    for i in range(moves):
        t += (
            rnd.randint(31000, 58000)
            if i % long_every == long_every - 1
            else rnd.randint(2000, 28000)
        )
        out.append((t, SIDES[i % 2]))
    return out


BYOYOMI = {"type": "byoyomi", "main": 60, "periods": 5, "period": 60}


def board_spec(chip):
    with open(os.path.join(REPO, "boards", chip_costs(chip)["board"] + ".json")) as f:
        return json.load(f)


def _screen_class():
    """app/screen.py's Screen on CPython: imported with a framebuf that draws nothing (only
    the pages it marks and sends matter to the model), then the stand-in is taken away."""
    if sys.implementation.name == "micropython":
        from goclockfw.app.screen import Screen

        return Screen
    import types

    fake = types.ModuleType("framebuf")
    fake.MONO_HLSB = fake.MONO_VLSB = 0

    class FrameBuffer:
        def __init__(self, *args):
            pass

        def fill(self, *args):
            pass

        fill_rect = text = blit = fill

    fake.FrameBuffer = FrameBuffer
    saved = sys.modules.get("framebuf")
    sys.modules["framebuf"] = fake
    try:
        from goclockfw.app.screen import Screen
    finally:
        if saved is None:
            del sys.modules["framebuf"]
        else:
            sys.modules["framebuf"] = saved
    return Screen


class ChipSessionBoard(Board):
    """The session's part of the board interface (board/base.py) on a chip model: the loop's
    part is desktop/chipboard.py's ChipBoard, which this hands the erases to."""

    def __init__(self, fs, flash, model, ibuf, board):
        Board.__init__(self)
        self.name = model.chip
        self.fs = fs
        self.flash = flash
        self.sounds = os.path.join(REPO, "sounds")
        self.model = model
        self.board = board
        self.erases_while_running = model.pio  # as board/esp32board.py says (RP2040: True)
        self.ibuf = ibuf
        self.i2s = None
        self.player = None
        self.storage_steps = []  # (µs, µs) of each storage step the board was told of

    def make_player(self, rate, volume):
        self.i2s = ModelI2S(self.model, rate, self.ibuf)
        self.player = I2SPlayer(self.i2s, rate, volume=volume)
        return self.player

    def ram_free(self):
        return 100000

    def erasing(self, on):
        if on:
            self.storage_steps.append((self.model.us, None))
        else:
            self.storage_steps[-1] = (self.storage_steps[-1][0], self.model.us)
        self.board.erasing(on)  # the model board's interrupts, as on the chip


class ChipClock:
    """One clock on chip `chip`: its session, loop, model board, and what was measured."""

    def __init__(self, chip, erase_max=False, display=True, t0_ms=0):
        self.chip = chip
        spec = board_spec(chip)
        g = spec["flash"]
        flash = NorFlash(g["block_size"], g["blocks"], page=chip_costs(chip)["page"])
        fs = lfs_fs(flash, g["progsize"], g["readsize"], cache=g.get("cache"))
        self.board = ChipBoard(chip, EdgeRing(), t0_ms, erase_max, display)
        self.model = m = self.board.model
        flash.on_op = m.flash_op
        self.flash = flash
        self.ports = ChipSessionBoard(fs, flash, m, spec["i2s"]["ibuf"], self.board)
        self.session = s = Session(self.ports, m.tick())
        if display:
            _screen_class()  # imported once, so that the loop finds it (framebuf or not)
        self.loop = Loop(self.board, s)
        self.redraw_us = 0  # the longest display step (I2C included)
        scr = self.loop.screen
        if scr is not None:
            step = scr.step

            def timed_step():
                t = self.model.us
                more = step()
                if self.model.us - t > self.redraw_us:
                    self.redraw_us = self.model.us - t
                return more

            scr.step = timed_step
        self.charged = []  # (side, tick) of every accepted press
        self.spares_at_start = None  # erased chunks ready when the first press was taken
        self.late = []  # per call: ms from its deadline to the first sound of its clip
        self.erase_log = []  # per erase: (clip playing, ms to the next deadline or None)
        self.flash_over_margin_ms = 0  # the longest pass whose flash time reached its margin
        self._first_erase = None
        self.presses = []  # (µs of the edge, side) scripted
        self._due = None
        self._wrap()
        m.on_flash = self._on_flash

    def _wrap(self):
        s = self.session
        press = s.commands.press
        say = s.announcer.say

        def button_press(side, tick=None):
            ok = press(side, tick)
            if ok:
                if not self.charged:  # the game's first press: its erased chunks then
                    self.spares_at_start = len(s.journal.spares)
                self.charged.append((side, s.now if tick is None else tick))
            return ok

        def announce(phrase, side, tick, now):
            m = self.model
            key = (side, tick)
            if key != self._due:  # the first phrase of a call: when its sound starts
                self._due = key
                due_us = (m.us // 1000 - ticks_diff(m.tick(), tick)) * 1000
                i2s = self.ports.i2s
                if i2s is not None:
                    i2s.onset_due = due_us
                    i2s.onsets = self.late
            say(phrase, side, tick, now)

        s.commands.press = button_press
        s.announcer.say = announce

    def _on_flash(self, kind, us):
        if kind != "erase":
            return
        s = self.session
        nd = s.clock.next_deadline()
        margin = None if nd is None else ticks_diff(nd, self.model.tick())
        self.erase_log.append((s.announcer.busy(), margin))
        if self._first_erase is None:
            self._first_erase = (self._margin_ms(s, self.model.tick()), self.model.flash_us)

    # ----- driving ----------------------------------------------------------------------

    def button(self, side):
        """The channel of `side`'s button (the config says which is whose)."""
        return LEFT if self.session._side_of[LEFT] == SIDES.index(side) else RIGHT

    def run_to_us(self, t_us):
        m = self.model
        while m.us < t_us:
            self._first_erase = None  # (ms then to what is due next, flash µs before it)
            self.loop._step()
            if self._first_erase is not None:
                margin, flash0 = self._first_erase
                spent = (m.flash_us - flash0) // 1000
                if margin is not None and spent >= margin and spent > self.flash_over_margin_ms:
                    self.flash_over_margin_ms = spent  # the pass's flash reached what was due

    @staticmethod
    def _margin_ms(s, now):
        """Ms to the next deadline, call or progress mark; None when nothing is due."""
        nd = s.clock.next_deadline()
        margin = None if nd is None else ticks_diff(nd, now)
        d = s.records.mark_due_ms(s.clock, now)
        if d >= 0 and (margin is None or d < margin):
            margin = d
        return margin

    def us_of(self, tick):
        """The µs of the timeline at which the chip's ticks_ms() reaches `tick`."""
        m = self.model
        return (m.us // 1000 + ticks_diff(tick, m.tick())) * 1000

    def run_ms(self, ms):
        self.run_to_us(self.model.us + ms * 1000)

    def ask(self, cmd, **args):
        line = json.dumps(dict(args, id=0, cmd=cmd)).encode()
        reply = json.loads(self.session.protocol.handle_line(line))
        assert reply["ok"], (cmd, reply)
        return reply

    def configure(self, time_control):
        self.ask("config.set", config={"time_control": time_control})
        self.ask("reset")
        self.run_ms(100)

    def play(self, presses, bounces=2, start_gap_ms=1000, host_stops_ms=None, start_hold_ms=500):
        """[(ms after the start, side)]: edges at those moments (the starter's press first,
        now + start_gap_ms, held `start_hold_ms`; the moves are 80 ms taps), then the game is
        run to its last press and a second more. The host stops reading at the first write
        shorter than a piece `host_stops_ms` after the start (when given): the FIFO is left
        with room for less than a piece, the worst moment for the next write."""
        m = self.model
        t0 = m.us + start_gap_ms * 1000
        starter = SIDES[1 - self.session.tc.first]
        script = [(0, starter)] + list(presses)
        for t, side in script:
            at = t0 + t * 1000 + 137  # not on a millisecond's edge
            hold = start_hold_ms if t == 0 else 80
            m.tap(at, self.button(side), hold_ms=hold, bounces=bounces)
            self.presses.append((at, side))
        self.run_to_us(t0 - 1000)
        self.reset_figures()  # the game's own costs, not those of setting it up
        if host_stops_ms is not None:
            self.run_to_us(t0 + host_stops_ms * 1000 + 137)
            send = self.board.serial_send

            def serial_send(buf, start, k):
                n = send(buf, start, k)
                if n % SEND_PIECE:  # a short write: the host stops reading there
                    m.host_reads(False)
                    self.board.serial_send = send
                return n

            self.board.serial_send = serial_send
        self.run_to_us(t0 + script[-1][0] * 1000 + 1000000)

    def reset_figures(self):
        self.model.reset_figures()
        self.redraw_us = 0
        self.flash_over_margin_ms = 0
        del self.erase_log[:]
        del self.late[:]

    # ----- figures ----------------------------------------------------------------------

    def press_errors(self):
        """Per press: ms between its edge and the tick it was charged (None: never charged)."""
        m = self.model
        got = list(self.charged)
        out = []
        for at, side in self.presses:
            want = m.tick_at(at)
            err = None
            for i in range(len(got)):
                if SIDES[got[i][0]] == side and abs(ticks_diff(got[i][1], want)) < 1000:
                    err = ticks_diff(got[i][1], want)
                    del got[i]
                    break
            out.append(err)
        return out

    def figures(self, moves):
        m = self.model
        i2s = self.ports.i2s
        player = self.ports.player
        errs = self.press_errors()
        late = sorted(self.late) or [0]
        blocking, serial_wait = m.serial_figures()
        return {
            "moves": moves,
            "spares_at_start": self.spares_at_start,
            "erases": m.erases,
            "erases_per_100_moves": m.erases * 100 / moves if moves else 0,
            "programs": m.programs,
            "longest_irq_off_ms": m.longest_flash_us / 1000,
            "longest_stall_ms": m.longest_stall_us / 1000,
            "longest_pass_ms": m.longest_pass_us / 1000,
            "pass_erases_max": m.pass_erases_max,
            "pass_flash_max_ms": m.pass_flash_max_us / 1000,
            "flash_over_margin_ms": self.flash_over_margin_ms,
            "redraw_max_ms": self.redraw_us / 1000,
            "press_error_max_ms": max(abs(e) for e in errs if e is not None) if errs else 0,
            "presses_lost": sum(1 for e in errs if e is None),
            "calls": len(self.late),
            "call_late_p99_ms": late[min(len(late) - 1, len(late) * 99 // 100)],
            "call_late_max_ms": late[-1],
            "underruns": (i2s.underruns if i2s else 0) + (player.stuck if player else 0),
            "audio_stuck": player.stuck if player else 0,
            "serial_blocking_bytes": blocking,
            "serial_max_block_ms": serial_wait / 1000,
            "events_dropped": self.session.out.dropped,
            "sched_max": m.sched_max,
            "sched_dropped": m.sched_dropped,
            "pio_lost": m.pio_lost,
            "erases_while_playing": sum(1 for busy, _ in self.erase_log if busy),
            "erase_min_margin_ms": min(
                [d for _, d in self.erase_log if d is not None] or [None], key=lambda d: d or 0
            ),
        }


# ----- the worst cases (tests/test_chip_model.py asserts them, tools/bench/chips.py prints them)


def whole_game(chip, moves, seed=5, erase_max=False):
    """A byo-yomi game of `moves` moves, a host watching (status events) and reading, the
    display on, every press bouncing twice (every erase 400 ms with `erase_max`): (clock,
    figures)."""
    c = ChipClock(chip, erase_max=erase_max)
    c.configure(BYOYOMI)
    c.ask("watch", on=True)
    c.play(game_presses(moves, seed))
    return c, c.figures(moves)


def press_during_erase(chip, erase_max=True, hold_ms=80, running=False):
    """A press half way through an erase: ms from its edge to the tick it was charged, or
    None when it was never charged. The game's first press, in an erase of the chunks a
    reset prepares; or (`running`) the mover's press in a running game whose erased chunks
    are down to the reserve (an emergency: it outgrew them), at its next erase."""
    c = ChipClock(chip, erase_max=erase_max, display=False)
    c.configure(BYOYOMI)  # the reset leaves chunks to prepare: erases while idle
    m = c.model
    side = SIDES[1 - c.session.tc.first]
    if running:
        c.play([])  # the starter's press: the first mover's clock runs
        side = SIDES[c.session.clock.turn]
        j = c.session.journal
        del j.spares[RESERVE:]  # the others are left aside: only the reserve is ready
    button = c.button(side)
    hit = []

    def on_flash(kind, us):
        if kind == "erase" and not hit:
            at = m.us + us // 2 + 137
            m.tap(at, button, hold_ms=hold_ms)
            hit.append(at)
            c.presses.append((at, side))

    m.on_flash = on_flash
    c.run_ms(5000)
    assert hit, "no erase"
    return c.press_errors()[-1]


def game_with_spares_ready(chip, moves, seed=5, erase_max=True):
    """whole_game, but started once the reset's SPARES_SETUP erased chunks are ready (the
    idle clock made them), every erase 400 ms: (clock, figures)."""
    c = ChipClock(chip, erase_max=erase_max)
    c.configure(BYOYOMI)
    c.ask("watch", on=True)
    j = c.session.journal
    for _ in range(120):  # 36 erases of 400 ms at most: well within 2 minutes
        if len(j.spares) >= j.setup_spares and not j.wants_work(False):
            break
        c.run_ms(1000)
    assert len(j.spares) >= j.setup_spares, len(j.spares)
    c.play(game_presses(moves, seed))
    return c, c.figures(moves)


def call_during_record(chip, calls=8):
    """The waiting side presses out of turn so that its "ignored" record is programmed in the
    very pass where the running side's call falls due (10 ms of debouncing after the edge):
    (clock, ms late of each call)."""
    c = ChipClock(chip)
    c.configure({"type": "byoyomi", "main": 0, "periods": 5, "period": 60})
    c.play([(2000, "black")])  # white starts, black moves, white's minute runs
    waiting = c.button("black")
    for _ in range(calls):  # 30, 40, 50, 55, 58 s, "1分"/"还剩4分", ...
        due = c.us_of(c.session.clock.next_deadline())
        c.model.tap(due - 10000 - 137, waiting, hold_ms=30)
        c.run_to_us(due + 20000)
    return c, list(c.late)


def host_stops_reading(chip, moves=40):
    """A watched game whose host stops reading 10 s in: (clock, figures)."""
    c = ChipClock(chip)
    c.configure(BYOYOMI)
    c.ask("watch", on=True)
    c.play(game_presses(moves, seed=9), host_stops_ms=10000)
    return c, c.figures(moves)


def storm(c, start_us, side):
    """1,000 bounces in a second on `side`'s button: an edge every ms, ending released."""
    m = c.model
    ch = c.button(side)
    for i in range(1000):
        m.edge(start_us + 1000 * i + 137, ch, 1 - (i & 1))


def storm_during_erase(chip):
    """A bounce storm that starts with an erase (of the chunks a reset prepares): the model."""
    c = ChipClock(chip, display=False)
    c.configure(BYOYOMI)
    m = c.model
    m.reset_figures()
    started = []

    def on_flash(kind, us):
        if kind == "erase" and not started:
            started.append(m.us)
            storm(c, m.us, "black")

    m.on_flash = on_flash
    c.run_ms(3000)
    assert started, "no erase after the reset"
    return m


def press_during_page(chip):
    """The running side's press lands at the start of the first I2C write of a display page's
    data (a whole page, 2.9 ms, or its first piece), just before a millisecond ends: ms from
    its edge to the tick charged (None: lost)."""
    c = ChipClock(chip)
    c.configure({"type": "byoyomi", "main": 0, "periods": 5, "period": 60})
    c.play([(2000, "black")])  # white's clock runs
    m = c.model
    send = m.i2c_write
    hit = []

    def i2c_write(n):
        if n > 3 and not hit and m.us % 1000 < 900:  # data, not a 3-byte command
            at = m.us - m.us % 1000 + 999  # the last µs of this millisecond
            m.tap(at, c.button("white"))
            hit.append(at)
        send(n)

    m.i2c_write = i2c_write
    c.run_ms(5000)
    assert hit, "no page sent"
    got = [t for side, t in c.charged if side == 1 and t - m.tick_at(hit[0]) > -1000]
    return got[-1] - m.tick_at(hit[0]) if got else None


def requests_while_host_stopped(chip, requests=20):
    """A watched game whose host stops reading but goes on asking ("status" each second),
    then reads again: (replies the host got, events dropped, the ids asked)."""
    c = ChipClock(chip, display=False)
    c.configure(BYOYOMI)
    c.ask("watch", on=True)
    c.play([(2000, "black")])
    got = bytearray()
    send = c.board.serial_send

    def serial_send(buf, start, k):
        n = send(buf, start, k)
        got.extend(bytes(buf[start : start + n]))
        return n

    c.board.serial_send = serial_send
    c.model.host_reads(False)
    pending = bytearray()

    def reader():  # as board/mcu.py's read_serial: HostLine's 256 bytes a pass at most
        if not pending:
            return None
        data = bytes(pending[:256])
        pending[:256] = b""
        return data

    c.board.reader = reader
    ids = list(range(1000, 1000 + requests))
    for i in ids:
        pending.extend(b'{"id":%d,"cmd":"status"}\n' % i)
        c.run_ms(1000)
    c.model.host_reads(True)
    c.run_ms(20000)
    replies = []
    for line in bytes(got).split(b"\n"):
        if line.startswith(b"{") and b'"id"' in line:
            replies.append(json.loads(line)["id"])
    return replies, c.session.out.dropped, ids
