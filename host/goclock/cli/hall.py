"""`goclock hall`: the tournament hall over MQTT (docs/hall.md).

- `goclock hall`: every clock live (a table in a terminal; change lines in a pipe), every
  game's log collected into the hall's folder, through broker restarts, until Ctrl-C;
- `goclock hall assign FILE --round N`: each table its pairing, from OpenGotha's XML;
- `goclock hall result TABLE RE`: a result entered at the hall;
- `goclock hall results --round N`: the round's results for OpenGotha, EGF (.h9), CSV;
- `goclock hall setup`: a Mosquitto config, ACL and password file for a hall.

Passwords are read from a file or the environment, never the command line, and are never
printed.
"""

import logging
import os
import select
import ssl
import sys
import threading
import time

from ..errors import GoclockError, UsageError
from .bridge import _secret

log = logging.getLogger("goclock.hall")


def hall_name(args):
    if not args.hall:
        raise UsageError("which hall? give --hall NAME (its topics are goclock/v1/NAME/...)")
    return args.hall


def folder_of(args):
    hall_name(args)
    return args.folder or os.path.join(os.getcwd(), "hall-%s" % args.hall)


def service(args, **kw):
    """A started HallService from the connection options, connected and subscribed."""
    from ..bridge.hall import parse_broker
    from ..hall.service import HallService

    host, port = parse_broker(args.broker)
    tls = None
    if args.tls_ca or args.tls:
        try:
            tls = ssl.create_default_context(cafile=args.tls_ca)
        except (OSError, ssl.SSLError) as exc:
            raise UsageError("cannot use the CA file %s: %s" % (args.tls_ca, exc)) from None
    try:
        svc = HallService(
            args.hall,
            folder_of(args),
            host=host,
            port=port,
            user=args.user,
            password=_secret(args.password_file, "GOCLOCK_MQTT_PASSWORD"),
            tls=tls,
            **kw,
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    svc.start()
    try:
        svc.wait_connected(timeout=args.connect_timeout)
    except GoclockError:
        svc.stop()
        raise
    return svc


# ----- the live view -------------------------------------------------------------------------


class Keys:
    """Single keys from a terminal (cbreak mode while the view runs), or none."""

    def __init__(self, stream):
        self.stream = stream
        self.saved = None
        if stream.isatty():
            import termios
            import tty

            self.saved = termios.tcgetattr(stream.fileno())
            tty.setcbreak(stream.fileno())

    def read(self, timeout):
        if self.saved is None:
            time.sleep(timeout)
            return None
        if select.select([self.stream], [], [], timeout)[0]:
            return os.read(self.stream.fileno(), 1).decode("ascii", "replace")
        return None

    def close(self):
        if self.saved is not None:
            import termios

            termios.tcsetattr(self.stream.fileno(), termios.TCSADRAIN, self.saved)


def acknowledge(svc, clock):
    """Send arbiter.ack to a calling clock, in the background (the view goes on)."""

    def run():
        try:
            reply = svc.request(clock, "arbiter.ack", by="hall")
        except GoclockError as exc:
            reply = {"ok": False, "error": str(exc)}
        with svc.cond:
            if reply.get("ok"):
                svc.model.notice(svc.now(), "%s: call acknowledged" % clock)
            else:
                svc.model.notice(
                    svc.now(), "%s: arbiter.ack refused: %s" % (clock, reply.get("error"))
                )

    threading.Thread(target=run, daemon=True).start()


def snapshot(svc):
    from ..hall import view

    summary = svc.summary()
    with svc.cond:
        now = svc.now()
        return view.plain(svc.model, now, summary), list(svc.model.notices)


def follow(svc, out, stop, every=0.5):
    """Without a terminal: a line for each row that changed (times excluded: a row is
    printed when its state, notes or log count change), and each notice."""
    from ..hall import view

    shown = {}
    notes = 0
    while not stop.is_set():
        summary = svc.summary()
        with svc.cond:
            now = svc.now()
            rows = view.rows(svc.model, now, summary)
            new_notes = svc.model.notices[notes:]
            notes = len(svc.model.notices)
        for r in rows:
            key = (r["state"], r["notes"], r["log"], r["players"], r["moves"])
            if shown.get(r["clock"]) != key:
                shown[r["clock"]] = key
                cols = (r[c] for c in view.COLUMNS if r[c])
                out.write("%s  %s\n" % (time.strftime("%H:%M:%S"), "  ".join(cols)))
        for _, text in new_notes:
            out.write("%s  %s\n" % (time.strftime("%H:%M:%S"), text))
        out.flush()
        stop.wait(every)


def live(svc, title):
    from rich.console import Console, Group
    from rich.live import Live

    from ..hall import view

    keys = Keys(sys.stdin)
    console = Console()
    try:
        with Live(console=console, auto_refresh=False, transient=False) as screen:
            while True:
                summary = svc.summary()
                with svc.cond:
                    now = svc.now()
                    t = view.table(svc.model, now, summary, title, svc.connected)
                    notes = view.notice_text(svc.model.notices)
                    calls = [c.name for c in svc.model.calls()]
                screen.update(Group(t, notes), refresh=True)
                key = keys.read(0.2)
                if key in ("q", "Q"):
                    return
                if key in ("a", "A") and calls:
                    acknowledge(svc, calls[0])
    finally:
        keys.close()


def do_hall(args):
    logging.basicConfig(level=logging.INFO, format="goclock hall: %(message)s", stream=sys.stderr)
    svc = service(args)
    print(
        "goclock hall: %s on %s, logs in %s (Ctrl-C to stop)"
        % (args.hall, args.broker, folder_of(args)),
        file=sys.stderr,
    )
    try:
        if sys.stdout.isatty() and sys.stdin.isatty():
            live(svc, "hall %s" % args.hall)
        else:
            stop = threading.Event()
            try:
                follow(svc, sys.stdout, stop)
            except KeyboardInterrupt:
                stop.set()
    except KeyboardInterrupt:
        pass
    finally:
        svc.stop()
    for g in svc.summary():
        if g["verdict"] is not None:
            print(
                "%s game %d: %d records, %s" % (g["clock"], g["game"], g["records"], g["verdict"])
            )
    return 0
