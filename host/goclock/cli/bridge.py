"""`goclock bridge`: share the clock's serial line among commands, web pages and the hall.

Runs until Ctrl-C (or SIGTERM). While it runs, every `goclock` command given the same
port (or finding the clock by itself) goes through it; `--web` adds the WebSocket
endpoint for web pages, `--hall` the MQTT publishing (docs/bridge.md). Passwords are read
from a file or the environment, never from the command line (where `ps` shows them), and
are never printed.
"""

import logging
import os
import signal
import sys

from ..errors import UsageError
from ..link import discovery


def _secret(path, env):
    """A password from a file (its first line) or an environment variable, or None."""
    if path:
        try:
            with open(path, encoding="utf-8") as f:
                value = f.readline().rstrip("\r\n")
        except OSError as exc:
            raise UsageError(
                "cannot read the password file %s: %s" % (path, exc.strerror)
            ) from None
        if not value:
            raise UsageError("the password file %s is empty" % path)
        return value
    return os.environ.get(env) or None


def hall_options(args):
    if not args.hall:
        return None
    from ..bridge.hall import HallOptions, parse_broker

    if not args.clock:
        raise UsageError("--hall needs --clock NAME: the clock's name in the hall (table-12)")
    host, port = parse_broker(args.broker)
    return HallOptions(
        hall=args.hall,
        clock=args.clock,
        host=host,
        port=port,
        user=args.mqtt_user,
        password=_secret(args.mqtt_password_file, "GOCLOCK_MQTT_PASSWORD"),
        state_dir=args.state_dir,
    )


def do_bridge(args):
    from ..bridge import start_bridge

    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="goclock bridge: %(message)s",
        stream=sys.stderr,
    )
    port = discovery.choose_port(args.port)
    options = {"hall": hall_options(args)}
    if args.web:
        origins = list(args.origin or [])
        options.update(
            web=True,
            web_host=args.web_host,
            web_port=args.web_port,
            origins=origins,
            password=_secret(args.web_password_file, "GOCLOCK_BRIDGE_PASSWORD"),
        )
    bridge = start_bridge(port, **options)
    signal.signal(signal.SIGTERM, lambda *_: bridge.stop())
    try:
        print("bridge for %s: every goclock command on this port now goes through it" % port)
        if bridge.web_url:
            print("WebSocket: %s?token=%s" % (bridge.web_url, bridge.token))
            if not args.origin:
                print("  (no --origin given: only programs, not web pages, can connect)")
            if bridge.needs_login:
                print("  beyond loopback: the first frame must log in with the password")
        if bridge.hall:
            print("hall: %s" % bridge.hall.describe())
        print("Ctrl-C stops the bridge", flush=True)
        bridge.wait()
    except KeyboardInterrupt:
        pass
    finally:
        bridge.stop()
    return 0
