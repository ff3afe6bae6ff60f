"""The device config and the time-control presets, kept in flash.

    {"time_control": {...}, "buttons": {"left": "black"}, "volume": 7,
     "voice": "zh", "battery_low_mv": 3500, "game_info": {...}, "network": null}

The store writes config and presets together in one file, atomically (FS.write_atomic),
and checks them field by field when loading (storage/configcheck.py: the checks and the
defaults; `game_info` and `network` in storage/netconfig.py, whose passwords are
write-only): a damaged field or preset falls back to its default, a damaged or missing
file to all defaults, and `warning` says what happened so the app can announce it. The
checks are imported by `load` (and by `config.set`), never at this module's top: a running
clock holds the store, not its checks (goclockfw/modules.py).
"""

import json

FILE = "config.json"


def _decode(data):
    obj = json.loads(data.decode())
    if not isinstance(obj, dict):
        raise ValueError("not a JSON object")
    return obj


class ConfigStore:
    """Loads and saves config + presets through an FS (firmware/goclockfw/storage/fs.py)."""

    def __init__(self, fs, name=FILE):
        from goclockfw.storage import configcheck

        self.fs = fs
        self.name = name
        self.config = configcheck.default_config()
        self.presets = configcheck.default_presets()
        self.warning = None  # what went wrong at the last load, for the app to say
        self.missing = False  # the last load found no stored config at all (a first boot)

    def load(self):
        """Read the stored config; return the warning text or None."""
        from goclockfw.core.timecontrol import ConfigError
        from goclockfw.storage import configcheck

        self.config = configcheck.default_config()
        self.presets = configcheck.default_presets()
        problems = []
        stored, problem = self.fs.read_atomic(self.name, _decode)
        self.missing = stored is None and problem == "missing"
        if stored is None:
            if problem == "missing":
                self.warning = "no stored config: defaults in use"
            else:
                self.warning = "config damaged (%s): defaults in use" % problem
            return self.warning
        cfg = stored.get("config")
        if not isinstance(cfg, dict):
            problems.append("config section")
            cfg = {}
        for k in cfg:
            try:
                self.config[k] = configcheck.field(k, cfg[k])
            except ConfigError:
                problems.append(k)  # its default stays (an unknown field is dropped)
        presets = stored.get("presets")
        if isinstance(presets, list):
            good = []
            for i, p in enumerate(presets[: configcheck.MAX_PRESETS]):
                try:
                    good.append(configcheck.preset(i, p))
                except ConfigError:
                    problems.append("presets[%d]" % i)
            self.presets = good
        else:
            problems.append("presets")
        if problems:
            self.warning = "config damaged (%s): defaults used there" % ", ".join(problems)
        else:
            self.warning = None
        return self.warning

    def save(self, config=None, presets=None):
        """Store (already validated) config and/or presets; raises OSError."""
        new_config = self.config if config is None else config
        new_presets = self.presets if presets is None else presets
        text = json.dumps({"version": 1, "config": new_config, "presets": new_presets})
        self.fs.write_atomic(self.name, text.encode())
        # Only once the file is safely written does the store change.
        self.config = new_config
        self.presets = new_presets
