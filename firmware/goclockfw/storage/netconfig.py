"""The config's `network` object and `game_info`: checked here, secrets kept write-only.

    "network": {"wifi": {"ssid": "club", "password": "..."},
                "mqtt": {"host": "192.168.1.10", "port": 1883, "user": "table-12",
                         "password": "...", "tls": false, "ca": "hall-ca.der",
                         "keepalive": 60},
                "hall": "club-open-2027", "clock": "table-12"}
    "game_info": {"event": "Club Open", "round": 3, "table": 12,
                  "black": "Lee", "white": "Cho", "handicap": 0}

`network` null (the default) is a clock without a network: nothing of goclockfw.net is
imported. The two passwords are write-only: `public` is the config as anyone may see it
(a password that is set shows as "***"), and `keep_secrets` fills a password a
`config.set` left out (or sent back as "***", as `config.get` shows it) from the stored
config, so a host that reads, edits and writes the config never wipes it. No message of
this module names a password's value. docs/protocol.md (Config) documents every field.
"""

from goclockfw.core.timecontrol import ConfigError

HIDDEN = "***"
MAX_TEXT = 64
_NAME_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_-"
_INFO_TEXT = ("event", "black", "white")
_INFO_INT = (("round", 1, 9999), ("table", 1, 9999), ("handicap", 0, 9))
INFO_KEYS = ("event", "round", "table", "black", "white", "handicap")
_WIFI_KEYS = ("ssid", "password")
_MQTT_KEYS = ("host", "port", "user", "password", "tls", "ca", "keepalive")
CA_FILE = "hall-ca.der"  # the CA of the hall's broker, in DER, on the clock's flash
_NETWORK_KEYS = ("wifi", "mqtt", "hall", "clock", "ntp")


def _object(name, v, keys):
    if not isinstance(v, dict):
        raise ConfigError("%s: must be a JSON object" % name)
    for k in sorted(v):
        if k not in keys:
            raise ConfigError("%s.%s: unknown key" % (name, k))
    return v


# The messages name the field and never echo what was given: a password's value must
# never be shown, and the repr of other values differs between CPython and MicroPython.
def _text(name, v, lo, hi):
    if not isinstance(v, str) or not lo <= len(v) <= hi:
        raise ConfigError("%s: must be text of %d to %d characters" % (name, lo, hi))
    return v


def _int(name, v, lo, hi):
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise ConfigError("%s: must be a whole number from %d to %d" % (name, lo, hi))
    return v


def name_field(name, v):
    """A hall's or a clock's name: a topic level, 1-32 of a-z 0-9 _ -."""
    _text(name, v, 1, 32)
    for ch in v:
        if ch not in _NAME_CHARS:
            raise ConfigError("%s: only a-z, 0-9, '_' and '-' allowed" % name)
    return v


def _password(name, v):
    if v is None or v == "":
        return None
    return _text(name, v, 1, MAX_TEXT)


def _wifi(name, v):
    if v is None:
        return None
    _object(name, v, _WIFI_KEYS)
    if "ssid" not in v:
        raise ConfigError("%s.ssid: missing" % name)
    return {
        "ssid": _text(name + ".ssid", v["ssid"], 1, 32),
        "password": _password(name + ".password", v.get("password")),
    }


def _mqtt(name, v):
    _object(name, v, _MQTT_KEYS)
    if "host" not in v:
        raise ConfigError("%s.host: missing" % name)
    host = _text(name + ".host", v["host"], 1, MAX_TEXT)
    user = v.get("user")
    tls = v.get("tls", False)
    if tls is not True and tls is not False:
        raise ConfigError("%s.tls: must be true or false" % name)
    return {
        "host": host,
        "port": _int(name + ".port", v.get("port", 1883), 1, 65535),
        "user": None if user is None or user == "" else _text(name + ".user", user, 1, MAX_TEXT),
        "password": _password(name + ".password", v.get("password")),
        "tls": tls,
        "ca": _text(name + ".ca", v.get("ca", CA_FILE), 1, MAX_TEXT),
        "keepalive": _int(name + ".keepalive", v.get("keepalive", 60), 10, 600),
    }


def network_field(name, v):
    """The normalised `network` object, or None (no network)."""
    if v is None:
        return None
    _object(name, v, _NETWORK_KEYS)
    for k in ("mqtt", "hall", "clock"):
        if k not in v:
            raise ConfigError("%s.%s: missing" % (name, k))
    return {
        "wifi": _wifi(name + ".wifi", v.get("wifi")),
        "mqtt": _mqtt(name + ".mqtt", v["mqtt"]),
        "hall": name_field(name + ".hall", v["hall"]),
        "clock": name_field(name + ".clock", v["clock"]),
        "ntp": _ntp(name + ".ntp", v.get("ntp")),
    }


def _ntp(name, v):
    """An SNTP server for the time of day ({"host", "port"}), or None: none asked."""
    if v is None:
        return None
    _object(name, v, ("host", "port"))
    if "host" not in v:
        raise ConfigError("%s.host: missing" % name)
    return {
        "host": _text(name + ".host", v["host"], 1, MAX_TEXT),
        "port": _int(name + ".port", v.get("port", 123), 1, 65535),
    }


def game_info_field(name, v):
    """The game's details: each null when not known."""
    if v is None:
        v = {}
    _object(name, v, INFO_KEYS)
    out = {}
    for k in _INFO_TEXT:
        x = v.get(k)
        out[k] = None if x is None or x == "" else _text(name + "." + k, x, 1, MAX_TEXT)
    for k, lo, hi in _INFO_INT:
        x = v.get(k)
        out[k] = None if x is None else _int(name + "." + k, x, lo, hi)
    return out


def public(cfg):
    """`cfg` as config.get, a log record or anything else shown may carry it: a password
    that is set reads "***"."""
    net = cfg.get("network")
    if not net:
        return cfg
    out = dict(cfg)
    shown = dict(net)
    for part in ("wifi", "mqtt"):
        sec = net.get(part)
        if isinstance(sec, dict) and sec.get("password") is not None:
            sec = dict(sec)
            sec["password"] = HIDDEN
            shown[part] = sec
    out["network"] = shown
    return out


def keep_secrets(new, stored):
    """A `config.set`'s merged config with the passwords it left out, or gave as "***",
    taken from the stored config (in place; `new` is the request's copy)."""
    net = new.get("network")
    old = stored.get("network")
    if not isinstance(net, dict):
        return new
    net = dict(net)
    new["network"] = net
    for part in ("wifi", "mqtt"):
        sec = net.get(part)
        if not isinstance(sec, dict):
            continue
        pw = sec.get("password", HIDDEN)
        if pw != HIDDEN:
            continue
        sec = dict(sec)
        prev = old.get(part) if isinstance(old, dict) else None
        keep = prev.get("password") if isinstance(prev, dict) else None
        if keep is None:
            sec.pop("password", None)
        else:
            sec["password"] = keep
        net[part] = sec
    return new
