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
        self._defaults(configcheck)
        self.warning = None  # what went wrong at the last load, for the app to say
        self.missing = False  # the last load found no stored config at all (a first boot)

    def load(self):
        """Read the stored config; return the warning text or None."""
        from goclockfw.core.timecontrol import ConfigError
        from goclockfw.storage import configcheck

        self._defaults(configcheck)
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
        presets = _good_presets(stored, problems)
        if presets is not None:
            self._stored = True
            self.preset_count = len(presets)
        if problems:
            self.warning = "config damaged (%s): defaults used there" % ", ".join(problems)
        else:
            self.warning = None
        return self.warning

    def _defaults(self, configcheck):
        self.config = configcheck.default_config()
        # The presets are not held: read from the file when asked (`presets`, `preset`),
        # 1 KB of the heap on an RP2040 kept free. `preset_count` is all a running clock
        # keeps; `_stored` says whether the file's presets (True) or the defaults count.
        self.preset_count = len(configcheck.default_presets())
        self._stored = False
        self._shown = None  # (index, preset): the last one `preset` read (the menu's)

    def presets(self):
        """The presets (a new list): the file's good ones, as `load` counted them, or the
        defaults. Raises OSError when the file cannot be read now: a caller refuses
        rather than start a game on a time control nobody chose."""
        from goclockfw.modules import CONFIG_CHECKS, release
        from goclockfw.storage import configcheck

        if not self._stored:
            presets = configcheck.default_presets()
        else:
            stored, problem = self.fs.read_atomic(self.name, _decode)
            presets = None if stored is None else _good_presets(stored, [])
        release(CONFIG_CHECKS)  # (a running clock asks rarely: a reset, the menu)
        if presets is None:
            raise OSError("presets unreadable (%s)" % (problem or "no list"))
        return presets

    def preset(self, i):
        """Preset `i` (from 0) of `presets`; the last one read is kept (the menu's, drawn
        again at each change). Raises OSError as `presets` does, IndexError past the end."""
        shown = self._shown
        if shown is not None and shown[0] == i:
            return shown[1]
        p = self.presets()[i]
        self._shown = (i, p)
        return p

    def save(self, config=None, presets=None):
        """Store (already validated) config and/or presets; raises OSError (then nothing
        changed, in flash or here: the presets kept are read first when only the config
        changes)."""
        new_config = self.config if config is None else config
        new_presets = self.presets() if presets is None else presets
        text = json.dumps({"version": 1, "config": new_config, "presets": new_presets})
        self.fs.write_atomic(self.name, text.encode())
        # Only once the file is safely written does the store change.
        self.config = new_config
        self.preset_count = len(new_presets)
        self._stored = True
        self._shown = None


def _good_presets(stored, problems):
    """The stored file's presets that pass their checks, in order (a bad one is left out,
    named in `problems`), or None when it holds no list of them."""
    from goclockfw.core.timecontrol import ConfigError
    from goclockfw.storage import configcheck

    presets = stored.get("presets")
    if not isinstance(presets, list):
        problems.append("presets")
        return None
    good = []
    for i, p in enumerate(presets[: configcheck.MAX_PRESETS]):
        try:
            good.append(configcheck.preset(i, p))
        except ConfigError:
            problems.append("presets[%d]" % i)
    return good
