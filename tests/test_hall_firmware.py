"""The firmware in the hall (docs/hall.md), through a real Mosquitto on a free loopback port:
several clocks (the real firmware under the MicroPython unix port, virtual time) publish,
a real client (paho-mqtt) listens and sends commands. The faults: the broker killed and
restarted mid-game, a clock's power cut while it publishes, a wrong password, a clock
publishing under another's id, malformed, oversized and forbidden commands.

Every wait is on a message or an acknowledgement (the broker's, the clock's serial
replies), never on the wall clock; the clocks' time moves only by "!wait".
"""

import json
import subprocess

import pytest

from goclockfw.net.mqtt import BACKOFF_MAX_MS
from goclockfw.storage import logline
from support.firmware import boot, flash_file, pull_log, status
from support.hallclocks import (
    HALL,
    clock,
    collect,
    cursor_file,
    passwords,
    play,
    press,
    wait_log,
)
from support.mosquitto import BINARY, Mosquitto, free_port, mosquitto  # noqa: F401 (the fixture)
from support.mqttsub import Subscriber

pytestmark = pytest.mark.usefixtures("micropython")


def topic(name, leaf):
    return "goclock/v1/%s/%s/%s" % (HALL, name, leaf)


def test_two_clocks_publish_state_events_and_their_whole_logs(mosquitto, tmp_path):  # noqa: F811
    sub = Subscriber(mosquitto.port, "goclock/v1/#")
    a = clock(tmp_path, "t1", mosquitto.port)
    b = clock(tmp_path, "t2", mosquitto.port)
    try:
        for fw in (a, b):
            online = sub.wait_json("%s/online" % fw.name, lambda m: m["online"])
            assert online["board"] == "desktop" and online["version"]
        r = a.request({"cmd": "assign", "event": "Open", "round": 2, "table": 7, "black": "Lee"})
        assert r["ok"], r
        play(a, 3)
        play(b, 2)
        ev = sub.wait_json("t1/event", lambda m: m["event"] == "press" and m["move"] == 3)
        assert ev["game"] == status(a)["game"] and ev["rec"] == 5  # game, start, 3 presses
        st = sub.wait_json("t1/state", lambda m: m["moves"] == 3)
        assert st["state"] == "running" and st["table"] == 7 and st["black_name"] == "Lee"
        assert st["event"] == "Open" and st["white_name"] is None and st["seq"] > 1
        for fw in (a, b):
            game = status(fw)["game"]
            view, want = wait_log(sub, fw, game)
            assert view.gaps == 0 and view.duplicates == 0
            assert logline.verify_bytes(view.data)["ok"]
        first = json.loads(pull_log(a, status(a)["game"]).split(b"\n")[0])
        assert first["info"] == {"event": "Open", "round": 2, "table": 7, "black": "Lee"}
        # A view that joins late gets the retained state and online.
        late = Subscriber(mosquitto.port, topic("t1", "#"), client_id="late")
        got = late.wait(lambda t, p: t.endswith("/state"))
        assert got[2] is True and json.loads(got[1])["moves"] == 3
        late.close()
    finally:
        for fw in (a, b):
            fw.stop()
        sub.close()
    # The clocks ended: each one's Last Will says so (retained).
    sub = Subscriber(mosquitto.port, topic("+", "online"), client_id="after")
    for name in ("t1", "t2"):
        sub.wait_json("%s/online" % name, lambda m: m == {"online": False})
    sub.close()


def test_the_broker_killed_and_restarted_mid_game(mosquitto, tmp_path):  # noqa: F811
    sub = Subscriber(mosquitto.port, "goclock/v1/#")
    fw = clock(tmp_path, "t1", mosquitto.port)
    try:
        sub.wait_json("t1/online", lambda m: m["online"])
        play(fw, 3)
        game = status(fw)["game"]
        wait_log(sub, fw, game)
        mosquitto.stop()  # killed mid-game: the clock plays on
        for side in ("right", "left", "right", "left"):
            press(fw, side)
        st = status(fw)
        assert st["moves"] == 7 and st["state"] == "running"
        mosquitto.start()
        sub.wait_subscribed(2)  # the hall's client is back
        mark = sub.mark()
        fw.wait(BACKOFF_MAX_MS + 1000)  # past the clock's backoff (virtual time)
        sub.wait_json("t1/online", lambda m: m["online"], after=mark)
        view = collect(sub, "t1", game)
        # The hall lost what the broker took while it was away, if anything: it asks.
        r = ask(
            sub,
            "t1",
            {"id": 1, "cmd": "log.resend", "game": game, "offset": len(view.data), "rec": view.rec},
        )
        assert r["ok"], r
        view, want = wait_log(sub, fw, game)
        assert view.gaps == 0 and logline.verify_bytes(view.data)["ok"]
        assert view.data == want  # every record exactly once after dedup by rec
        assert status(fw)["moves"] == 7
    finally:
        fw.stop()
        sub.close()


def ask(sub, name, req, timeout=20.0):
    """A cmd from the hall, and the clock's reply (matched by id)."""
    mark = sub.mark()
    sub.publish(topic(name, "cmd"), json.dumps(req))
    return sub.wait_json(
        "%s/reply" % name, lambda m: m.get("id") == req.get("id"), timeout, after=mark
    )


def test_malformed_oversized_and_forbidden_commands_change_nothing(mosquitto, tmp_path):  # noqa: F811
    sub = Subscriber(mosquitto.port, "goclock/v1/#")
    fw = clock(tmp_path, "t1", mosquitto.port)
    try:
        sub.wait_json("t1/online", lambda m: m["online"])
        fw.request({"cmd": "watch", "on": True})
        play(fw, 2)
        before = status(fw)
        cases = [
            (
                {"id": 1, "cmd": "config.set", "config": {"volume": 1}},
                "not allowed over the network",
            ),
            ({"id": 2, "cmd": "logs.clear"}, "not allowed over the network"),
            ({"id": 3, "cmd": "press", "side": "black"}, "not allowed over the network"),
            (
                {"id": 4, "cmd": "time.set", "side": "black", "main": 5},
                "while the clocks are paused",
            ),
            ({"id": 5, "cmd": "reset"}, "a clock is running"),
            ({"id": 6, "cmd": "maintenance"}, "not allowed over the network"),
        ]
        for req, words in cases:
            r = ask(sub, "t1", req)
            assert r["ok"] is False and words in r["error"], (req, r)
        for raw, words in (
            (b'{"id":7,"cmd":"pause",}', "bad JSON"),
            (b"\xff\xfe", "bad JSON"),
            (b"[1,2]", "a request must be a JSON object"),
            (b'{"id":8,"cmd":"pause","x":"' + b"a" * 1100 + b'"}', "over 1024 bytes"),
            (b'{"id":9,"cmd":"pause","x":"' + b"a" * 3000 + b'"}', "over 1024 bytes"),
        ):
            mark = sub.mark()
            sub.publish(topic("t1", "cmd"), raw)
            r = sub.wait_json("t1/reply", lambda m: m["ok"] is False, after=mark)
            assert words in r["error"], (raw[:30], r)
        after = status(fw)
        assert after["moves"] == before["moves"] and after["state"] == "running"
        assert after["black"] == before["black"] and after["white"] == before["white"]
        # Allowed ones do: a pause, then time.set while paused, a reset needs confirm.
        assert ask(sub, "t1", {"id": 10, "cmd": "pause"})["state"] == "paused"
        r = ask(sub, "t1", {"id": 11, "cmd": "time.set", "side": "black", "main": 300})
        assert r["ok"] and r["main_ms"] == 300000
        r = ask(sub, "t1", {"id": 12, "cmd": "reset"})
        assert r["ok"] is False and "confirm" in r["error"]
        assert status(fw)["state"] == "paused"
        # A player's call for the arbiter (the key held 2 s pauses and calls), shown at
        # the hall (retained) until the hall acknowledges it.
        assert ask(sub, "t1", {"id": 13, "cmd": "resume"})["state"] == "running"
        fw.keys("!down arbiter\n")
        fw.wait(2500)
        fw.keys("!up arbiter\n")
        fw.wait(100)
        call = sub.wait_json("t1/arbiter", lambda m: m["calling"])
        assert call["t"] > 0 and status(fw)["state"] == "paused"
        mark = sub.mark()
        assert ask(sub, "t1", {"id": 14, "cmd": "arbiter.ack"})["ok"]
        assert sub.wait_json("t1/arbiter", lambda m: not m["calling"], after=mark) == {
            "calling": False,
            "by": "hall",
        }
        r = ask(sub, "t1", {"id": 15, "cmd": "result", "result": "W+R"})
        assert r["ok"] and b'"result":"W+R","by":"hall"' in pull_log(fw, before["game"])
        # Every refusal is logged on the clock (a network notice in the game's log).
        log = pull_log(fw, before["game"])
        refused = [
            json.loads(x)
            for x in log.split(b"\n")
            if b'"notice":"network"' in x and b"refused" in x
        ]
        assert len(refused) >= 8, refused
    finally:
        fw.stop()
        sub.close()


def test_a_power_cut_while_publishing_resends_from_the_stored_cursor(mosquitto, tmp_path):  # noqa: F811
    sub = Subscriber(mosquitto.port, "goclock/v1/#")
    fw = clock(tmp_path, "t1", mosquitto.port)
    flash = tmp_path / "flash-t1"
    try:
        sub.wait_json("t1/online", lambda m: m["online"])
        play(fw, 4)
        game = status(fw)["game"]
        wait_log(sub, fw, game)
        fw.wait(6000)  # the cursor is written at a quiet moment, at most every 5 s
        for side in ("left", "right", "left"):
            press(fw, side, 300)
        sub.wait(lambda t, p: t.endswith("/log/%d" % game) and p.startswith(b"9 "))
        fw.kill()  # the power is cut: records may be in flight, the cursor a few behind
        stored = cursor_file(flash)
        assert stored is not None and str(game) in stored
        acked_rec = stored[str(game)][0]
        mark = sub.mark()
        fw = boot(flash)
        fw.name = "t1"
        sub.wait_json("t1/online", lambda m: m["online"], after=mark)
        resent = sub.wait(lambda t, p: t.endswith("/log/%d" % game), after=mark)
        # The resend starts right after the last record the stored cursor holds.
        assert int(resent[1].split(b" ")[0]) == acked_rec + 1
        view, want = wait_log(sub, fw, game)
        assert view.gaps == 0 and view.data == want and logline.verify_bytes(want)["ok"]
        assert view.duplicates == 9 - acked_rec  # resent: only what the cursor had not
    finally:
        fw.stop()
        sub.close()


@pytest.fixture
def secured(tmp_path):
    """Mosquitto with accounts and an ACL: a clock publishes only under its own id."""
    import os

    if not os.path.exists(BINARY):
        pytest.skip("Debian's mosquitto is not installed (make mqtt-tools installs it)")
    folder = tmp_path / "broker"
    folder.mkdir()
    pw = passwords(folder, {"t1": "right-password", "t2": "other-password"})
    acl = folder / "acl"
    acl.write_text(
        "topic read goclock/#\ntopic write goclock/+/+/cmd\n"
        "user t1\ntopic readwrite goclock/v1/h/t1/#\n"
        "user t2\ntopic readwrite goclock/v1/h/t2/#\n"
    )
    # As root, mosquitto would drop to its own user, who cannot read the test's folder.
    extra = "password_file %s\nacl_file %s\n" % (pw, acl)
    if os.geteuid() == 0:
        extra += "user root\n"
    broker = Mosquitto(folder, extra)
    yield broker
    broker.stop()


def test_a_wrong_password_is_refused_and_the_clock_plays_on(secured, tmp_path):
    sub = Subscriber(secured.port, "goclock/v1/#")
    bad = clock(tmp_path, "t1", secured.port, user="t1", password="wrong-password")
    good = clock(tmp_path, "t2", secured.port, user="t2", password="other-password")
    try:
        sub.wait_json("t2/online", lambda m: m["online"])
        lines = bad.wait(100)
        notes = [x.get("message", "") for x in lines if isinstance(x, dict) and "notice" in x]
        r = bad.request({"cmd": "watch", "on": True})
        assert r["ok"]
        play(bad, 2)
        assert status(bad)["moves"] == 2
        log = pull_log(bad, status(bad)["game"])
        words = notes + [x.decode() for x in log.split(b"\n")]
        assert any("refused: not authorised" in w or "bad user name" in w for w in words), words
        assert "wrong-password" not in " ".join(words)
        assert not any("/t1/" in m[0] for m in sub.messages)
    finally:
        bad.stop()
        good.stop()
        sub.close()


def test_a_clock_publishing_under_another_id_reaches_nobody(secured, tmp_path):
    sub = Subscriber(secured.port, "goclock/v1/#")
    # t2's account, configured as clock t1: the ACL lets it write only under t2.
    imp = clock(tmp_path, "t1", secured.port, user="t2", password="other-password")
    honest = clock(tmp_path, "t2", secured.port, user="t2", password="other-password")
    try:
        sub.wait_json("t2/online", lambda m: m["online"])
        play(imp, 2)
        play(honest, 1)
        wait_log(sub, honest, status(honest)["game"])
        assert not any(m[0].startswith(topic("t1", "")) for m in sub.messages)
    finally:
        imp.stop()
        honest.stop()
        sub.close()


def _certs(folder):
    """A throwaway CA and a broker certificate for 127.0.0.1 signed by it (openssl)."""

    def ssl(*args):
        subprocess.run(("openssl",) + args, check=True, capture_output=True, cwd=str(folder))

    ec = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    ssl(
        "req",
        "-x509",
        *ec,
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
        "-days",
        "2",
        "-subj",
        "/CN=hall-ca",
    )
    ssl(
        "req",
        *ec,
        "-keyout",
        "other.key",
        "-x509",
        "-out",
        "other.crt",
        "-days",
        "2",
        "-subj",
        "/CN=x",
    )
    ssl("req", *ec, "-keyout", "srv.key", "-out", "srv.csr", "-subj", "/CN=127.0.0.1")
    (folder / "ext").write_text("subjectAltName=IP:127.0.0.1\n")
    ssl(
        "x509",
        "-req",
        "-in",
        "srv.csr",
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "srv.crt",
        "-days",
        "2",
        "-extfile",
        "ext",
    )
    for name in ("ca", "other"):
        ssl("x509", "-in", name + ".crt", "-outform", "DER", "-out", name + ".der")
    return (folder / "ca.der").read_bytes(), (folder / "other.der").read_bytes()


def test_tls_to_the_broker_with_the_halls_ca(tmp_path):
    import os
    import shutil

    if not os.path.exists(BINARY) or not shutil.which("openssl"):
        pytest.skip("needs Debian's mosquitto and openssl")
    folder = tmp_path / "broker"
    folder.mkdir()
    ca, other = _certs(folder)
    plain = free_port()  # the hall's own client listens without TLS
    extra = "cafile {0}/ca.crt\ncertfile {0}/srv.crt\nkeyfile {0}/srv.key\n".format(folder)
    extra += "listener %d 127.0.0.1\n" % plain
    if os.geteuid() == 0:
        extra += "user root\n"
    broker = Mosquitto(folder, extra)
    sub = Subscriber(plain, "goclock/v1/#")
    clocks = []
    try:
        for name, cert in (("t1", ca), ("t2", other)):
            flash_file(tmp_path / ("flash-" + name), "hall-ca.der", cert)
            fw = clock(tmp_path, name, broker.port, tls=True)
            clocks.append(fw)
        good, bad = clocks
        sub.wait_json("t1/online", lambda m: m["online"])
        play(good, 2)
        view, want = wait_log(sub, good, status(good)["game"])
        assert view.gaps == 0 and logline.verify_bytes(want)["ok"]
        bad.request({"cmd": "watch", "on": True})
        play(bad, 1)
        log = pull_log(bad, status(bad)["game"])
        assert b'"notice":"network"' in log  # the broker's certificate was refused
        assert not any("/t2/" in m[0] for m in sub.messages)
    finally:
        for fw in clocks:
            fw.stop()
        sub.close()
        broker.stop()


def test_the_time_of_day_from_sntp_goes_into_the_state_and_the_games_first_record(
    mosquitto,  # noqa: F811
    tmp_path,
):
    import socket
    import struct
    import threading

    server_s = 1796000000  # the fake server's time (s since 1970)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    asked = []

    def serve():
        while True:
            try:
                data, addr = udp.recvfrom(100)
            except OSError:
                return
            asked.append(data[0])
            answer = bytearray(48)
            answer[0] = 0x1C  # version 3, server
            answer[40:48] = struct.pack(">II", server_s + 2208988800, 1 << 31)  # .5 s
            udp.sendto(bytes(answer), addr)

    threading.Thread(target=serve, daemon=True).start()
    sub = Subscriber(mosquitto.port, "goclock/v1/#")
    fw = boot(tmp_path / "flash")
    fw.name = "t1"
    net = dict(
        mqtt={"host": "127.0.0.1", "port": mosquitto.port},
        hall=HALL,
        clock="t1",
        ntp={"host": "127.0.0.1", "port": udp.getsockname()[1]},
    )
    try:
        assert fw.request({"cmd": "config.set", "config": {"network": net}})["ok"]
        st = sub.wait_json("t1/state", lambda m: m["utc"] is not None)
        assert asked and asked[0] == 0x1B  # an SNTP client's request
        assert 0 <= st["utc"] - (server_s * 1000 + 500) < 2000  # the round trip, halved
        press(fw, "right", 500)
        first = json.loads(pull_log(fw, status(fw)["game"]).split(b"\n")[0])
        assert 0 <= first["utc"] - (server_s * 1000 + 500) < 5000
    finally:
        fw.stop()
        sub.close()
        udp.close()
