# ruff: noqa: F811  (fixtures imported from tests/support are parameters here)
"""`goclock hall` collects every game's log from the broker: each record once, in order,
byte for byte what `goclock logs pull` reads from the clock, verified with the checksum
chain; through broker restarts and a hall that restarts on its folder.

Clocks: the firmware under the MicroPython unix port behind `goclock bridge --hall`; the
broker: a real Mosquitto on a free loopback port.
"""

import json

import pytest

from goclock.hall.collect import Collector, GameLog, SliceError, parse_slice
from goclockfw.storage.logline import verify_bytes
from support.bridgeclock import runtime_dir  # noqa: F401 (a fixture)
from support.cli import own_home  # noqa: F401 (autouse)
from support.hallbridge import HallClock, collected, hall_service
from support.mosquitto import mosquitto  # noqa: F401 (a fixture)


def game_of(table):
    st = table.status()
    assert st["ok"], st
    return st["game"]


def check_whole(svc, table, game):
    g = collected(svc, table.name, game)
    data = g.data()
    assert data == table.pulled(game)  # byte for byte what a pull reads
    check = g.check()
    assert check.ok, check.verdict
    presses = [r for r in check.record.records if r.get("event") == "press"]
    return data, presses


def test_two_clocks_collected_whole(runtime_dir, mosquitto, tmp_path, capsys):
    svc = hall_service(mosquitto.port, tmp_path / "hall")
    tables = [HallClock(tmp_path, name, mosquitto.port) for name in ("table-1", "table-2")]
    try:
        for t in tables:
            t.new_game(capsys, ("byo", "10m+3x30s"))
        games = [game_of(t) for t in tables]
        for t in tables:
            t.moves(capsys, 5)
        for t in tables:
            t.end(capsys)
        for t, game in zip(tables, games):
            data, presses = check_whole(svc, t, game)
            assert [p["move"] for p in presses] == [1, 2, 3, 4, 5]
            path = tmp_path / "hall" / t.name / ("game-%05d.log" % game)
            assert path.read_bytes() == data  # laid out as `logs pull` names it
        # The live model saw both clocks online with their last state.
        with svc.cond:
            assert {n for n, c in svc.model.clocks.items() if c.online} == {"table-1", "table-2"}
    finally:
        for t in tables:
            t.stop()
        svc.stop()


def test_broker_restart_mid_game_loses_and_doubles_nothing(
    runtime_dir, mosquitto, tmp_path, capsys
):
    svc = hall_service(mosquitto.port, tmp_path / "hall")
    table = HallClock(tmp_path, "table-7", mosquitto.port)
    try:
        table.new_game(capsys)
        game = game_of(table)
        table.moves(capsys, 3)
        connects = svc.connects
        # Restarted once the hall has what was sent (see test_hall_view.py).
        have = len(verify_bytes(table.pulled(game))["records"])
        svc.wait(lambda: svc.collector.game("table-7", game).rec >= have, 20, "records so far")
        mosquitto.restart()
        table.moves(capsys, 3, first="white")  # played while the bridge reconnects
        svc.wait(lambda: svc.connects > connects and svc.connected, 30, "the hall back")
        table.moves(capsys, 2)
        table.end(capsys)
        data, presses = check_whole(svc, table, game)
        assert [p["move"] for p in presses] == list(range(1, 9))
    finally:
        table.stop()
        svc.stop()


def test_a_hall_restarted_on_its_folder_goes_on(runtime_dir, mosquitto, tmp_path, capsys):
    folder = tmp_path / "hall"
    svc = hall_service(mosquitto.port, folder)
    table = HallClock(tmp_path, "table-3", mosquitto.port)
    try:
        table.new_game(capsys)
        game = game_of(table)
        table.moves(capsys, 2)
        svc.wait(lambda: svc.collector.game("table-3", game).rec >= 3, 20, "first records")
        svc.stop()
        # Records published while the hall is away wait in its persistent session.
        table.moves(capsys, 2)
        svc = hall_service(mosquitto.port, folder)
        table.moves(capsys, 1)
        table.end(capsys)
        data, presses = check_whole(svc, table, game)
        assert [p["move"] for p in presses] == [1, 2, 3, 4, 5]
    finally:
        table.stop()
        svc.stop()


# ----- the collector alone, on slices cut from a real log --------------------------------


@pytest.fixture(scope="module")
def real_log(tmp_path_factory):
    """A finished game's log bytes from the firmware under the unix port."""
    from support.firmware import boot, set_tc, tap

    fw = boot(tmp_path_factory.mktemp("fw") / "flash")
    try:
        set_tc(fw, {"type": "sudden_death", "main": 600})
        for button in ("right", "left", "right", "left"):
            fw.wait(1500)
            tap(fw, button)
        r = fw.request({"cmd": "pause"})
        assert r["ok"], r
        game = fw.request({"cmd": "status"})["game"]
        r = fw.request({"cmd": "reset", "confirm": True})
        assert r["ok"], r
        from support.firmware import pull_log

        return pull_log(fw, game)
    finally:
        fw.stop()


def cut(data):
    from goclock.bridge.hallformat import slice_payload, slices

    out, used = slices(data, 0, 0)
    assert used == len(data)
    return [slice_payload(rec, off, body) for rec, off, body in out]


def test_slices_in_any_order_and_twice_give_the_log(real_log, tmp_path):
    msgs = cut(real_log)
    assert len(msgs) >= 6
    c = Collector(str(tmp_path))
    order = msgs[2:4] + msgs[:3] + msgs[1:] + msgs[::-1]  # gaps, resends, all backwards
    whats = [c.take("table-1", "4", m) for m in order]
    assert whats[:2] == ["held", "held"] and whats[2] == "new"
    g = c.game("table-1", 4)
    assert g.data() == real_log and g.rec == len(msgs) and not g.pending
    assert sum(1 for w in whats if w == "new") + 2 == len(msgs)  # two came in as held
    assert g.duplicates == len(order) - len(msgs)
    assert g.check().ok


def test_a_hall_killed_mid_write_cuts_the_torn_line(real_log, tmp_path):
    msgs = cut(real_log)
    c = Collector(str(tmp_path))
    for m in msgs[:3]:
        c.take("t", "1", m)
    g = c.game("t", 1)
    with open(g.path, "ab") as f:
        f.write(parse_slice(msgs[3])[2][:10])  # half a record, as a kill leaves it
    again = Collector(str(tmp_path))
    again.load()
    g2 = again.game("t", 1)
    assert g2.rec == 3 and g2.size == g.size
    for m in msgs:
        again.take("t", "1", m)
    assert g2.data() == real_log


def test_refused_slices_change_nothing(real_log, tmp_path):
    msgs = cut(real_log)
    c = Collector(str(tmp_path))
    c.take("t", "1", msgs[0])
    before = c.game("t", 1).data()
    rec, off, body = parse_slice(msgs[1])
    bad = [
        b"",
        b"garbage",
        b"2 x\n" + body,
        b"0 0\n" + body,
        b'2 %d\n{"half' % off,
        b"2 %d\n" % off + body + body,  # two records in one slice
        b"9" * 20 + b" 0\n" + body,
    ]
    assert [c.take("t", "1", m) for m in bad] == ["refused"] * len(bad)
    assert c.take("t", "../etc", msgs[1]) == "refused"
    assert c.take("../x", "1", msgs[1]) == "refused"
    # The right number at the wrong offset, or other bytes under a number collected.
    assert c.take("t", "1", b"2 %d\n" % (off + 1) + body) == "conflict"
    other = parse_slice(msgs[2])[2]
    assert c.take("t", "1", b"1 0\n" + other) == "conflict"
    assert c.game("t", 1).data() == before and c.refused == len(bad) + 2
    with pytest.raises(SliceError):
        parse_slice(b"1 0\n" + b"x" * 70000 + b"\n")


def test_a_game_log_reloads_its_count(real_log, tmp_path):
    path = tmp_path / "c" / "game-00001.log"
    path.parent.mkdir()
    path.write_bytes(real_log)
    g = GameLog(str(path))
    assert g.size == len(real_log) and g.ended
    assert g.rec == sum(1 for line in real_log.splitlines() if line.lstrip(b".")[:1] == b"{")
    assert g.rec == len(verify_bytes(real_log)["records"])
    assert json.loads(real_log.splitlines()[0])["event"] == "game"
