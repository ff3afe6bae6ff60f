"""Benchmark: what `goclock bridge` adds to a request, and to an event on its way out.

The real firmware under the MicroPython unix port (virtual time, as in `make sim`) behind
its pty. The same `status` request is sent N times by the host tool's own client, first
straight to the pty, then through a bridge on that pty (its Unix socket), then by two
clients at once through it; the figures are the round trip per request (p50, p99, max)
and the difference. Then an event's trip: a `press` from one client while another
watches, from the press being sent to the watcher reading its event line.

    python -m tools.bench.bridge [--requests 500] [--json]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from goclock.bridge import runtime
from goclock.bridge.client import BridgeTransport
from goclock.link.client import Client
from goclock.link.transport import SerialTransport
from goclock.unixport import Firmware


def figures(samples):
    s = sorted(samples)
    return {
        "p50_ms": round(statistics.median(s) * 1000, 3),
        "p99_ms": round(s[min(len(s) - 1, int(len(s) * 0.99))] * 1000, 3),
        "max_ms": round(s[-1] * 1000, 3),
    }


def timed_requests(client, n):
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        client.request("status")
        out.append(time.perf_counter() - t0)
    return out


def through(port):
    transport = BridgeTransport(runtime.lookup(port))
    client = Client(transport)
    client.open_line()
    return transport, client


def bench(n):
    folder = tempfile.mkdtemp(prefix="gcbench")
    os.environ["GOCLOCK_RUNTIME_DIR"] = folder
    fw = Firmware(os.path.join(folder, "flash"), virtual=True, env={"GOCLOCK_VIEW": "0"})
    fw.wait(0)
    result = {"requests": n}
    try:
        direct = SerialTransport(fw.port)
        client = Client(direct)
        client.open_line()
        client.request("info")
        result["direct"] = figures(timed_requests(client, n))
        direct.close()

        # The bridge in a process of its own, as `goclock bridge` runs: sharing this one's
        # interpreter lock would add its own waits to the figures.
        bridge = subprocess.Popen(
            [sys.executable, "-m", "goclock.cli", "--port", fw.port, "bridge"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=dict(os.environ),
        )
        try:
            for line in bridge.stdout:
                if b"Ctrl-C" in line:
                    break
            transport, client = through(fw.port)
            client.request("info")
            result["bridge"] = figures(timed_requests(client, n))
            two = []
            other_t, other = through(fw.port)

            def run_other():
                two.extend(timed_requests(other, n))

            th = threading.Thread(target=run_other)
            th.start()
            mine = timed_requests(client, n)
            th.join()
            result["bridge_two_clients"] = figures(mine + two)
            result["added_p50_ms"] = round(
                result["bridge"]["p50_ms"] - result["direct"]["p50_ms"], 3
            )
            result["event_fanout"] = figures(event_trips(client, other, 100))
            transport.close()
            other_t.close()
        finally:
            bridge.terminate()
            bridge.wait(10)
    finally:
        fw.stop()
    return result


def event_trips(presser, watcher, n):
    """From a press sent by one client to its `press` event read by another."""
    presser.request("config.set", config={"time_control": {"type": "sudden_death", "main": 36000}})
    presser.request("reset")
    watcher.request("watch", on=True)
    presser.request("press", side="white")
    trips = []
    side = "black"
    for _ in range(n):
        t0 = time.perf_counter()
        presser.request("press", side=side)
        while True:
            ev = watcher.next_event(5.0)
            if ev is None:
                raise SystemExit("no event came")
            if ev.get("event") == "press":
                break
        trips.append(time.perf_counter() - t0)
        side = "white" if side == "black" else "black"
    watcher.request("watch", on=False)
    presser.request("pause")
    return trips


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--requests", type=int, default=500)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    r = bench(args.requests)
    if args.json:
        print(json.dumps(r))
        return 0
    print(
        "bridge: %d status requests each way (firmware under the unix port, its pty)"
        % r["requests"]
    )
    for key, label in (
        ("direct", "straight to the pty"),
        ("bridge", "through the bridge"),
        ("bridge_two_clients", "through it, two clients at once"),
        ("event_fanout", "press -> a watcher's event line"),
    ):
        f = r[key]
        print(
            "  %-34s p50 %7.3f ms  p99 %7.3f ms  max %7.3f ms"
            % (label, f["p50_ms"], f["p99_ms"], f["max_ms"])
        )
    print("  added by the bridge (p50): %.3f ms" % r["added_p50_ms"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
