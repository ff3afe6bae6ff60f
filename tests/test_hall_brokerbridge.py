# ruff: noqa: F811  (fixtures imported from tests/support are parameters here)
"""The topic layout through a bridge of brokers (Mosquitto's own bridge), two Mosquitto
instances on loopback: clocks on a hall's broker, `goclock hall` on a central broker
that bridges the hall's `goclock/v1/#` in. The log is collected whole and verified at
the centre; retained state comes through for a late view there.
"""

import json
import os

import pytest

from support.bridgeclock import runtime_dir  # noqa: F401 (a fixture)
from support.cli import own_home  # noqa: F401 (autouse)
from support.hallbridge import HALL, HallClock, collected, hall_service
from support.mosquitto import BINARY, Mosquitto
from support.mqttsub import Subscriber


@pytest.fixture
def two_brokers(tmp_path):
    if not os.path.exists(BINARY):
        pytest.skip("Debian's mosquitto is not installed (make mqtt-tools installs it)")
    hall_dir, centre_dir = tmp_path / "hall-broker", tmp_path / "centre-broker"
    hall_dir.mkdir()
    centre_dir.mkdir()
    hall = Mosquitto(hall_dir)
    bridge = (
        "connection hall-%s\naddress 127.0.0.1:%d\ntopic goclock/v1/# in 1\n"
        "cleansession false\nrestart_timeout 1 5\n" % (HALL, hall.port)
    )
    centre = Mosquitto(centre_dir, extra=bridge)
    yield hall, centre
    centre.stop()
    hall.stop()


def test_a_hall_through_a_bridge_of_brokers(two_brokers, runtime_dir, tmp_path, capsys):
    hall_broker, centre = two_brokers
    # The bridge is up once a retained message on the hall's broker reaches the centre.
    probe = Subscriber(hall_broker.port, "goclock/v1/probe", client_id="probe-pub")
    probe.client.publish("goclock/v1/probe", b"up", qos=1, retain=True).wait_for_publish(10)
    at_centre = Subscriber(centre.port, "goclock/v1/#", client_id="centre-watch")
    at_centre.wait(lambda t, p: t == "goclock/v1/probe" and p == b"up", 30)
    svc = hall_service(centre.port, tmp_path / "central-hall")
    tables = [HallClock(tmp_path, "table-%d" % n, hall_broker.port) for n in (1, 2)]
    try:
        for t in tables:
            t.new_game(capsys)
        games = [t.status()["game"] for t in tables]
        for t in tables:
            t.moves(capsys, 4)
            t.end(capsys)
        for t, g in zip(tables, games):
            log = collected(svc, t.name, g)
            assert log.data() == t.pulled(g)
            assert log.check().ok
        with svc.cond:
            assert all(svc.model.clock(t.name).online for t in tables)
        # A view joining the centre late gets the retained state through the bridge.
        late = Subscriber(centre.port, "goclock/v1/%s/+/state" % HALL, client_id="late")
        try:
            for t in tables:
                now = t.status()
                # Each table's own topic: both tables' games may carry the same number.
                own = "goclock/v1/%s/%s/state" % (HALL, t.name)
                _, payload, _ = late.wait(
                    lambda tp, p, own=own, now=now: (
                        tp == own and json.loads(p)["game"] == now["game"]
                    )
                )
                st = json.loads(payload)
                assert st["state"] == now["state"] and st["moves"] == now["moves"]
            assert {m[0].split("/")[3] for m in late.on("state")} == {"table-1", "table-2"}
        finally:
            late.close()
    finally:
        for t in tables:
            t.stop()
        svc.stop()
        probe.close()
        at_centre.close()
