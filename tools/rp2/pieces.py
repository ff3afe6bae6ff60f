"""The press path's pieces, each timed alone on the emulated Pico (no timers wrapped in).

`measure.py --time` wraps functions in timers, which allocate (their *args): on a heap
the probe has just collected, the first allocation of a press scans the block table and
costs a millisecond or more, so nested timings grow. Here a /main.py of its own (never
deployed) boots the firmware as goclockfw/boot.py does (the real Rp2Board, the Loop and
its Session), starts a game, then times each piece of a press many times over with
`time.ticks_us()` and `gc.mem_alloc()` around it, nothing else in between, and prints one
JSON line per piece: mean microseconds and bytes allocated per call.

    python -m tools.rp2.pieces [--layout mpy|frozen] [--image UF2] [--repeat 20]
"""

import argparse
import json
import os
import sys
import tempfile

from . import build, client, emu, layout

MAIN = r"""
import gc, sys, time, json
from goclockfw.boot import make_board
from goclockfw.app.loop import Loop

REPEAT = %(repeat)d
board = make_board()
loop = Loop(board)
s = loop.session
c = s.commands
p = s.protocol
out = s.out
s.store.config["time_control"] = {"type": "byoyomi", "main": 3600, "periods": 5, "period": 30}
now = board.ticks()
c.reset()
c.press(1, now)  # Black's clock runs
for _ in range(3):
    now = board.ticks()
    c.press(s.clock.turn, now)
    out.used = 0
    out.head = 0


def drain():
    out.used = 0
    out.head = 0


def timed(name, f, setup=None, per=1):
    # `f` REPEAT times, the heap collected before; the mean per call and the bytes it kept.
    gc.collect()
    a0 = gc.mem_alloc()
    total = 0
    for _ in range(REPEAT):
        if setup is not None:
            setup()
        t = time.ticks_us()
        f()
        total += time.ticks_diff(time.ticks_us(), t)
    alloc = gc.mem_alloc() - a0
    print(json.dumps({"piece": name, "us": total // (REPEAT * per), "alloc": alloc // REPEAT}))


line = bytearray(b'{"id":7,"cmd":"press","side":"black"}')
n = len(line)
ev = s.journal.lines
clock = s.clock
j = s.journal


def press_pair():
    # Two presses (Black, White) through the command layer: the core, records, events.
    t = board.ticks()
    c.press(clock.turn, t)
    c.press(clock.turn, t)
    drain()


def request():
    p._request(line, n)
    p._release()


def feed_pair():
    # Two whole request lines through the serial line's feed (parse, command, reply, ring).
    t = board.ticks()
    side = b"black" if clock.turn == 0 else b"white"
    l1 = b'{"id":7,"cmd":"press","side":"%%s"}\n' %% side
    s.line.feed(l1, t)
    side = b"black" if clock.turn == 0 else b"white"
    l2 = b'{"id":8,"cmd":"press","side":"%%s"}\n' %% side
    s.line.feed(l2, t)
    drain()


lines_b = [b'{"id":7,"cmd":"press","side":"black"}\n', b'{"id":8,"cmd":"press","side":"white"}\n']


def feed_prepared():
    t = board.ticks()
    s.line.feed(lines_b[clock.turn], t)
    s.line.feed(lines_b[clock.turn], t)
    drain()


def quiet_pass():
    loop._step()


def session_step():
    s.step(board.ticks())


def status_event():
    p.watching = True
    p.status_event()
    p.watching = False
    drain()


def nothing():
    pass


def nothing4(a, b, c, d):
    pass


class K:
    def m(self, a):
        pass


k_obj = K()
from goclockfw.bytesops import copy, crc32, fill  # noqa: E402
from goclockfw.jsontext import put_int  # noqa: E402

big = bytearray(512)


def loop1000():
    i = 0
    while i < 1000:
        i += 1


timed("calibrate: 100 empty calls", lambda: [nothing() for _ in range(100)], per=100)
timed("calibrate: 100 calls of 4 args", lambda: [nothing4(1, 2, 3, 4) for _ in range(100)], per=100)
timed("calibrate: 100 method calls", lambda: [k_obj.m(1) for _ in range(100)], per=100)
timed("calibrate: bytecode loop, per 1000", loop1000)
timed("calibrate: viper copy 0 B", lambda: copy(big, 0, big, 0, 0))
timed("calibrate: viper copy 256 B", lambda: copy(big, 0, big, 256, 256))
timed("calibrate: viper fill 512 B", lambda: fill(big, 0, 512, 255))
timed("calibrate: viper crc32 100 B", lambda: crc32(big, 100, big, big))
timed("calibrate: viper put_int 1234567", lambda: put_int(big, 0, 1234567))
timed("request: scan_flat + dict", request)
timed("reply: accepted", lambda: p._reply(b'"accepted":true', 7))
timed("reply: status", lambda: p._reply(b"", 7))
timed("status event", status_event)
timed("clock event (template)", lambda: ev.clock_event(clock, "press", 0, 65000, now, 1500))
def one_event():
    ev.clock_event(clock, "press", 0, 65000, now, 1500)


def event_and_record():
    ev.clock_event(clock, "press", 0, 65000, now, 1500)
    j.append_event("press", 65000)


timed("clock event and its record", event_and_record)
timed("seal", lambda: j.lines.seal(j._crc), one_event)
timed("program 150 B", lambda: j.pool.program(j._chunk, 3000, ev.buf, 150))
timed("out.put 120 B", lambda: out.put(ev.buf, 120), drain)
timed("press (command layer), per press", press_pair, per=2)
timed("feed a press line, per press", feed_prepared, per=2)
timed("session step", session_step)
from goclockfw.app import wake  # noqa: E402

deb = s.deb
inbuf = s.line.inbuf


def channels():
    deb.look(board.levels(), board.ticks())


timed("pass: poll_inputs", lambda: board.poll_inputs(board.ticks()))
timed("pass: ring.drain", lambda: board.ring.drain(deb))
timed("pass: the buttons' levels looked at", channels)
timed("pass: line.receive (nothing)", lambda: s.line.receive(board, board.ticks()))
timed("pass: read_serial (nothing)", lambda: board.read_serial(inbuf))
timed("pass: gestures.poll", lambda: s.gestures.poll(board.ticks()))
timed("pass: upkeep.due", lambda: s.upkeep.due(True, board.ticks()))
timed("pass: loop._send (nothing)", loop._send)
timed("pass: loop._show", lambda: loop._show(board.ticks()))
timed("pass: wake.loop_ms", lambda: wake.loop_ms(loop, board.ticks()))
timed("pass: board.ticks", board.ticks)
board.wait = lambda ms: None
timed("loop pass (no sleep)", quiet_pass)
reply35 = b'{"accepted":true,"id":7,"ok":true}'


def send_reply():
    out.put(reply35)
    loop._send()


timed("a reply sent (out.put, loop._send)", send_reply, drain)
timed("writeblocks 256 B", lambda: j.pool.bdev.writeblocks(j.pool.blocks[j._chunk], j.pool._page, 3840))

# read_serial with a request line waiting: the host sends it when asked (`{"send": k}`).
rs = [0]
for k in range(3):
    print(json.dumps({"send": k}))
    while not board._poll.poll(0):
        time.sleep_ms(1)
    time.sleep_ms(5)  # the whole line in
    t = time.ticks_us()
    rs[0] = board.read_serial(inbuf)
    t = time.ticks_diff(time.ticks_us(), t)
    print(json.dumps({"piece": "read_serial %%d B" %% rs[0], "us": t, "alloc": 0}))
# A whole loop pass that takes a press request from the line (the host sends it when
# asked): read, parse, the press, its record, the reply written to the USB serial.
import micropython  # noqa: E402

micropython.alloc_emergency_exception_buf(512)
for k in range(4):
    line_side = b"black" if clock.turn == 0 else b"white"
    print(json.dumps({"send_press": line_side.decode(), "k": k}))
    while not board._poll.poll(0):
        time.sleep_ms(1)
    time.sleep_ms(5)
    gc.collect()
    a0 = gc.mem_alloc()
    t = time.ticks_us()
    if k == 3:  # the last one under a heap lock: where it allocates, if it does
        micropython.heap_lock()
        try:
            loop._step()
        except MemoryError as e:
            micropython.heap_unlock()
            sys.print_exception(e)
        else:
            micropython.heap_unlock()
    else:
        loop._step()
    t = time.ticks_diff(time.ticks_us(), t)
    a = gc.mem_alloc() - a0
    print(json.dumps({"piece": "a loop pass taking a press request", "us": t, "alloc": a}))
print(json.dumps({"done": True}))
"""


def run(image, lay, repeat, log=print):
    files = layout.firmware_files() if lay == "mpy" else layout.frozen_firmware_files()
    files = [(src, dest) for src, dest in files if dest != "/main.py"]
    with tempfile.TemporaryDirectory() as tmp:
        # The benchmark compiled to .mpy too (compiling its source on the chip would take
        # a heap the .mpy layout has not got); /main.py only imports it.
        bench = os.path.join(tmp, "pieces_bench.py")
        with open(bench, "w") as f:
            f.write(MAIN % {"repeat": repeat})
        main = os.path.join(tmp, "main.py")
        with open(main, "w") as f:
            f.write("import pieces_bench\n")
        root = os.path.join(tmp, "fs")
        layout.lay_out(files + [(bench, "/pieces_bench.mpy"), (main, "/main.py")], root)
        pico = emu.Pico(image, emu.make_fs(root))
    s = client.Session(pico)
    out = []

    asked = set()

    def done():
        s._pump()
        for ln in s.noise:
            if ln.startswith('{"send"') and ln not in asked:
                asked.add(ln)  # the chip waits for a request line: one of 38 bytes
                pico.write(b'{"id":7,"cmd":"press","side":"black"}\n')
            elif '"send_press"' in ln and ln not in asked:
                asked.add(ln)  # the chip waits for a press of the side to move
                side = json.loads(ln)["send_press"]
                pico.write(b'{"id":9,"cmd":"press","side":"%s"}\n' % side.encode())
        return any(ln.startswith('{"done"') for ln in s.noise)

    pico.run_until(done, 120.0)
    for ln in s.noise:
        try:
            obj = json.loads(ln)
        except ValueError:
            log(ln)
            continue
        if "piece" in obj:
            out.append(obj)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--layout", choices=("mpy", "frozen"), default="mpy")
    ap.add_argument("--image", help="default: build/rp2's image for the layout (or built)")
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args(argv)
    image = args.image
    if image is None:
        image = build.build(None if args.layout == "mpy" else "boards/manifest.py")
    for obj in run(image, args.layout, args.repeat):
        print("%-40s %7d us %6d B" % (obj["piece"], obj["us"], obj["alloc"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
