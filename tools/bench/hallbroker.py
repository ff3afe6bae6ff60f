"""Benchmark: a hall of N clocks through one Mosquitto on this machine.

Each clock has its own MQTT connection (paho-mqtt, as the bridge publishes) and, for each
move, publishes what a clock publishes by the hall's contract (docs/hall.md): the press
`event` (QoS 1), the retained `state` (QoS 0) and the move's `log/<game>` slice (QoS 1),
payloads shaped as the firmware's (the status and event fields, a record with its
checksum). The clocks are a load model, not firmware sessions: the Wi-Fi firmware client
is not on main yet, and N unix-port firmware processes do not fit this 2-core machine
beside a broker and a hall. They run in worker processes (2, or one per 300 clocks:
paho's select() loop takes no file descriptor above 1023), one paho network thread per
clock, each clock pressing every `--gap` seconds (a random phase each).

The hall is `goclock hall`'s service (HallService: the collector writing every log, the
live model) in this process. Figures: press-to-hall latency (from the publish call to the
hall having taken the event; one machine, one clock for both ends) p50/p99/max; messages
and bytes per move on the clock's side of the wire (MQTT 3.1.1 framing of each PUBLISH and
its PUBACK, computed from the sizes); broker CPU (from /proc) and hall CPU (this process)
as a share of one core over the run; records collected against records sent.

    python -m tools.bench.hallbroker [--clocks 200 1000] [--seconds 20] [--gap 2.0] [--json]
"""

import argparse
import json
import multiprocessing
import os
import random
import resource
import shutil
import statistics
import sys
import tempfile
import threading
import time

HALL = "bench"
ROOT = "goclock/v1/" + HALL


def remaining_length_bytes(n):
    return 1 if n < 128 else 2 if n < 16384 else 3


def publish_wire_bytes(topic, payload, qos):
    body = 2 + len(topic.encode()) + (2 if qos else 0) + len(payload)
    return 1 + remaining_length_bytes(body) + body + (4 if qos else 0)  # + its PUBACK


def side(main_ms):
    return {"main_ms": main_ms, "flagged": False, "periods": 5, "period_ms": 30000}


def payloads(clock, move, t, rec, offset):
    """(leaf, payload bytes, qos, retain) of one move, as a clock sends them."""
    s = "black" if move % 2 else "white"
    ev = {"event": "press", "t": t, "side": s, "used_ms": 2000, "move": move}
    ev.update(side(3600000 - t // 2))
    ev.update({"game": 1, "rec": rec, "sent_us": time.time_ns() // 1000})
    record = dict(ev)
    for k in ("game", "rec", "sent_us"):
        del record[k]
    record["c"] = "%08x" % (hash((clock, rec)) & 0xFFFFFFFF)
    line = (json.dumps(record, separators=(",", ":")) + "\n").encode()
    state = {
        "state": "running",
        "turn": "white" if s == "black" else "black",
        "black": side(3600000 - t // 2),
        "white": side(3600000 - t // 2),
        "time_control": {
            "type": "byoyomi",
            "main": 3600,
            "periods": 5,
            "period": 30,
            "calls": "cn",
        },
        "game": 1,
        "moves": move,
        "event": "Bench Open",
        "round": 1,
        "table": 1,
        "black_name": "Black Player",
        "white_name": "White Player",
        "handicap": 0,
        "t": t,
        "utc": time.time_ns() // 1000000,
        "seq": move,
    }
    return [
        ("event", json.dumps(ev, separators=(",", ":")).encode(), 1, False),
        ("state", json.dumps(state, separators=(",", ":")).encode(), 0, True),
        ("log/1", b"%d %d\n" % (rec, offset) + line, 1, False),
    ], len(line)


def worker(port, names, seconds, gap, start_at, out):
    import paho.mqtt.client as mqtt

    clients = {}
    connected = threading.Semaphore(0)
    for name in names:
        c = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2, client_id="clock-" + name, protocol=mqtt.MQTTv311
        )
        c.max_inflight_messages_set(8)
        c.on_connect = lambda *a: connected.release()
        c.connect_async("127.0.0.1", port, 60)
        c.loop_start()
        clients[name] = c
    deadline = time.time() + 120
    up = 0
    while up < len(names) and connected.acquire(timeout=max(0.01, deadline - time.time())):
        up += 1
    if up < len(names):
        print("bench: only %d of %d clocks connected" % (up, len(names)), file=sys.stderr)
    rng = random.Random(hash(tuple(names)))
    phase = {n: rng.uniform(0, gap) for n in names}
    state = {n: {"move": 0, "rec": 0, "offset": 0} for n in names}
    sent = wire = msgs = 0
    while time.time() < start_at:
        time.sleep(0.01)
    end = start_at + seconds
    schedule = sorted((start_at + phase[n], n) for n in names)
    while schedule:
        at, name = schedule.pop(0)
        if at >= end:
            break
        delay = at - time.time()
        if delay > 0:
            time.sleep(delay)
        st = state[name]
        st["move"] += 1
        st["rec"] += 1
        msgs_out, size = payloads(
            name, st["move"], int((at - start_at) * 1000), st["rec"], st["offset"]
        )
        st["offset"] += size
        for leaf, payload, qos, retain in msgs_out:
            topic = "%s/%s/%s" % (ROOT, name, leaf)
            clients[name].publish(topic, payload, qos=qos, retain=retain)
            wire += publish_wire_bytes(topic, payload, qos)
            msgs += 1
        sent += 1
        next_at = at + gap
        i = 0
        while i < len(schedule) and schedule[i][0] < next_at:
            i += 1
        schedule.insert(i, (next_at, name))
    time.sleep(1.0)
    for c in clients.values():
        c.disconnect()
        c.loop_stop()
    out.put({"moves": sent, "wire": wire, "messages": msgs})


def cpu_of(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Broker:
    """Mosquitto on a free loopback port, its log in a file: a pipe nobody reads fills
    up at a thousand connections' log lines and stops the broker."""

    def __init__(self, folder):
        import socket
        import subprocess

        from tests.support.mosquitto import BINARY, free_port

        self.port = free_port()
        conf = os.path.join(folder, "mosquitto.conf")
        with open(conf, "w") as f:
            f.write(
                "listener %d 127.0.0.1\nallow_anonymous true\npersistence false\n"
                "max_queued_messages 1000000\nlog_dest file %s\n"
                % (self.port, os.path.join(folder, "mosquitto.log"))
            )
        self.proc = subprocess.Popen(
            [BINARY, "-c", conf], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.time() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), 1).close()
                return
            except OSError:
                if time.time() > deadline or self.proc.poll() is not None:
                    raise RuntimeError("mosquitto did not start") from None
                time.sleep(0.05)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(20)


def timed_hall(latencies):
    """`goclock hall`'s service, noting in `latencies` each event's press-to-hall time (us)."""
    from goclock.hall.service import HallService

    lock = threading.Lock()

    class Timed(HallService):
        def take(self, topic, payload):
            super().take(topic, payload)
            if topic.endswith("/event"):
                sent = json.loads(payload).get("sent_us")
                with lock:
                    latencies.append(time.time_ns() // 1000 - sent)

    return Timed


def start_clocks(port, n, seconds, gap):
    """N clocks in worker processes, started; they press from the returned start time on."""
    names = ["table-%d" % i for i in range(1, n + 1)]
    # spawn, not fork: the hall's paho thread runs in this process, and a fork taken while
    # a thread holds a lock leaves the child waiting on it for ever.
    mp = multiprocessing.get_context("spawn")
    out = mp.Queue()
    start_at = time.time() + 5 + n / 100.0
    # paho's network loop uses select(), which takes no descriptor above 1023: a clock
    # costs three (its socket and a socket pair), so at most 300 clocks a process.
    workers = max(2, -(-n // 300))
    procs = [
        mp.Process(target=worker, args=(port, names[k::workers], seconds, gap, start_at, out))
        for k in range(workers)
    ]
    for p in procs:
        p.start()
    return procs, out, start_at


def wait_for_records(svc, moves):
    # Wait (bounded) for the hall to have every record sent.
    deadline = time.time() + 60
    while time.time() < deadline:
        with svc.cond:
            got = sum(g.rec for g in svc.collector.games.values())
        if got >= moves:
            break
        time.sleep(0.1)


def latency_figures(latencies):
    """Press-to-hall latency p50 / p99 / max in ms (None without any), and how many timed."""
    s = sorted(latencies)
    return {
        "latency_p50_ms": round(statistics.median(s) / 1000, 1) if s else None,
        "latency_p99_ms": round(s[min(len(s) - 1, int(len(s) * 0.99))] / 1000, 1) if s else None,
        "latency_max_ms": round(s[-1] / 1000, 1) if s else None,
        "events_timed": len(s),
    }


def run(n, seconds, gap):
    latencies = []
    hall_class = timed_hall(latencies)
    folder = tempfile.mkdtemp(prefix="hallbench")
    broker = Broker(folder)
    svc = hall_class(HALL, os.path.join(folder, "hall"), port=broker.port).start()
    svc.wait_connected(30)
    procs, out, start_at = start_clocks(broker.port, n, seconds, gap)
    while time.time() < start_at:
        time.sleep(0.05)
    b0, h0 = cpu_of(broker.proc.pid), resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.time()
    results = [out.get(timeout=seconds + 300) for _ in procs]
    moves = sum(r["moves"] for r in results)
    wait_for_records(svc, moves)
    elapsed = time.time() - t0
    b1, h1 = cpu_of(broker.proc.pid), resource.getrusage(resource.RUSAGE_SELF)
    for p in procs:
        p.join(30)
    with svc.cond:
        collected = sum(g.rec for g in svc.collector.games.values())
        duplicates = sum(g.duplicates for g in svc.collector.games.values())
    svc.stop()
    broker.stop()
    shutil.rmtree(folder, ignore_errors=True)
    hall_cpu = (h1.ru_utime + h1.ru_stime) - (h0.ru_utime + h0.ru_stime)
    figures = {"clocks": n, "moves": moves, "moves_per_s": round(moves / seconds, 1)}
    figures.update(latency_figures(latencies))
    figures.update(
        {
            "messages_per_move": round(sum(r["messages"] for r in results) / max(moves, 1), 2),
            "bytes_per_move": round(sum(r["wire"] for r in results) / max(moves, 1)),
            "broker_cpu_pct": round(100 * (b1 - b0) / elapsed, 1),
            "hall_cpu_pct": round(100 * hall_cpu / elapsed, 1),
            "records_sent": moves,
            "records_collected": collected,
            "duplicates": duplicates,
        }
    )
    return figures


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clocks", type=int, nargs="+", default=[200, 1000])
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--gap", type=float, default=2.0, help="seconds between a clock's moves")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if not shutil.which("mosquitto") and not os.path.exists("/usr/sbin/mosquitto"):
        print("mosquitto is not installed (make mqtt-tools): hall bench skipped")
        return 0
    rows = []
    for n in args.clocks:
        r = run(n, args.seconds, args.gap)
        rows.append(r)
        if args.json:
            continue
        print(
            "%5d clocks: %6.1f moves/s  press->hall p50 %s ms  p99 %s ms  max %s ms  "
            "%.2f msgs %d B per move  broker CPU %.0f %%  hall CPU %.0f %%  records collected %d of %d sent, %d duplicates"
            % (
                n,
                r["moves_per_s"],
                r["latency_p50_ms"],
                r["latency_p99_ms"],
                r["latency_max_ms"],
                r["messages_per_move"],
                r["bytes_per_move"],
                r["broker_cpu_pct"],
                r["hall_cpu_pct"],
                r["records_collected"],
                r["records_sent"],
                r["duplicates"],
            )
        )
    if args.json:
        print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
