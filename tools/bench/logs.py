"""Benchmark: seconds and KB/s to pull a 400-move game log from the clock over its pty.

The real firmware runs under the MicroPython unix port on the desktop board (as in `make sim`,
virtual time). A 400-move game under `cn 35m/5` is played over the serial line by the host
tool's own client — think times drawn from a fixed seed, so the later moves are in byo-yomi
and the log holds its calls too — then the log is pulled with `goclock logs pull`'s code
(512-byte `logs.get` chunks), timed, and verified with the firmware's checksum chain.

    python -m tools.bench.logs [--moves 400] [--runs 3] [--json]
"""

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time

from goclock import SIDES
from goclock.link.client import Client
from goclock.link.transport import SerialTransport
from goclock.records import pull
from goclock.records.gamerecord import GameRecord
from goclock.timecontrol import notation
from goclock.unixport import Firmware


def play(fw, client, moves, seed=400):
    """Play `moves` presses in virtual time; returns the game's log id."""
    client.request("config.set", config={"time_control": notation.parse("cn 35m/5")})
    client.request("reset")
    assert client.request("press", side="white")["accepted"]  # starts Black's clock
    rng = random.Random(seed)
    for i in range(moves):
        # Main time runs out after about 120 moves a side; in byo-yomi the moves stay
        # under 58 s, so the calls are made but no period is used.
        fw.wait(rng.randint(3000, 25000) if i < 240 else rng.randint(20000, 52000))
        reply = client.request("press", side=SIDES[i % 2])
        if not reply["accepted"]:
            raise SystemExit("press %d refused: %s" % (i + 1, reply.get("reason")))
    game = client.request("status")["game"]
    client.request("pause")  # a running game is never reset
    client.request("reset")  # ends the game: the log gets its end record
    fw.wait(10)
    return game


def bench(moves, runs):
    with tempfile.TemporaryDirectory() as tmp:
        fw = Firmware(os.path.join(tmp, "flash"), virtual=True, env={"GOCLOCK_VIEW": "0"})
        try:
            fw.wait(0)
            transport = SerialTransport(fw.port)
            try:
                client = Client(transport, timeout=10.0)
                client.check_firmware()
                started = time.monotonic()
                game = play(fw, client, moves)
                play_s = time.monotonic() - started
                times = []
                for run in range(runs):
                    out = os.path.join(tmp, "pull%d" % run)
                    t0 = time.perf_counter()
                    result = pull.pull(client, game, out)
                    times.append(time.perf_counter() - t0)
                record = GameRecord.from_file(result["path"])
            finally:
                transport.close()
        finally:
            fw.stop()
    size = result["size"]
    best, median = min(times), statistics.median(times)
    return {
        "moves": len(record.moves),
        "records": len(record.records),
        "bytes": size,
        "chunks": -(-size // pull.CHUNK),
        "seconds_best": round(best, 4),
        "seconds_median": round(median, 4),
        "kb_per_s_best": round(size / 1024 / best, 1),
        "kb_per_s_median": round(size / 1024 / median, 1),
        "runs": runs,
        "verified": record.verdict,
        "play_seconds": round(play_s, 2),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=400)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    r = bench(args.moves, args.runs)
    if args.json:
        print(json.dumps(r))
        return 0
    print(
        "logs pull over the pty: %d-move game log, %d records, %.1f KB (%d chunks of %d B)"
        % (r["moves"], r["records"], r["bytes"] / 1024, r["chunks"], pull.CHUNK)
    )
    print(
        "  %.3f s, %.1f KB/s (best of %d); median %.3f s, %.1f KB/s; log %s"
        % (
            r["seconds_best"],
            r["kb_per_s_best"],
            r["runs"],
            r["seconds_median"],
            r["kb_per_s_median"],
            r["verified"],
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
