"""A storage workload like a day of games, and the checks that must hold after a power cut.

`run` saves configs, writes game logs and checkpoints the way the app does,
and calls `ack(kind, value)` after each step that is safely stored. It runs on
CPython (littlefs-python, tests/lfs_helpers.py) and on the MicroPython unix
port (VfsLfs2 on a RAM block device, or VfsPosix while the process is killed).

`check` mounts what was left and compares it with the acks: config intact
(old or new), every acknowledged record present and the log verifying after
boot recovery, checkpoint the acknowledged one or the one being written.
"""

from goclockfw.storage.checkpoint import CheckpointStore
from goclockfw.storage.configstore import ConfigStore, validate_config
from goclockfw.storage.gamelog import GameLogStore, verify_bytes

PHRASES = ("30秒", "40秒", "50秒", "55秒", "58秒", "1分", '还剩"4"分')


def volume_of(game):
    return (game * 3 + 1) % 11


def run(fs, ack, games=3, moves=24, reserve=4096):
    store = ConfigStore(fs)
    store.load()
    logs = GameLogStore(fs, reserve=reserve)
    logs.recover()
    cps = CheckpointStore(fs)
    cps.load()
    for g in range(games):
        cfg = dict(store.config)
        cfg["volume"] = volume_of(g)
        ack("saving", cfg["volume"])  # a cut from here on may leave this config or the last
        try:
            store.save(config=validate_config(cfg))
            ack("config", cfg["volume"])
        except OSError:
            ack("config_failed", cfg["volume"])
        gid = logs.begin(0, {"time_control": store.config["time_control"]})
        for m in range(moves):
            t = (m + 1) * 7001
            side = m % 2
            extra = {"main_ms": 3600000 - t, "periods": 5, "period_ms": 60000}
            if logs.record("press", t, side, 7001, extra):
                ack("record", [gid, logs._records])
            if m % 4 == 3:
                if logs.record("call", t + 500, 1 - side, PHRASES[m % len(PHRASES)]):
                    ack("record", [gid, logs._records])
            if cps.save({"game": gid, "move": m, "t": t}, t):
                ack("checkpoint", cps.seq)
        logs.end(moves * 7001 + 1, "reset")
        ack("record", [gid, logs._records])
        ack("clearing", gid)
        cps.clear()
        ack("cleared", gid)
    logs.close()


def check(fs, acks):
    """Problems found in the storage left after a cut (an empty list when none)."""
    problems = []
    last = {}
    for kind, value in acks:
        last[kind] = value
    # config: the acknowledged one or the one being written, never damaged
    store = ConfigStore(fs)
    warning = store.load()
    vol = store.config["volume"]
    if "config" not in last and warning == "no stored config: defaults in use":
        pass  # cut before the first save was complete
    elif warning is not None or vol not in (last.get("config"), last.get("saving")):
        problems.append(
            "config: %r, volume %r; acknowledged %r, being saved %r"
            % (warning, vol, last.get("config"), last.get("saving"))
        )
    # logs: each file verifies (a torn last line at most) and holds what was
    # acknowledged; after boot recovery it verifies whole
    logs = GameLogStore(fs)
    acked = {}
    for kind, value in acks:
        if kind == "record":
            acked[value[0]] = value[1]
    for gid in logs.games():
        result = verify_bytes(logs.read(gid, 0, 1 << 20)[0])
        if not (result["ok"] or result["torn"]):
            problems.append("game %d: %r" % (gid, result["errors"]))
    logs.recover()
    for gid in logs.games():
        result = verify_bytes(logs.read(gid, 0, 1 << 20)[0])
        if not result["ok"]:
            problems.append("game %d after recovery: %r" % (gid, result["errors"]))
        n = len(result["records"])
        if n < acked.get(gid, 0):
            problems.append("game %d: %d records, %d acknowledged" % (gid, n, acked[gid]))
        if n and result["records"][0].get("event") != "game":
            problems.append("game %d: first record %r" % (gid, result["records"][0]))
    for gid in acked:
        if gid not in logs.games():
            problems.append("game %d lost" % gid)
    # checkpoint: the acknowledged one or the one being written; none only
    # once its game was being cleared
    cps = CheckpointStore(fs)
    data, warning = cps.load()
    if warning is not None:
        problems.append("checkpoint: " + warning)
    last_cp = None
    phase = None
    for kind, value in acks:
        if kind == "checkpoint":
            last_cp = value
            phase = "running"
        elif kind in ("clearing", "cleared"):
            phase = kind
    if data is None:
        if phase == "running":
            problems.append("checkpoint %d lost" % last_cp)
    elif phase == "cleared":
        if data["move"] != 0:  # only the next game's first one may be under way
            problems.append("stale checkpoint after clear: %r" % (data,))
    elif last_cp is not None and cps.seq not in (last_cp, last_cp + 1):
        problems.append("checkpoint seq %d, acknowledged %d" % (cps.seq, last_cp))
    return problems
