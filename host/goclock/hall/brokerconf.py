"""`goclock hall setup`: a Mosquitto (Debian's `mosquitto`, 2.0) configuration for a hall.

Writes into one folder:

- `mosquitto.conf`: an MQTT listener and a WebSocket listener (TLS on both when a
  certificate and key are given), no anonymous access unless spectators are wanted,
  persistence on (a hall view's queued messages survive a broker restart), queues large
  enough for a hall view that is away for a while;
- `passwd`: one account per clock (its user name is the clock's name), `hall` and
  `arbiter`, hashed by Mosquitto's own `mosquitto_passwd -U` (the plain file it hashes in
  place is written 0600 and never leaves the folder);
- `acl`: a clock writes only under `goclock/v1/<hall>/<its name>/` and reads only its own
  `cmd`; the hall and the arbiters read everything of the hall and write `cmd`; an
  anonymous spectator (with --spectators) reads `state` and `event` only;
- `secrets/<account>.pw`: each account's generated password, 0600, for the clock's
  config or `goclock bridge --mqtt-password-file` and `goclock hall --password-file`.

Passwords are never printed or logged: the command prints where they are.
"""

import os
import secrets
import shutil
import subprocess

from ..bridge.hallformat import VERSION_ROOT, check_name
from ..errors import DeviceIOError, UsageError

STAFF = ("hall", "arbiter")
PASSWD_TOOL = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"


def acl_text(hall, spectators):
    root = "%s/%s" % (VERSION_ROOT, hall)
    lines = [
        "# goclock hall %s: who may read and write what (written by goclock hall setup)" % hall
    ]
    if spectators:
        lines += [
            "# anonymous spectators (the lines before any user): state and events only",
            "topic read %s/+/state" % root,
            "topic read %s/+/event" % root,
        ]
    lines += [
        "",
        "# each clock, by its user name: its own topics, and only its own cmd to read",
    ]
    for leaf in ("online", "state", "event", "log/+", "reply", "arbiter"):
        lines.append("pattern write %s/%%u/%s" % (root, leaf))
    lines.append("pattern read %s/%%u/cmd" % root)
    for user in STAFF:
        lines += [
            "",
            "user %s" % user,
            "topic read %s/#" % root,
            "topic write %s/+/cmd" % root,
        ]
    return "\n".join(lines) + "\n"


def conf_text(
    folder, port, ws_port, spectators, cert=None, key=None, bind="0.0.0.0", log_refused=False
):
    def tls_lines():
        if not cert:
            return []
        return ["certfile %s" % cert, "keyfile %s" % key, "tls_version tlsv1.2"]

    lines = [
        "# Mosquitto for a goclock hall (written by goclock hall setup; docs/hall.md)",
        "per_listener_settings false",
        "allow_anonymous %s" % ("true" if spectators else "false"),
        "password_file %s" % os.path.join(folder, "passwd"),
        "acl_file %s" % os.path.join(folder, "acl"),
        "persistence true",
        "persistence_location %s/" % os.path.join(folder, "data"),
        "autosave_interval 5",
        "# a hall view away for a while: its session keeps this many messages queued",
        "max_queued_messages 200000",
        "max_queued_bytes 0",
        "log_dest stderr",
        "log_type error",
        "log_type warning",
        "log_type notice",
        "log_type information",
        "connection_messages true",
    ]
    if log_refused:
        # Mosquitto says "Denied PUBLISH from <client> (… '<topic>' …)" only at debug,
        # which also logs every message: a busy hall's log grows fast.
        lines.append("log_type debug")
    lines += [
        "",
        "listener %d %s" % (port, bind),
        "protocol mqtt",
    ]
    lines += tls_lines()
    lines += ["", "listener %d %s" % (ws_port, bind), "protocol websockets"]
    lines += tls_lines()
    return "\n".join(lines) + "\n"


def _write(path, text, mode=0o600):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, mode)


def broker_can_read(path, folder=False):
    """Mosquitto started as root drops to the `mosquitto` user before it reads its files:
    give that group read access (the passwords stay out of everyone else's reach), and
    the persistence folder to that user. As any other user the broker runs as that user,
    and the files are already its own."""
    if os.geteuid() != 0:
        return
    import grp
    import pwd

    try:
        gid = grp.getgrnam("mosquitto").gr_gid
        uid = pwd.getpwnam("mosquitto").pw_uid if folder else -1
    except KeyError:
        return  # no such account: the broker is not Debian's, or runs as root
    os.chown(path, uid, gid)
    os.chmod(path, 0o750 if folder else 0o640)


def hash_passwords(plain_path):
    """`mosquitto_passwd -U`: the user:password lines hashed in place (no password on a
    command line, where `ps` would show it)."""
    if not os.path.exists(PASSWD_TOOL):
        raise UsageError("mosquitto_passwd is not installed (Debian's mosquitto: make mqtt-tools)")
    r = subprocess.run([PASSWD_TOOL, "-U", plain_path], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise DeviceIOError(
            "mosquitto_passwd could not hash the passwords (exit %d)" % r.returncode
        )


def setup(
    folder,
    hall,
    clocks,
    port=1883,
    ws_port=9001,
    spectators=False,
    cert=None,
    key=None,
    bind="0.0.0.0",
    log_refused=False,
):
    """Write the hall's broker files into `folder`; returns {what: path}."""
    check_name("hall", hall)
    names = [check_name("clock", c) for c in clocks]
    if not names:
        raise UsageError("no clocks: give --clocks table-1,table-2 or --tables N")
    clash = sorted(set(names) & set(STAFF))
    if clash:
        raise UsageError("a clock cannot be named %s: that account is the hall's" % clash[0])
    if len(set(names)) != len(names):
        raise UsageError("a clock named twice in --clocks")
    if bool(cert) != bool(key):
        raise UsageError("TLS needs both --tls-cert and --tls-key")
    for path in (cert, key):
        if path and not os.path.isfile(path):
            raise UsageError("no such file: %s" % path)
    folder = os.path.abspath(folder)
    cert = os.path.abspath(cert) if cert else None
    key = os.path.abspath(key) if key else None
    os.makedirs(os.path.join(folder, "secrets"), exist_ok=True)
    os.makedirs(os.path.join(folder, "data"), exist_ok=True)
    os.chmod(os.path.join(folder, "secrets"), 0o700)
    plain = []
    for user in list(STAFF) + names:
        pw = secrets.token_urlsafe(18)
        _write(os.path.join(folder, "secrets", "%s.pw" % user), pw + "\n")
        plain.append("%s:%s\n" % (user, pw))
    passwd = os.path.join(folder, "passwd")
    _write(passwd, "".join(plain))
    hash_passwords(passwd)
    with open(passwd, encoding="utf-8") as f:
        if any(":" in line and not line.split(":", 1)[1].startswith("$") for line in f):
            raise DeviceIOError("mosquitto_passwd left a password unhashed in %s" % passwd)
    broker_can_read(passwd)
    broker_can_read(os.path.join(folder, "data"), folder=True)
    _write(os.path.join(folder, "acl"), acl_text(hall, spectators), 0o644)
    conf = os.path.join(folder, "mosquitto.conf")
    _write(conf, conf_text(folder, port, ws_port, spectators, cert, key, bind, log_refused), 0o644)
    return {
        "conf": conf,
        "acl": os.path.join(folder, "acl"),
        "passwd": passwd,
        "secrets": os.path.join(folder, "secrets"),
    }
