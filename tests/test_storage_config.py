"""Config and presets: validation, atomic saves, and damaged files falling back to defaults."""

import json

import pytest

from goclockfw.core.timecontrol import ConfigError
from goclockfw.storage.configcheck import (
    default_config,
    default_presets,
    validate_config,
    validate_presets,
)
from goclockfw.storage.configstore import ConfigStore
from goclockfw.storage.fs import FS


def test_defaults_are_valid():
    cfg = default_config()
    assert validate_config(cfg) == cfg == validate_config({})
    assert cfg["time_control"] == {
        "type": "byoyomi",
        "main": 6900,
        "periods": 5,
        "period": 60,
        "calls": "cn",
    }
    presets = default_presets()
    assert 1 <= len(presets) <= 10
    assert validate_presets(presets) == validate_presets(validate_presets(presets))


@pytest.mark.parametrize(
    "cfg, message",
    [
        ([], "config: must be a JSON object"),
        ({"colour": 1}, "colour: unknown config field"),
        ({"volume": 11}, "volume: must be from 0 to 10, got 11"),
        ({"volume": True}, "volume: must be a whole number, got True"),
        ({"volume": 2.5}, "volume: must be a whole number"),
        ({"voice": ""}, "voice: must be a voice pack name"),
        ({"voice": "../x"}, "voice: only a-z, 0-9"),
        ({"battery_low_mv": -1}, "battery_low_mv: must be from 0 to 20000"),
        ({"buttons": "left"}, "buttons: must be an object"),
        ({"buttons": {"left": "red"}}, "buttons.left: must be 'black' or 'white'"),
        ({"buttons": {"right": "black"}}, "buttons.right: unknown key"),
        ({"time_control": 5}, "time_control: must be a JSON object"),
        ({"time_control": {"type": "sandglass"}}, "time_control.type: unknown time control"),
        (
            {"time_control": {"type": "byoyomi", "main": 60, "periods": 3, "period": 0}},
            "time_control.period: must be more than 0",
        ),
    ],
)
def test_validation_names_the_field(cfg, message):
    with pytest.raises(ConfigError) as e:
        validate_config(cfg)
    assert str(e.value).startswith(message), str(e.value)


def test_validation_normalises_and_fills_defaults():
    cfg = validate_config(
        {"volume": 0, "time_control": {"type": "fischer", "main": 90.5, "increment": 2}}
    )
    assert cfg["volume"] == 0 and cfg["voice"] == "zh" and cfg["buttons"] == {"left": "black"}
    assert cfg["time_control"] == {"type": "fischer", "main": 90.5, "increment": 2, "calls": "cn"}


@pytest.mark.parametrize(
    "presets, message",
    [
        ({}, "presets: must be a list"),
        (
            [{"name": "a", "time_control": {"type": "sudden_death", "main": 60}}] * 11,
            "presets: at most 10",
        ),
        ([5], "presets[0]: must be an object"),
        ([{"name": "a"}], "presets[0].time_control: missing"),
        ([{"name": "x" * 33, "time_control": {}}], "presets[0].name: must be text of 1 to 32"),
        (
            [
                {"name": "ok", "time_control": {"type": "sudden_death", "main": 60}},
                {"name": "bad", "time_control": {"type": "sudden_death", "main": 0}},
            ],
            "presets[1].time_control.main: must be more than 0",
        ),
        ([{"name": "a", "time_control": {}, "x": 1}], "presets[0].x: unknown key"),
    ],
)
def test_preset_validation(presets, message):
    with pytest.raises(ConfigError) as e:
        validate_presets(presets)
    assert str(e.value).startswith(message), str(e.value)


def test_missing_config_gives_defaults_and_says_so(tmp_path):
    store = ConfigStore(FS(str(tmp_path)))
    assert store.load() == "no stored config: defaults in use"
    assert store.missing  # the app then stores the defaults (a first boot), saying nothing
    assert store.config == default_config() and store.presets() == default_presets()


def test_save_and_load_round_trip(tmp_path):
    fs = FS(str(tmp_path))
    store = ConfigStore(fs)
    cfg = validate_config({"volume": 2, "voice": "en", "buttons": {"left": "white"}})
    presets = validate_presets(
        [{"name": "blitz", "time_control": {"type": "fischer", "main": 180, "increment": 2}}]
    )
    store.save(config=cfg, presets=presets)
    assert fs.size("config.json.new") == -1  # renamed over, nothing left behind
    again = ConfigStore(fs)
    assert again.load() is None
    assert again.config == cfg and again.presets() == presets


def write(fs, name, data):
    with fs.open(name, "wb") as f:
        f.write(data)


def test_damaged_file_falls_back_to_defaults(tmp_path):
    fs = FS(str(tmp_path))
    for junk in (b"", b"{", b"\xff\xfe", b"[1,2]", b"null", b"\x00" * 40):
        write(fs, "config.json", junk)
        store = ConfigStore(fs)
        warning = store.load()
        assert warning.startswith("config damaged"), junk
        assert not store.missing  # damaged is not missing: the app says so, keeps the file
        assert store.config == default_config() and store.presets() == default_presets()


def test_one_bad_field_keeps_the_others(tmp_path):
    fs = FS(str(tmp_path))
    stored = {
        "config": {"volume": 99, "voice": "en", "buttons": {"left": "white"}, "old_field": 1},
        "presets": [
            {"name": "fine", "time_control": {"type": "sudden_death", "main": 60}},
            {"name": "broken", "time_control": {"type": "sudden_death"}},
        ],
    }
    write(fs, "config.json", json.dumps(stored).encode())
    store = ConfigStore(fs)
    warning = store.load()
    assert warning == "config damaged (volume, old_field, presets[1]): defaults used there"
    assert store.config["volume"] == default_config()["volume"]
    assert store.config["voice"] == "en" and store.config["buttons"] == {"left": "white"}
    assert [p["name"] for p in store.presets()] == ["fine"]
    assert store.preset_count == 1 and store.preset(0)["name"] == "fine"


def test_torn_file_at_every_offset_is_old_new_or_defaults(tmp_path):
    """A write cut anywhere: the reader gets the old config, the new one, never a mix."""
    fs = FS(str(tmp_path))
    store = ConfigStore(fs)
    old = validate_config({"volume": 1})
    new = validate_config({"volume": 9, "voice": "jp"})
    store.save(config=old)
    store.save(config=new)
    good_new = fs.read("config.json")
    store.save(config=old)
    good_old = fs.read("config.json")
    for cut in range(0, len(good_new), 7):
        # the new copy was being written next to the old one
        write(fs, "config.json", good_old)
        write(fs, "config.json.new", good_new[:cut])
        s = ConfigStore(fs)
        assert s.load() is None and s.config == old
        # FAT path: the old file already removed, the new one complete
    fs.remove("config.json")
    write(fs, "config.json.new", good_new)
    s = ConfigStore(fs)
    s.load()
    assert s.config == new


def test_failed_save_changes_nothing(tmp_path):
    class Full(FS):
        def write_atomic(self, name, data):
            raise OSError(28, "no space")

    store = ConfigStore(Full(str(tmp_path)))
    store.load()
    before = dict(store.config)
    with pytest.raises(OSError):
        store.save(config=validate_config({"volume": 0}))
    assert store.config == before


# ----- presets read from flash when asked (not held: 1 KB of an RP2040's heap) -----------


def test_presets_are_read_when_asked_not_held(tmp_path):
    fs = FS(str(tmp_path))
    mine = validate_presets(
        [
            {"name": "p%d" % i, "time_control": {"type": "sudden_death", "main": 60 + i}}
            for i in range(3)
        ]
    )
    ConfigStore(fs).save(config=default_config(), presets=mine)
    store = ConfigStore(fs)
    assert store.load() is None
    assert store.preset_count == 3
    assert not any(isinstance(v, list) for v in vars(store).values())  # only the count is kept
    assert store.presets() == mine and store.preset(2) == mine[2]
    with pytest.raises(IndexError):
        store.preset(3)


def test_presets_unreadable_later_are_refused_not_replaced(tmp_path):
    fs = FS(str(tmp_path))
    mine = validate_presets(
        [{"name": "mine", "time_control": {"type": "fischer", "main": 60, "increment": 5}}]
    )
    ConfigStore(fs).save(config=default_config(), presets=mine)
    store = ConfigStore(fs)
    assert store.load() is None
    write(fs, "config.json", b"{")  # damaged after the boot read it
    with pytest.raises(OSError, match="presets unreadable"):
        store.presets()
    with pytest.raises(OSError):
        store.preset(0)
    # A config change must not write the defaults over presets it cannot read.
    with pytest.raises(OSError):
        store.save(config=validate_config({"volume": 3}))
    assert fs.read("config.json") == b"{" and store.config == default_config()
    store.save(presets=mine)  # a new list replaces them whole: no read needed
    assert store.presets() == mine and store.preset_count == 1


def test_defaults_in_use_need_no_read(tmp_path):
    fs = FS(str(tmp_path))
    store = ConfigStore(fs)
    assert store.load() == "no stored config: defaults in use"
    write(fs, "config.json", b"{")  # not what the boot read: the defaults stay
    assert store.presets() == default_presets() and store.preset_count == len(default_presets())
