"""`goclock hall setup`: the broker config it writes, run by a real Mosquitto on free
loopback ports: hashed passwords, the ACL (a clock publishing under another clock's id
refused, a spectator's command refused, spectators read state and events only), a wrong
password refused, TLS with a throwaway CA made by openssl. Every refusal changes nothing
the hall can see. Waits are on acknowledgements and markers, bounded.
"""

import json
import os
import shutil
import ssl
import subprocess
import tempfile
import threading

import paho.mqtt.client as mqtt
import pytest

from goclock.errors import GoclockError
from goclock.hall.service import HallService
from support.cli import own_home, run  # noqa: F401 (own_home: autouse)
from support.mosquitto import BINARY, Mosquitto, free_port

HALL = "club"
ROOT = "goclock/v1/club"

pytestmark = pytest.mark.skipif(
    not (os.path.exists(BINARY) and shutil.which("mosquitto_passwd")),
    reason="Debian's mosquitto is not installed (make mqtt-tools installs it)",
)


class ConfiguredMosquitto(Mosquitto):
    """The test fixture's broker (start, stop, ready on its log), on a config of ours."""

    def __init__(self, conf, port):
        self.folder = os.path.dirname(conf)
        self.conf = conf
        self.port = port
        self.proc = None
        self.log = []
        self.start()

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
            self.log.append(self.proc.stderr.read() or b"")
        super().stop()

    def text(self):
        return b"".join(self.log).decode("utf-8", "replace")


@pytest.fixture
def hall_dir():
    # The broker, started as root, reads its files as the `mosquitto` user: a folder it
    # can reach (pytest's own are 0700).
    path = tempfile.mkdtemp(prefix="gch")
    os.chmod(path, 0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def setup(capsys, folder, *extra):
    port, ws = free_port(), free_port()
    rc, out, err = run(
        capsys,
        "hall",
        "setup",
        "--hall",
        HALL,
        "--clocks",
        "table-1,table-2",
        "--out",
        folder,
        "--port",
        str(port),
        "--ws-port",
        str(ws),
        "--bind",
        "127.0.0.1",
        *extra,
    )
    assert rc == 0, err
    return port, out


def secret(folder, user):
    with open(os.path.join(folder, "secrets", user + ".pw")) as f:
        return f.read().strip()


class Peer:
    """A paho client that keeps what it receives and waits on it."""

    def __init__(self, port, user=None, password=None, tls=None, subscribe=None, cid=None):
        self.got = []
        self.cond = threading.Condition()
        self.rc = None
        c = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=cid or "peer-%s" % user,
            protocol=mqtt.MQTTv311,
        )
        if user:
            c.username_pw_set(user, password)
        if tls:
            c.tls_set_context(tls)
        c.on_connect = self._connected
        c.on_subscribe = lambda *a: self._note("suback")
        c.on_message = lambda cl, u, m: self._note((m.topic, bytes(m.payload)))
        c.on_disconnect = lambda *a: self._note("closed")
        self.subscribe = subscribe
        self.client = c
        c.connect("127.0.0.1", port)
        c.loop_start()
        self.wait(lambda: self.rc is not None or "closed" in self.got, "CONNACK")
        if self.rc is None:
            c.loop_stop()
            raise ConnectionRefusedError("closed before CONNACK")
        if self.rc.is_failure:
            raise ConnectionRefusedError(str(self.rc))
        if subscribe:
            self.wait(lambda: "suback" in self.got, "SUBACK")

    def _connected(self, client, userdata, flags, rc, props):
        if not rc.is_failure and self.subscribe:
            client.subscribe(self.subscribe, qos=1)
        self._note(None, rc)

    def _note(self, item, rc=None):
        with self.cond:
            if rc is not None:
                self.rc = rc
            if item is not None:
                self.got.append(item)
            self.cond.notify_all()

    def wait(self, pred, what, timeout=15):
        with self.cond:
            assert self.cond.wait_for(pred, timeout), "no %s" % what

    def publish(self, topic, payload):
        info = self.client.publish(topic, payload, qos=1)
        info.wait_for_publish(10)  # the broker's PUBACK: it has routed (or dropped) it
        assert info.is_published()

    def messages(self):
        with self.cond:
            return [m for m in self.got if isinstance(m, tuple)]

    def until(self, topic, payload):
        self.wait(lambda: (topic, payload) in self.got, "%s %r" % (topic, payload))
        return self.messages()

    def close(self):
        self.client.disconnect()
        self.client.loop_stop()


def test_setup_writes_hashed_passwords_and_prints_none(capsys, hall_dir):
    port, out = setup(capsys, hall_dir, "--spectators")
    passwords = [secret(hall_dir, u) for u in ("hall", "arbiter", "table-1", "table-2")]
    assert len(set(passwords)) == 4 and all(len(p) >= 20 for p in passwords)
    for name in ("passwd", "acl", "mosquitto.conf"):
        with open(os.path.join(hall_dir, name)) as f:
            text = f.read()
        assert not any(p in text for p in passwords), name
    assert not any(p in out for p in passwords)
    with open(os.path.join(hall_dir, "passwd")) as f:
        users = [line.split(":")[0] for line in f]
        f.seek(0)
        assert all(line.split(":", 1)[1].startswith("$7$") for line in f)  # hashed (PBKDF2)
    assert sorted(users) == ["arbiter", "hall", "table-1", "table-2"]
    for name in os.listdir(os.path.join(hall_dir, "secrets")):
        assert os.stat(os.path.join(hall_dir, "secrets", name)).st_mode & 0o077 == 0
    rc, _, err = run(capsys, "hall", "setup", "--hall", HALL, "--clocks", "hall", "--out", hall_dir)
    assert rc == 2 and "the hall's" in err


def test_the_acl_through_a_real_broker(capsys, hall_dir):
    port, _ = setup(capsys, hall_dir, "--spectators", "--log-refused")
    broker = ConfiguredMosquitto(os.path.join(hall_dir, "mosquitto.conf"), port)
    peers = []
    try:
        hall = Peer(port, "hall", secret(hall_dir, "hall"), subscribe=ROOT + "/#")
        t1 = Peer(port, "table-1", secret(hall_dir, "table-1"), subscribe=ROOT + "/+/cmd")
        t2 = Peer(port, "table-2", secret(hall_dir, "table-2"), subscribe=ROOT + "/#")
        spectator = Peer(port, subscribe=ROOT + "/#", cid="spectator")
        peers += [hall, t1, t2, spectator]
        # A clock publishes under its own id: the hall and the spectator see it.
        t1.publish(ROOT + "/table-1/event", b'{"event":"press","n":1}')
        t1.publish(ROOT + "/table-1/state", b'{"state":"running"}')
        hall.until(ROOT + "/table-1/state", b'{"state":"running"}')
        seen = spectator.until(ROOT + "/table-1/state", b'{"state":"running"}')
        assert (ROOT + "/table-1/event", b'{"event":"press","n":1}') in seen
        # table-2 publishing under table-1's id: refused (PUBACKed, dropped); then its own
        # marker, on the same connection, so the refused one would have come first.
        t2.publish(ROOT + "/table-1/event", b'{"event":"press","forged":true}')
        t2.publish(ROOT + "/table-1/log/1", b"1 0\n{forged}\n")
        t2.publish(ROOT + "/table-2/event", b'{"marker":2}')
        got = hall.until(ROOT + "/table-2/event", b'{"marker":2}')
        assert not any(b"forged" in p for _, p in got)
        # A clock reads only its own cmd: table-2 (subscribed to everything) sees no cmd
        # of table-1's, nor the other clock's events.
        hall.publish(ROOT + "/table-1/cmd", b'{"id":1,"cmd":"status"}')
        t1.until(ROOT + "/table-1/cmd", b'{"id":1,"cmd":"status"}')
        # A spectator's command: refused before the hall's marker reaches the clock.
        spectator.publish(ROOT + "/table-1/cmd", b'{"id":"x","cmd":"pause"}')
        hall.publish(ROOT + "/table-1/cmd", b'{"id":2,"cmd":"status"}')
        got = t1.until(ROOT + "/table-1/cmd", b'{"id":2,"cmd":"status"}')
        assert [p for _, p in got] == [b'{"id":1,"cmd":"status"}', b'{"id":2,"cmd":"status"}']
        # A spectator reads state and events only: no cmd, no log, no online.
        t1.publish(ROOT + "/table-1/online", b'{"online":true}')
        t1.publish(ROOT + "/table-1/event", b'{"marker":3}')
        got = spectator.until(ROOT + "/table-1/event", b'{"marker":3}')
        assert {t.rsplit("/", 1)[1] for t, _ in got} == {"state", "event"}
        hall.until(ROOT + "/table-1/online", b'{"online":true}')
        # table-2, subscribed to the whole hall, got nothing: no cmd was sent to it, and a
        # clock reads nothing else (not even its own topics, nor table-1's).
        t2.publish(ROOT + "/table-2/cmd", b"forged by a clock")  # a clock cannot write cmd
        hall.publish(ROOT + "/table-2/cmd", b'{"id":3,"cmd":"status"}')
        got = t2.until(ROOT + "/table-2/cmd", b'{"id":3,"cmd":"status"}')
        assert got == [(ROOT + "/table-2/cmd", b'{"id":3,"cmd":"status"}')]
        # A wrong password, and a clock's password used for another clock: refused.
        with pytest.raises(ConnectionRefusedError):
            Peer(port, "table-1", "not-the-password")
        with pytest.raises(ConnectionRefusedError):
            Peer(port, "table-1", secret(hall_dir, "table-2"), cid="other")
        # The hall view says so, in one line, without the password.
        svc = HallService(
            HALL, os.path.join(hall_dir, "view"), port=port, user="hall", password="wrong"
        )
        svc.start()
        try:
            with pytest.raises(GoclockError, match="refused") as exc:
                svc.wait_connected(10)
            assert "wrong" not in str(exc.value)
        finally:
            svc.stop()
    finally:
        for p in peers:
            p.close()
        broker.stop()
    log = broker.text()
    # Every refusal is in the broker's log: the logins, and each message dropped.
    assert log.count("disconnected, not authorised") == 3
    denied = [line for line in log.splitlines() if "Denied PUBLISH" in line]
    assert [(d.split()[4], d.split("'")[1]) for d in denied] == [
        ("peer-table-2", ROOT + "/table-1/event"),
        ("peer-table-2", ROOT + "/table-1/log/1"),
        ("spectator", ROOT + "/table-1/cmd"),
        ("peer-table-2", ROOT + "/table-2/cmd"),
    ]
    assert not any(secret(hall_dir, u) in log for u in ("hall", "table-1", "table-2"))


def make_ca(folder):
    """A throwaway CA and a server certificate for 127.0.0.1, by openssl."""

    def ssl_run(*argv):
        subprocess.run(["openssl", *argv], check=True, capture_output=True, cwd=folder, timeout=60)

    ssl_run(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
        "-days",
        "2",
        "-subj",
        "/CN=goclock test CA",
    )
    ssl_run(
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=127.0.0.1",
    )
    with open(os.path.join(folder, "san.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\n")
    ssl_run(
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.crt",
        "-days",
        "2",
        "-extfile",
        "san.ext",
    )
    from goclock.hall.brokerconf import broker_can_read

    broker_can_read(os.path.join(folder, "server.key"))
    return [os.path.join(folder, n) for n in ("ca.crt", "server.crt", "server.key")]


@pytest.mark.skipif(not shutil.which("openssl"), reason="openssl is not installed")
def test_tls_with_a_throwaway_ca(capsys, hall_dir):
    ca, cert, key = make_ca(hall_dir)
    folder = os.path.join(hall_dir, "broker")
    os.makedirs(folder)
    os.chmod(folder, 0o755)
    port, out = setup(capsys, folder, "--tls-cert", cert, "--tls-key", key)
    assert "TLS" in out
    broker = ConfiguredMosquitto(os.path.join(folder, "mosquitto.conf"), port)
    try:
        ctx = ssl.create_default_context(cafile=ca)
        t1 = Peer(port, "table-1", secret(folder, "table-1"), tls=ctx)
        svc = HallService(
            HALL,
            os.path.join(hall_dir, "view"),
            port=port,
            user="hall",
            password=secret(folder, "hall"),
            tls=ctx,
        ).start()
        try:
            svc.wait_connected(15)
            t1.publish(ROOT + "/table-1/state", json.dumps({"state": "idle", "seq": 1}).encode())
            svc.wait(
                lambda: "table-1" in svc.model.clocks and svc.model.clocks["table-1"].state, 15
            )
        finally:
            svc.stop()
            t1.close()
        # Without TLS, or trusting another CA, nothing connects.
        with pytest.raises(ConnectionRefusedError, match="closed before CONNACK"):
            Peer(port, "table-1", secret(folder, "table-1"), cid="plain")
        with pytest.raises(ssl.SSLError):
            Peer(
                port,
                "table-1",
                secret(folder, "table-1"),
                tls=ssl.create_default_context(),
                cid="x",
            )
    finally:
        broker.stop()
