"""The config's `network` object and `game_info` (storage/netconfig.py) over the serial
protocol, against the real session: passwords are write-only everywhere a config shows."""

import json

from goclockfw.storage import netconfig
from goclockfw.storage.configstore import ConfigStore
from protocol_support import make_device

SECRET_WIFI = "wifi-pass-7f3a91"
SECRET_MQTT = "mqtt-pass-c04e2b"

NETWORK = {
    "wifi": {"ssid": "club", "password": SECRET_WIFI},
    "mqtt": {"host": "127.0.0.1", "port": 1883, "user": "table-12", "password": SECRET_MQTT},
    "hall": "club-open",
    "clock": "table-12",
}


def ask(proto, **req):
    return proto.handle_line(json.dumps(req).encode() + b"\n")


def ok(proto, **req):
    text = ask(proto, **req)
    r = json.loads(text)
    assert r["ok"] is True, r
    return r, text


def no_secret(text):
    assert SECRET_WIFI not in text and SECRET_MQTT not in text, text


def test_network_is_null_by_default_and_normalised_when_set(tmp_path):
    app, proto, _ = make_device(tmp_path)
    r, _ = ok(proto, cmd="config.get")
    assert r["config"]["network"] is None
    assert r["config"]["game_info"] == dict.fromkeys(netconfig.INFO_KEYS)
    r, text = ok(proto, cmd="config.set", config={"network": NETWORK})
    net = r["config"]["network"]
    assert net["mqtt"] == {
        "host": "127.0.0.1",
        "port": 1883,
        "user": "table-12",
        "password": "***",
        "tls": False,
        "ca": "hall-ca.der",
        "keepalive": 60,
    }
    assert net["wifi"] == {"ssid": "club", "password": "***"}
    no_secret(text)
    # Stored for real: the clock itself has them (its MQTT client needs them).
    assert app.store.config["network"]["mqtt"]["password"] == SECRET_MQTT


def test_secrets_never_echoed_by_get_info_errors_or_the_log(tmp_path):
    app, proto, sent = make_device(tmp_path)
    ok(proto, cmd="watch", on=True)
    ok(proto, cmd="press", side="white")  # the game starts: its log takes a config record
    ok(proto, cmd="pause")
    _, text = ok(proto, cmd="config.set", config={"network": NETWORK})
    no_secret(text)
    for cmd in ("config.get", "info", "status"):
        no_secret(ok(proto, cmd=cmd)[1])
    # Errors about a password name the field, never the value given.
    bad = dict(NETWORK, mqtt=dict(NETWORK["mqtt"], password=SECRET_MQTT * 5))
    text = ask(proto, cmd="config.set", config={"network": bad})
    assert '"ok":false' in text and "network.mqtt.password" in text
    no_secret(text)
    bad = dict(NETWORK, wifi={"ssid": "club", "password": ["x", SECRET_WIFI]})
    text = ask(proto, cmd="config.set", config={"network": bad})
    assert '"ok":false' in text
    no_secret(text)
    # The game's log: the config record shows "***".
    gid = app.journal.current
    data, _ = app.journal.read(gid, 0, 100000)
    assert b'"event":"config"' in data and b"***" in data
    no_secret(data.decode())
    for line in sent:
        no_secret(line)
    # The stored config file holds them (on the clock's own flash), nothing else does.
    assert app.store.config["network"]["wifi"]["password"] == SECRET_WIFI


def test_a_set_without_a_password_keeps_the_stored_one(tmp_path):
    app, proto, _ = make_device(tmp_path)
    ok(proto, cmd="config.set", config={"network": NETWORK})
    # A host that read the config ("***") and writes it back, changing something else.
    r, _ = ok(proto, cmd="config.get")
    cfg = r["config"]
    cfg["volume"] = 3
    ok(proto, cmd="config.set", config=cfg)
    assert app.store.config["network"]["mqtt"]["password"] == SECRET_MQTT
    assert app.store.config["network"]["wifi"]["password"] == SECRET_WIFI
    # A network object with the password left out: kept too.
    mqtt = {k: v for k, v in NETWORK["mqtt"].items() if k != "password"}
    ok(proto, cmd="config.set", config={"network": dict(NETWORK, mqtt=mqtt, hall="other")})
    assert app.store.config["network"]["mqtt"]["password"] == SECRET_MQTT
    assert app.store.config["network"]["hall"] == "other"
    # null removes it; a new one replaces it.
    mqtt["password"] = None
    ok(proto, cmd="config.set", config={"network": dict(NETWORK, mqtt=mqtt)})
    assert app.store.config["network"]["mqtt"]["password"] is None
    r, _ = ok(proto, cmd="config.get")
    assert r["config"]["network"]["mqtt"]["password"] is None
    # It survives a reload from flash.
    store = ConfigStore(app.fs)
    assert store.load() is None
    assert store.config["network"]["wifi"]["password"] == SECRET_WIFI


def test_bad_network_fields_are_refused_by_name(tmp_path):
    app, proto, _ = make_device(tmp_path)
    cases = [
        (dict(NETWORK, hall="Club Open"), "network.hall"),
        (dict(NETWORK, clock=""), "network.clock"),
        ({k: v for k, v in NETWORK.items() if k != "mqtt"}, "network.mqtt: missing"),
        (dict(NETWORK, mqtt=dict(NETWORK["mqtt"], port=0)), "network.mqtt.port"),
        (dict(NETWORK, mqtt=dict(NETWORK["mqtt"], tls="yes")), "network.mqtt.tls"),
        (dict(NETWORK, mqtt=dict(NETWORK["mqtt"], extra=1)), "network.mqtt.extra"),
        (dict(NETWORK, wifi={"password": "x"}), "network.wifi.ssid"),
        ("on", "network: must be a JSON object"),
    ]
    for net, words in cases:
        r = json.loads(ask(proto, cmd="config.set", config={"network": net}))
        assert r["ok"] is False and words in r["error"], (net, r)
    assert app.store.config["network"] is None


def test_assign_sets_game_info_and_the_first_record_carries_it(tmp_path):
    app, proto, _ = make_device(tmp_path)
    r, _ = ok(proto, cmd="assign", event="Club Open", round=3, table=12, black="Lee", white="Cho")
    assert r["game_info"] == {
        "event": "Club Open",
        "round": 3,
        "table": 12,
        "black": "Lee",
        "white": "Cho",
        "handicap": None,
    }
    r = json.loads(ask(proto, cmd="assign", round=0))
    assert r["ok"] is False and r["error"].startswith("'round':"), r
    ok(proto, cmd="time.sync", utc=1796000000000)
    r = json.loads(ask(proto, cmd="time.sync", utc=5))
    assert r["ok"] is False
    ok(proto, cmd="press", side="white")
    gid = app.journal.current
    data, _ = app.journal.read(gid, 0, 4096)
    first = json.loads(data.split(b"\n")[0])
    assert first["event"] == "game"
    assert first["info"] == {
        "event": "Club Open",
        "round": 3,
        "table": 12,
        "black": "Lee",
        "white": "Cho",
    }
    assert first["utc"] == 1796000000000  # no time passed since the sync (virtual time)
    # Refused while a clock runs, as any config change.
    r = json.loads(ask(proto, cmd="assign", table=3))
    assert r["ok"] is False and "running" in r["error"]
