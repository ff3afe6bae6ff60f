"""`config set` from every source (notation, GTP strings, --from-ogs, presets) and the slips of
issue 11: negative durations, echoes, presets that shadow a built-in, preset numbers."""

import json

import pytest

from goclock.errors import NotationError
from goclock.timecontrol import notation, ogs, presets
from goclockfw.storage import configcheck
from support.cli import one_line_error, own_home, run  # noqa: F401 (own_home: autouse)

# ----- slips ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["config", "set", "sd", "-5m", "--dry-run"],
        ["config", "set", "byo", "-1h+5x30s", "--dry-run"],
        ["config", "set", "sd", "1h", "white=-10m", "--dry-run"],
        ["presets", "add", "neg", "sd", "-5m"],
    ],
)
def test_negative_durations_are_one_clear_line(capsys, argv):
    rc, out, err = run(capsys, *argv)
    assert rc == 2
    one_line_error(rc, err, "cannot be negative")


@pytest.mark.parametrize(
    "text, echo",
    [("byo 10s+2x60s", "byo 10s+2x60s"), ("byo 1h+0x30s", "byo 1h+0x30s")],
)
def test_the_echo_reads_as_the_user_wrote_it(capsys, text, echo):
    rc, out, err = run(capsys, "config", "set", *text.split(), "--dry-run")
    assert rc == 0 and out.strip() == "time control %s" % echo


def test_gtp_strings_through_config_set(capsys):
    rc, out, err = run(capsys, "config", "set", "time_settings", "1800", "600", "25", "--dry-run")
    assert rc == 0 and out.strip() == "time control can 30m+25/10m"
    rc, out, err = run(
        capsys, "config", "set", "kgs-time_settings", "byoyomi", "1800", "30", "5", "--dry-run"
    )
    assert rc == 0 and out.strip() == "time control byo 30m+5x30s"


def test_options_alone_need_a_time_control(capsys):
    rc, out, err = run(capsys, "config", "set", "calls=none", "--dry-run")
    one_line_error(rc, err, "options need a time control")


# ----- presets: one list, numbered from 1 ------------------------------------------


def test_built_ins_are_the_clocks_factory_presets():
    factory = configcheck.default_presets()
    assert [b[0] for b in presets.BUILTIN] == [p["name"] for p in factory]
    for (name, text, about), p in zip(presets.BUILTIN, factory):
        assert notation.parse(text) == p["time_control"]
        assert about, name  # every built-in says what it is for
    assert set(presets.ABOUT) == {p["name"] for p in factory}
    assert len(factory) <= presets.MAX_ON_CLOCK


def test_adding_a_built_in_name_needs_force(capsys):
    rc, out, err = run(capsys, "presets", "add", "Fischer", "fischer", "5m+3s")
    one_line_error(rc, err, "'Fischer' is a built-in preset")
    assert presets.user_presets() == []
    rc, out, err = run(capsys, "presets", "add", "fischer", "fischer", "5m+3s", "--force")
    assert rc == 0, err
    assert presets.find("fischer")["time_control"]["main"] == 300  # yours is used


def test_presets_are_numbered_from_1(line, capsys):
    rc, out, err = run(
        capsys, "--port", line.path, "presets", "push", "cn-national", "ing", "--yes"
    )
    assert rc == 0, err
    assert out.splitlines()[:2] == ["1  cn-national  cn 2h/5", "2  ing  ing 3h+3x20m"]
    assert [p["name"] for p in line.session.commands.get_presets()] == ["cn-national", "ing"]
    rc, out, err = run(capsys, "--port", line.path, "presets", "list", "--device")
    rows = [line.split() for line in out.splitlines() if "cn-national" in line or " ing " in line]
    assert [r[1] for r in rows] == ["1", "2"]


# ----- OGS -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "obj, expected",
    [
        (
            {
                "system": "byoyomi",
                "speed": "live",
                "main_time": 600,
                "period_time": 30,
                "periods": 5,
            },
            {"type": "byoyomi", "main": 600, "periods": 5, "period": 30},
        ),
        (
            {"system": "fischer", "initial_time": 300, "time_increment": 10, "max_time": 600},
            {"type": "fischer", "main": 300, "increment": 10, "max": 600},
        ),
        (
            {"system": "canadian", "main_time": 600, "period_time": 300, "stones_per_period": 20},
            {"type": "canadian", "main": 600, "moves": 20, "period": 300, "carry": False},
        ),
        (
            {"system": "simple", "per_move": 30},
            {"type": "byoyomi", "main": 0, "periods": 1, "period": 30},
        ),
        ({"system": "absolute", "total_time": 1800}, {"type": "sudden_death", "main": 1800}),
        ({"system": "none", "speed": "correspondence"}, {"type": "untimed"}),
        (
            {"id": 1, "time_control": {"system": "absolute", "total_time": 900}},
            {"type": "sudden_death", "main": 900},
        ),
        (
            {"time_control_parameters": json.dumps({"system": "simple", "per_move": 20})},
            {"type": "byoyomi", "main": 0, "periods": 1, "period": 20},
        ),
    ],
)
def test_ogs_time_controls(obj, expected):
    assert ogs.time_control(obj) == expected
    notation.apply_options(ogs.time_control(obj), "")  # and the clock takes it


@pytest.mark.parametrize(
    "obj, message",
    [
        ({"system": "byoyomi", "main_time": 600, "periods": 5}, "needs period_time"),
        ({"system": "fischer", "initial_time": 300, "time_increment": "10"}, "time_increment"),
        ({"system": "hourglass"}, "unknown OGS time system 'hourglass'"),
        ({"main_time": 600}, "no OGS time control found"),
    ],
)
def test_bad_ogs_time_controls(obj, message):
    with pytest.raises(NotationError) as err:
        ogs.time_control(obj)
    assert message in str(err.value)


def test_config_set_from_ogs_with_options(line, capsys, tmp_path):
    path = tmp_path / "game.json"
    path.write_text(
        json.dumps({"system": "fischer", "initial_time": 600, "time_increment": 5, "max_time": 900})
    )
    rc, out, err = run(
        capsys, "--port", line.path, "config", "set", "--from-ogs", str(path), "first=white"
    )
    assert rc == 0, err
    sent = [r for r in line.requests if r["cmd"] == "config.set"][0]["config"]["time_control"]
    assert line.session.store.config["time_control"] == sent  # as the clock keeps it
    assert sent == {
        "type": "fischer",
        "main": 600,
        "increment": 5,
        "max": 900,
        "calls": "cn",
        "first": "white",
    }
    assert "fischer 10m+5s max 15m first=white" in out
    path.write_text(
        json.dumps({"system": "fischer", "initial_time": 600, "time_increment": 5, "max_time": 300})
    )
    rc, out, err = run(capsys, "config", "set", "--from-ogs", str(path), "--dry-run")
    one_line_error(rc, err, "max: must be at least the main time")
    rc, out, err = run(
        capsys, "config", "set", "--from-ogs", str(path), "--from-sgf", "x.sgf", "--dry-run"
    )
    one_line_error(rc, err, "give the time control one way")


def test_a_misspelt_time_control_is_named_not_taken_for_options(capsys):
    rc, out, err = run(capsys, "config", "set", "fisher", "5m+10s", "--dry-run")
    one_line_error(rc, err, "unknown time control 'fisher' — did you mean fischer?")
    rc, out, err = run(capsys, "config", "set", "cn2h/5", "calls=silent", "--dry-run")
    assert rc == 0 and out.strip() == "time control cn 2h/5 calls=none", err
