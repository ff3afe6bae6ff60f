"""An emulated Raspberry Pi Pico running a real MicroPython image, driven in emulated time.

rp2040py (pinned in requirements-dev.txt) emulates the RP2040 instruction by instruction;
its clock is the count of emulated cycles at 125 MHz, so `time.ticks_us()` on the chip
and every figure measured here are the same on every run and every machine. This module
drives it synchronously through its Python API instead of its asyncio CLI: the test says
how much emulated time passes (`run_for`), or what to wait for (`run_until`), and stops
the chip at that exact cycle. Nothing depends on wall-clock speed.

What it adds to rp2040py:

- The USB host NAKs. rp2040py 0.3.6 completes every OUT transfer the chip arms at once,
  with 0 bytes when the host has nothing to send, so the chip takes a USB interrupt every
  ~10 us and never idles (half its cycles go into TinyUSB). `_NakHost` holds an armed OUT
  transfer until there are bytes for it, as a real host does.
- A host that stops reading (`host_reads(False)`): the chip's IN transfers on the CDC data
  endpoint wait armed, as a real host's NAKs leave them, until it reads again (rp2040py
  takes every one at once).
- Flash counters: every sector erase and page program the chip issues (`FlashCounter`).
- A littlefs image of the Pico's storage made from a directory tree, with the geometry
  MicroPython's rp2 port uses (`make_fs`), and the image read back after a run (`fs_image`)
  so a second `Pico` can boot from the same flash.
- The serial line as a byte pipe (`write`, `output`), or a pty (`--pty` on the CLI).

CLI: python -m tools.rp2.emu --image fw.uf2 --fs-dir DIR [--seconds 5] [--send LINE]...
         [--save-fs out.img] [--pty]
"""

import argparse
import os
import sys
import time

from littlefs import LittleFS
from littlefs.context import UserContext
from rp2040py.boards import BOARDS, build_rp2040_from_spec
from rp2040py.device.bootrom import BOOTROM_B1
from rp2040py.device.load_flash import load_uf2
from rp2040py.execute_batch import execute_batch
from rp2040py.memory_map import FLASH_START_ADDRESS
from rp2040py.peripherals.usb import EP0_IN_BUFFER_CONTROL, USB_BUF_CTRL_AVAILABLE
from rp2040py.simulator import Simulator
from rp2040py.usb.cdc import USBCDC
from rp2040py.utils.logging import ConsoleLogger, LogLevel

# The Pico's MicroPython storage (MicroPython 1.25, ports/rp2): rp2_flash.c puts it at the
# end of flash, MICROPY_HW_FLASH_STORAGE_BASE = PICO_FLASH_SIZE_BYTES (2 MiB, pico.h) -
# MICROPY_HW_FLASH_STORAGE_BYTES (1408 KiB, boards/RPI_PICO/mpconfigboard.h), in 4096-byte
# blocks (FLASH_SECTOR_SIZE). modules/_boot.py mounts it as VfsLfs2(bdev, progsize=256);
# extmod/vfs_lfs.c defaults readsize and lookahead to 32 and vfs_lfsx.c sets
# block_cycles = 100 and cache_size = min(block, 4 * max(read, prog)); lib/littlefs is
# v2.8, on-disk version 2.1.
FLASH_SIZE = 2 * 1024 * 1024
FS_BYTES = 1408 * 1024
FS_START = FLASH_SIZE - FS_BYTES  # 0xA0000
FS_BLOCK = 4096
FS_BLOCKS = FS_BYTES // FS_BLOCK  # 352
LFS_CONFIG = dict(
    block_size=FS_BLOCK,
    block_count=FS_BLOCKS,
    read_size=32,
    prog_size=256,
    lookahead_size=32,
    block_cycles=100,
    cache_size=1024,
    disk_version=0x00020001,
)
CPU_HZ = 125_000_000
VSYS_MV = 4800  # a Pico on USB power: 5 V less its Schottky diode's drop
NS_PER_CYCLE = 1e9 / CPU_HZ
PAGE = 256


def make_fs(tree=None, files=None):
    """A littlefs image (bytes, FS_BYTES long) holding the directory `tree` and/or `files`.

    `files` maps board paths ("/main.py") to bytes. Empty arguments give a formatted, empty
    filesystem, as MicroPython's first boot would make.
    """
    ctx = UserContext(buffsize=FS_BYTES)
    fs = LittleFS(context=ctx, mount=False, **LFS_CONFIG)
    fs.format()
    fs.mount()
    entries = dict(files or {})
    if tree:
        for dirpath, _dirs, names in os.walk(tree):
            for name in sorted(names):
                path = os.path.join(dirpath, name)
                rel = "/" + os.path.relpath(path, tree).replace(os.sep, "/")
                with open(path, "rb") as f:
                    entries.setdefault(rel, f.read())
    for dest in sorted(entries):
        parent = os.path.dirname(dest)
        if parent not in ("", "/"):
            fs.makedirs(parent, exist_ok=True)
        with fs.open(dest, "wb") as f:
            f.write(entries[dest])
    fs.unmount()
    return bytes(ctx.buffer)


def read_fs(image):
    """{board path: bytes} of every file in a littlefs image (e.g. after a run)."""
    ctx = UserContext(buffsize=FS_BYTES)
    ctx.buffer[:] = image
    fs = LittleFS(context=ctx, mount=True, **LFS_CONFIG)
    out = {}
    for top, _dirs, names in fs.walk("/"):
        for name in names:
            path = top.rstrip("/") + "/" + name
            with fs.open(path, "rb") as f:
                out[path] = f.read()
    fs.unmount()
    return out


class FlashCounter:
    """Counts the flash commands the chip completes: sector/block erases, page programs.

    Wraps rp2040py's SSI model (its JEDEC SPI-NOR emulation) at the point where a command
    takes effect (chip select released), so every erase and program MicroPython's
    rp2.Flash block device does is seen, whichever code path issued it. `fs_*` counts only
    those inside the littlefs storage region.
    """

    def __init__(self, ssi):
        self.erases = self.programs = self.fs_erases = self.fs_programs = 0
        self.erased_blocks = {}  # flash offset of each erased sector -> times erased
        # before(command, flash offset), if set, sees each erase and program before it
        # takes effect: a test can keep the flash as a power cut right then leaves it.
        self.before = None
        orig = ssi._apply_command

        def apply_command():
            buf = ssi._tx_buffer
            if buf and ssi._write_enabled and len(buf) >= 4:
                addr = (buf[1] << 16) | (buf[2] << 8) | buf[3]
                if self.before is not None and buf[0] in (0x02, 0x20, 0xD8):
                    self.before(buf[0], addr)
                in_fs = FS_START <= addr < FLASH_SIZE
                if buf[0] in (0x20, 0xD8):
                    self.erases += 1
                    self.fs_erases += in_fs
                    self.erased_blocks[addr & ~(FS_BLOCK - 1)] = (
                        self.erased_blocks.get(addr & ~(FS_BLOCK - 1), 0) + 1
                    )
                elif buf[0] == 0x02 and len(buf) > 4:
                    self.programs += 1
                    self.fs_programs += in_fs
            orig()

        ssi._apply_command = apply_command

    def snapshot(self):
        return {"erases": self.fs_erases, "programs": self.fs_programs}


class _NakHost:
    """The host side of the CDC data endpoints, NAKing OUT transfers while it has no bytes.

    rp2040py's USBCDC answers the chip's "OUT buffer armed" at once, with whatever its
    FIFO holds - 0 bytes when empty - and TinyUSB re-arms at once, so the chip is
    interrupted every ~10 us forever. Here an armed OUT transfer waits (a real host NAKs
    and retries) until `write()` has bytes for it. Control transfers on EP0 (line coding)
    still go to rp2040py's own handler.
    """

    def __init__(self, cdc):
        self.cdc = cdc
        self.usb = cdc.usb
        self.queue = bytearray()
        self.armed = None  # (endpoint, size) of an OUT transfer waiting for data
        self.armed_count = 0
        self.on_deliver = None  # called as bytes are handed to the chip
        self._orig_read = self.usb.on_endpoint_read
        self.usb.on_endpoint_read = self._on_read
        orig_reset = self.usb.on_reset

        def on_reset():
            self.armed = None
            if orig_reset:
                orig_reset()

        self.usb.on_reset = on_reset

    def _on_read(self, endpoint, size):
        if endpoint != self.cdc._out_endpoint or endpoint <= 0:
            self._orig_read(endpoint, size)
            return
        self.armed_count += 1
        self.armed = (endpoint, size)
        self._serve()

    def write(self, data):
        self.queue += data
        self._serve()

    def _serve(self):
        if self.armed is None or not self.queue:
            return
        endpoint, size = self.armed
        self.armed = None
        chunk = bytes(self.queue[:size])
        del self.queue[:size]
        if self.on_deliver is not None:
            self.on_deliver(chunk)
        self.usb.endpoint_read_done(endpoint, chunk)


class _HostReads:
    """The host side of the CDC data IN endpoint: reading, or not.

    rp2040py completes an IN transfer as soon as the chip arms it. While `reading` is
    False an armed transfer waits instead (the buffer stays AVAILABLE, as when a real host
    NAKs the IN tokens because its application stopped reading and its buffers are full);
    reading again completes the waiting ones in order. EP0 and OUT are not touched.
    """

    def __init__(self, cdc):
        self.cdc = cdc
        self.usb = cdc.usb
        self.reading = True
        self.waiting = []  # buffer-control offsets of IN transfers armed while not reading
        self._orig = self.usb.dpram_updated
        self.usb.dpram_updated = self._updated

    def _in_control(self):
        ep = self.cdc._in_endpoint
        return EP0_IN_BUFFER_CONTROL + 8 * ep if ep > 0 else None

    def _updated(self, offset, value):
        if (
            not self.reading
            and value & USB_BUF_CTRL_AVAILABLE
            and offset == self._in_control()
            and offset not in self.waiting
        ):
            self.waiting.append(offset)
            return
        self._orig(offset, value)

    def set_reading(self, reading):
        self.reading = reading
        if reading:
            dpram = self.usb.rp2040.usb_dpram
            waiting, self.waiting = self.waiting, []
            for offset in waiting:
                self._orig(offset, int.from_bytes(bytes(dpram[offset : offset + 4]), "little"))


class Pico:
    """One emulated Pico: a UF2 image in flash, a littlefs storage region, the USB serial.

    `fs` is the storage region's bytes (`make_fs(...)`, or `fs_image()` of an earlier run:
    a reboot); `romfs` a ROMFS partition's (romfs.py). Time only passes inside `run_for`/`run_until`; both count emulated time.
    """

    def __init__(self, image, fs=None, vsys_mv=VSYS_MV, romfs=None):
        self.mcu = build_rp2040_from_spec(BOARDS["pico"])
        self.sim = Simulator(rp2040=self.mcu)
        self.mcu.load_bootrom(BOOTROM_B1)
        self.mcu.logger = ConsoleLogger(LogLevel.ERROR)
        # VSYS on GPIO29 (ADC3) through the Pico's 1:3 divider, as the board reads its
        # battery (boards/pico.json). rp2040py's ADC reads 0 V unless told: the firmware
        # then warned of a low battery (a notice, its clip and record) about 30 s in.
        self.mcu.adc.channel_values[3] = vsys_mv * 4095 // (3 * 3300)
        load_uf2(os.fspath(image), self.mcu)
        if fs is not None:
            if len(fs) != FS_BYTES:
                raise ValueError("a storage image is %d bytes, not %d" % (FS_BYTES, len(fs)))
            self.mcu.flash[FS_START:FLASH_SIZE] = fs
        if romfs is not None:
            # The ROMFS partition's image (romfs.py), as `mpremote romfs deploy` leaves it:
            # only the plain image (build.py) has the partition, below the storage.
            from .build import ROMFS_BASE, ROMFS_BYTES

            if len(romfs) > ROMFS_BYTES:
                raise ValueError(
                    "a ROMFS image is %d B at most, not %d" % (ROMFS_BYTES, len(romfs))
                )
            self.mcu.flash[ROMFS_BASE : ROMFS_BASE + len(romfs)] = romfs
        self.cdc = USBCDC(self.mcu.usb_ctrl)
        self.host = _NakHost(self.cdc)
        self._host_in = _HostReads(self.cdc)
        self.flash = FlashCounter(self.mcu.ssi)
        self.host.on_deliver = self._on_deliver
        self.delivered = None  # (emulated ns, busy cycles) when bytes last reached the chip
        self.rx = bytearray()  # bytes from the chip not yet taken by `output()`
        self.connected = False
        self._until = None
        self._timed_out = False
        self.cdc.on_serial_data = self._on_data
        self.cdc.on_device_connected = self._on_connected
        # machine.reset() (a watchdog trigger): restart in place, flash kept, as on a board.
        self.mcu.watchdog.on_watchdog_trigger = self._on_watchdog
        self._stop_alarm = self.sim.clock.create_alarm(self._stop)
        self.mcu.core.pc = FLASH_START_ADDRESS  # rp2040py's boot: straight into boot2

    # ----- time ------------------------------------------------------------

    @property
    def now_ns(self):
        return int(self.sim.clock.nanos)

    @property
    def now_s(self):
        return self.sim.clock.nanos / 1e9

    @property
    def busy_cycles(self):
        """Cycles the core has executed (not asleep in WFI/WFE) since power-on."""
        return self.mcu.core.cycles

    def _stop(self):
        self._timed_out = True
        self.sim.stopped = True

    def _run(self):
        self.sim.stopped = False
        while not self.sim.stopped:
            execute_batch(self.sim, 1)

    def run_for(self, seconds):
        """Let `seconds` of emulated time pass."""
        self.run_until(None, seconds)

    def run_until(self, done, timeout):
        """Run until `done()` is true (checked as serial data arrives) or `timeout` emulated
        seconds have passed; returns whether `done()` held."""
        if done is not None and done():
            return True
        self._until = done
        self._timed_out = False
        self._stop_alarm.schedule(max(1, int(timeout * 1e9)))
        try:
            self._run()
        finally:
            self._stop_alarm.cancel()
            self._until = None
        if done is not None and done():
            return True
        if not self._timed_out:  # rp2040py stopped by itself (a BKPT: a hard fault)
            raise RuntimeError("the emulated chip stopped at pc=0x%08x" % self.mcu.core.pc)
        return done is None

    # ----- serial ------------------------------------------------------------

    def _on_data(self, data):
        self.rx += data
        if self._until is not None and self._until():
            self.sim.stopped = True

    def _on_deliver(self, _chunk):
        # The transfer completes rp2040py's fixed 10 us later: near enough for a latency.
        self.delivered = (self.now_ns, self.busy_cycles)

    def _on_connected(self):
        self.connected = True

    def write(self, data):
        """Send bytes to the chip over the USB serial line (delivered as the chip asks)."""
        self.host.write(bytes(data))

    def host_reads(self, reading):
        """The host reads the serial line (True: the default) or has stopped (False): the
        chip's USB writes then find no room once TinyUSB's FIFO is full."""
        self._host_in.set_reading(reading)

    def output(self):
        """The bytes the chip has sent since the last call."""
        out = bytes(self.rx)
        self.rx.clear()
        return out

    def text_until(self, marks, seconds=60):
        """What the chip prints (as text) until it holds one of `marks`, or `seconds` of
        emulated time have passed (run a second at a time)."""
        text = ""
        for _ in range(seconds):
            self.run_for(1.0)
            text += self.output().decode("utf-8", "replace")
            if any(m in text for m in marks):
                break
        return text

    # ----- flash ---------------------------------------------------------------

    def fs_image(self):
        """The storage region as it is now: boot another Pico from it to reboot."""
        return bytes(self.mcu.flash[FS_START:FLASH_SIZE])

    def romfs_image(self):
        """The ROMFS partition as it is now (what a Pico wrote there itself included):
        boot another Pico with it as `romfs` to reboot."""
        from .build import ROMFS_BASE, ROMFS_BYTES

        return bytes(self.mcu.flash[ROMFS_BASE : ROMFS_BASE + ROMFS_BYTES])

    def _on_watchdog(self):
        self.mcu.enter_reset(from_watchdog=True)
        self.mcu.leave_reset()


def boot_tree(image, tree):
    """A Pico booting `image` with the files of directory `tree` in its storage."""
    return Pico(image, make_fs(tree))


# ----- CLI ---------------------------------------------------------------------


def _pty_loop(pico, speed):
    """Serve the serial line on a pty, emulated time paced to at most `speed` x wall time."""
    import select
    import tty

    master, slave = os.openpty()
    tty.setraw(slave)
    print("serial line %s (Ctrl-C here to stop)" % os.ttyname(slave), flush=True)
    start_wall = time.monotonic()
    start_emu = pico.now_s
    try:
        while True:
            r, _, _ = select.select([master], [], [], 0)
            if r:
                pico.write(os.read(master, 1024))
            out = pico.output()
            if out:
                os.write(master, out)
            ahead = (pico.now_s - start_emu) / speed - (time.monotonic() - start_wall)
            if ahead > 0:
                time.sleep(min(ahead, 0.02))
            pico.run_for(0.005)
    except KeyboardInterrupt:
        pass
    finally:
        os.close(master)
        os.close(slave)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--image", required=True, help="the MicroPython UF2 (tools/rp2/build.py)")
    src = ap.add_mutually_exclusive_group()
    src.add_argument("--fs-dir", help="a directory tree for the storage (tools/rp2/layout.py)")
    src.add_argument("--fs", help="a storage image (FS_BYTES long) from --save-fs")
    ap.add_argument("--seconds", type=float, default=2.0, help="emulated seconds to run")
    ap.add_argument("--send", action="append", default=[], help="a line to send after boot")
    ap.add_argument("--save-fs", help="write the storage image here after the run")
    ap.add_argument("--pty", action="store_true", help="serve the serial line on a pty")
    ap.add_argument("--speed", type=float, default=1.0, help="--pty: emulated/wall time cap")
    args = ap.parse_args(argv)
    fs = None
    if args.fs_dir:
        fs = make_fs(args.fs_dir)
    elif args.fs:
        with open(args.fs, "rb") as f:
            fs = f.read()
    pico = Pico(args.image, fs)
    wall = time.monotonic()
    if args.pty:
        _pty_loop(pico, args.speed)
    else:
        pico.run_until(lambda: pico.connected, 1.0)
        for line in args.send:
            pico.write(line.encode() + b"\n")
        pico.run_for(args.seconds)
        sys.stdout.write(pico.output().decode(errors="replace"))
    print(
        "\n[emu] %.3f emulated s in %.1f wall s, cpu busy %.1f%%, flash erases %d programs %d"
        % (
            pico.now_s,
            time.monotonic() - wall,
            100.0 * pico.busy_cycles * NS_PER_CYCLE / max(1, pico.now_ns),
            pico.flash.fs_erases,
            pico.flash.fs_programs,
        ),
        file=sys.stderr,
    )
    if args.save_fs:
        with open(args.save_fs, "wb") as f:
            f.write(pico.fs_image())
    return 0


if __name__ == "__main__":
    sys.exit(main())
