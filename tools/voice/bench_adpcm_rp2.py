"""What playing an IMA ADPCM clip costs an RP2040: measured on the emulated Pico (tools/rp2).

rp2040py executes MicroPython's rp2 port (the image `make rp2-images` builds) instruction by
instruction at 125 MHz, and time.ticks_us on the chip follows its cycle count, so these are
cycle counts of the real code, not an estimate (flash cache misses are not modelled: a
board is somewhat slower, see tools/rp2/README.md). On the chip:

1. a clip's blocks are read from littlefs and decoded one by one by adpcm.decode_block
   (viper, armv6m), each decode timed;
2. the clip is played by the firmware's I2SPlayer on the real machine.I2S (PIO and DMA
   emulated; volume 6, so I2S.shift runs too), each block's work in the player (read,
   decode, shift, hand to the I2S) timed, while a loop sleeps 5 ms and polls the player
   as the clock's loop does.
Not measured: the CPU share during real-time playback. In rp2040py the I2S callbacks stop
coming after the first two or three buffers (a bare machine.I2S script does the same,
without goclock code), so the clip plays on the player's watchdog, a block every
STUCK_MS, and the elapsed time says nothing of a board. The cost of a block over the
31.6 ms of sound it holds gives the share instead.

Run: python -m tools.voice.bench_adpcm_rp2 [--image build/rp2/micropython.uf2] [--clip PATH]
"""

import argparse
import json
import os
import tempfile

from tools import ROOT
from tools.rp2 import emu, layout

MODULES = (
    "__init__.py",
    "audio/__init__.py",
    "audio/adpcm.py",
    "audio/wavhead.py",
    "audio/player_i2s.py",
    "core/__init__.py",
    "core/ticks.py",
)

MAIN = """
import json, time, machine
from goclockfw.audio import adpcm, player_i2s, wavhead

CLIP = "/clip.wav"
ticks_us, diff = time.ticks_us, time.ticks_diff

def spread(xs):
    xs = sorted(xs)
    return [xs[0], xs[len(xs) // 2], xs[-1]]

f = open(CLIP, "rb")
bits, rate, frames, align = wavhead.read_header(f)
block = bytearray(align)
out = bytearray(2 * adpcm.samples_per_block(align))
decodes = []
while True:
    n = f.readinto(block)
    if n <= 0:
        break
    t = ticks_us()
    adpcm.decode_block(block, n, out)
    decodes.append(diff(ticks_us(), t))
f.close()

i2s = machine.I2S(0, sck=machine.Pin(16), ws=machine.Pin(17), sd=machine.Pin(18),
                  mode=machine.I2S.TX, bits=16, format=machine.I2S.MONO, rate=rate, ibuf=4096)
feeds = [0] * 400
count = [0]

class Timed(player_i2s.I2SPlayer):
    def _feed(self):
        t = ticks_us()
        player_i2s.I2SPlayer._feed(self)
        if count[0] < 400:
            feeds[count[0]] = diff(ticks_us(), t)
            count[0] += 1

player = Timed(i2s, rate, volume=6)
ms = frames * 1000 // rate
t0 = time.ticks_ms()
player.play(CLIP)
while player.busy():
    time.sleep_ms(5)
    player.poll(time.ticks_ms())
played = time.ticks_diff(time.ticks_ms(), t0)
print(json.dumps({"frames": frames, "rate": rate, "clip_ms": ms, "played_ms": played,
                  "decode_us": spread(decodes), "blocks": len(decodes),
                  "feed_us": spread(feeds[: count[0]]), "feeds": count[0],
                  "stuck": player.stuck, "error": player.error}))
"""


def run(image, clip):
    with tempfile.TemporaryDirectory() as tmp:
        tree = os.path.join(tmp, "fs")
        src = os.path.join(ROOT, "firmware", "goclockfw")
        files = [(os.path.join(src, m), "/lib/goclockfw/" + m[:-3] + ".mpy") for m in MODULES]
        main = os.path.join(tmp, "main.py")
        with open(main, "w") as f:
            f.write(MAIN)
        files += [(main, "/main.py"), (clip, "/clip.wav")]
        layout.lay_out(files, tree, voice=None)
        pico = emu.boot_tree(image, tree)
        if not pico.run_until(lambda: pico.rx.rstrip().endswith(b"}"), 120):
            raise SystemExit("no result from the chip: %r" % bytes(pico.rx))
        text = pico.output().decode()
        return json.loads(text[text.rindex("{") :])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--image", default=os.path.join(ROOT, "build", "rp2", "micropython.uf2"))
    ap.add_argument("--clip", default=os.path.join(ROOT, "sounds", "zh", "timeout_pass.wav"))
    args = ap.parse_args(argv)
    r = run(args.image, args.clip)
    per_s = r["rate"] / 505  # blocks a second
    print(
        "clip: %s, %d samples (%d ms), %d blocks"
        % (args.clip, r["frames"], r["clip_ms"], r["blocks"])
    )
    print(
        "decode_block, one 505-sample block: min/median/max %d / %d / %d us" % tuple(r["decode_us"])
    )
    print("  = %.1f %% of one core at 16 kHz (median)" % (r["decode_us"][1] * per_s / 1e4))
    print(
        "player callback (read + decode + shift + write), %d calls: %d / %d / %d us"
        % ((r["feeds"],) + tuple(r["feed_us"]))
    )
    print(
        "  = %.1f %% of one core while a clip plays (median; a block is %.1f ms of sound)"
        % (r["feed_us"][1] * per_s / 1e4, 1000 / per_s)
    )
    print(
        "played in %d ms (clip %d ms); watchdog restarts %d; error %s"
        % (r["played_ms"], r["clip_ms"], r["stuck"], r["error"])
    )


if __name__ == "__main__":
    main()
