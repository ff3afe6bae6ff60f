"""`goclock config set` with the game's details (--event, --round, --table, --black, --white,
--handicap) and the network object (--network FILE), against the real firmware: one option
changes one field, the clock's own checks refuse, and no password is ever shown."""

import json

from support.cli import one_line_error, own_home, run  # noqa: F401 (own_home: autouse)


def stored(line):
    return line.session.store.config


def test_the_details_are_set_and_one_option_changes_one_field(line, capsys):
    rc, out, err = run(
        capsys,
        "--port",
        line.path,
        "config",
        "set",
        "--event",
        "Club Open 2027",
        "--round",
        "3",
        "--table",
        "12",
        "--black",
        "Ann",
        "--white",
        "Bo",
        "--handicap",
        "2",
    )
    assert rc == 0, err
    assert stored(line)["game_info"] == {
        "event": "Club Open 2027",
        "round": 3,
        "table": 12,
        "black": "Ann",
        "white": "Bo",
        "handicap": 2,
    }
    # The clock replaces game_info as a whole; the tool keeps the fields not given.
    rc, out, err = run(capsys, "--port", line.path, "config", "set", "--round", "4")
    assert rc == 0, err
    assert stored(line)["game_info"]["round"] == 4
    assert stored(line)["game_info"]["event"] == "Club Open 2027"
    assert stored(line)["game_info"]["white"] == "Bo"
    # An empty name clears it.
    rc, out, err = run(capsys, "--port", line.path, "config", "set", "--white", "")
    assert rc == 0, err
    assert (
        stored(line)["game_info"]["white"] is None and stored(line)["game_info"]["black"] == "Ann"
    )


def test_details_the_clock_refuses_are_one_line_and_change_nothing(line, capsys):
    rc, out, err = run(capsys, "--port", line.path, "config", "set", "--event", "Open")
    assert rc == 0, err
    before = dict(stored(line)["game_info"])
    rc, out, err = run(capsys, "--port", line.path, "config", "set", "--black", "x" * 65)
    one_line_error(rc, err, "black")
    assert stored(line)["game_info"] == before
    rc, out, err = run(capsys, "config", "set", "--handicap", "12", "--dry-run")
    one_line_error(rc, err, "from 0 to 9")


def test_the_network_object_is_set_and_its_passwords_never_shown(line, capsys, tmp_path):
    net = {
        "wifi": {"ssid": "club", "password": "wifi-secret-1"},
        "mqtt": {"host": "127.0.0.1", "port": 1883, "user": "table-12", "password": "mq-secret-2"},
        "hall": "club-open-2027",
        "clock": "table-12",
    }
    path = tmp_path / "network.json"
    path.write_text(json.dumps(net))
    for extra in ([], ["--json"], ["--dry-run"], ["--dry-run", "--json"]):
        rc, out, err = run(
            capsys, "--port", line.path, "config", "set", "--network", str(path), *extra
        )
        assert rc == 0, err
        for secret in ("wifi-secret-1", "mq-secret-2"):
            assert secret not in out and secret not in err, (extra, out, err)
    network = stored(line)["network"]
    assert network["mqtt"]["host"] == "127.0.0.1" and network["clock"] == "table-12"
    assert network["mqtt"]["password"] == "mq-secret-2"  # kept by the clock, write-only
    rc, out, err = run(capsys, "--port", line.path, "config", "show", "--json")
    assert rc == 0 and "mq-secret-2" not in out and "wifi-secret-1" not in out
    path.write_text("[1, 2]")
    rc, out, err = run(capsys, "config", "set", "--network", str(path), "--dry-run")
    one_line_error(rc, err, "must hold a JSON object")
