"""The hall's payloads the bridge builds (goclock/bridge/hallformat.py), checked alone."""

import pytest

from goclock.bridge import hallformat as fmt


def test_topics_and_names():
    assert fmt.topic("club-open", "table-12", "state") == "goclock/v1/club-open/table-12/state"
    for bad in ("", "Table12", "a/b", "x" * 33, "+", "#"):
        with pytest.raises(ValueError):
            fmt.root("hall", bad)


def test_log_slices_hold_a_record_and_the_marks_before_it():
    log = b'{"event":"game","c":"1"}\n...\n{"event":"start","c":"2"}\n..'
    cut, used = fmt.slices(log, 100, 4)
    assert cut == [
        (5, 100, b'{"event":"game","c":"1"}\n'),
        (6, 125, b'...\n{"event":"start","c":"2"}\n'),
    ]
    assert log[used:] == b".."  # marks with no record after them yet wait for the next
    assert fmt.slice_payload(6, 126, b"x\n") == b"6 126\nx\n"
    assert fmt.slices(b'{"cut', 0, 0) == ([], 0)  # a record not whole yet: nothing


def test_what_the_hall_may_ask():
    assert fmt.check_cmd(b'{"id":1,"cmd":"pause"}') == ({"id": 1, "cmd": "pause"}, None)
    refused = {
        b'{"id":1,"cmd":"config.set","config":{}}': (1, "not allowed over the network"),
        b'{"id":2,"cmd":"logs.clear"}': (2, "not allowed over the network"),
        b'{"id":3,"cmd":"maintenance"}': (3, "not allowed over the network"),
        b'{"id":4}': (4, "missing 'cmd'"),
        b"[1]": (None, "a request must be a JSON object"),
        b'{"id":[1],"cmd":"pause"}': (None, "'id' must be an integer or a string"),
        b'{"id":5,"cmd":"pause","cmd":"reset"}': (None, "bad JSON: duplicate key at byte 22"),
        b'{"id":6,"cmd":"status","x":"' + b"y" * 1100 + b'"}': (None, "request over 1024 bytes"),
    }
    for payload, (rid, error) in refused.items():
        req, reply = fmt.check_cmd(payload)
        assert req is None and reply == {"id": rid, "ok": False, "error": error}, payload


def test_a_reset_over_the_network_needs_a_confirm_for_a_paused_game():
    assert fmt.reset_refusal({"id": 1, "cmd": "reset"}, "paused")["ok"] is False
    assert fmt.reset_refusal({"id": 1, "cmd": "reset", "confirm": True}, "paused") is None
    assert fmt.reset_refusal({"id": 1, "cmd": "reset"}, "idle") is None
    assert fmt.reset_refusal({"id": 1, "cmd": "reset"}, "ended") is None


def test_a_change_of_state_is_not_a_change_of_time():
    a = {"state": "running", "turn": "black", "black": {"main_ms": 5000, "flagged": False}}
    b = {"state": "running", "turn": "black", "black": {"main_ms": 4000, "flagged": False}}
    c = {"state": "running", "turn": "white", "black": {"main_ms": 4000, "flagged": False}}
    assert fmt.shape(a) == fmt.shape(b) != fmt.shape(c)
