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
import signal
import ssl
import sys
import threading
import time

from ..errors import GoclockError, UsageError
from .bridge import _secret

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)  # `goclock hall` ends, its summary printed

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


def live(svc, title, stop):
    from rich.console import Console, Group
    from rich.live import Live

    from ..hall import view

    keys = Keys(sys.stdin)
    console = Console()
    try:
        with Live(console=console, auto_refresh=False, transient=False) as screen:
            while not stop.is_set():
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
    # Ctrl-C (SIGINT) and SIGTERM only set `stop`: the view's loop ends at its next turn.
    # A KeyboardInterrupt raised wherever the main thread happens to be could fall between
    # taking the service's lock and the `with` that releases it; the MQTT thread then waits
    # for that lock forever, and so does `svc.stop()` joining it.
    stop = threading.Event()
    handlers = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in STOP_SIGNALS}
    try:
        if sys.stdout.isatty() and sys.stdin.isatty():
            live(svc, "hall %s" % args.hall, stop)
        else:
            follow(svc, sys.stdout, stop)
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
        svc.stop()
    for g in svc.summary():
        if g["verdict"] is not None:
            print(
                "%s game %d: %d records, %s" % (g["clock"], g["game"], g["records"], g["verdict"])
            )
    return 0


# ----- pairings and results ------------------------------------------------------------------


def clock_for(pattern, table):
    from ..bridge.hallformat import check_name

    try:
        return check_name("clock", pattern.replace("{table}", str(table)))
    except ValueError as exc:
        raise UsageError("--clock-name %r: %s" % (pattern, exc)) from None


def do_hall_assign(args):
    """Each table of the round its pairing: `assign` to clock table-N (or --clock-name)."""
    from ..errors import DeviceIOError
    from ..hall import opengotha, results

    tournament = opengotha.read(args.file)
    games = tournament.round(args.round)
    if not games:
        rounds = sorted({g.round for g in tournament.games})
        raise UsageError(
            "%s has no games in round %d (rounds paired: %s)"
            % (args.file, args.round, ", ".join(map(str, rounds)) or "none")
        )
    pairs = [(g, clock_for(args.clock_name, g.table)) for g in games]
    folder = folder_of(args)
    results.record_assignments(folder, tournament, args.round, pairs)
    # Its own session beside a running `goclock hall` (the same client id would take the
    # view's session over), not kept after it.
    svc = service(
        args, client_id="goclock-hall-%s-assign-%d" % (args.hall, os.getpid()), persistent=False
    )
    failed = 0
    try:
        for g, clock in pairs:
            b, w = tournament.players[g.black], tournament.players[g.white]
            req = {
                "event": tournament.name or tournament.short_name or None,
                "round": args.round,
                "table": g.table,
                "black": b.full_name,
                "white": w.full_name,
                "handicap": g.handicap,
            }
            try:
                reply = svc.request(clock, "assign", timeout=args.reply_timeout, **req)
            except GoclockError as exc:
                reply = {"ok": False, "error": str(exc)}
            if reply.get("ok"):
                print("table %d (%s): %s – %s" % (g.table, clock, b.full_name, w.full_name))
            else:
                failed += 1
                print("table %d (%s): NOT ASSIGNED: %s" % (g.table, clock, reply.get("error")))
    finally:
        svc.stop()
    print(
        "round %d: %d of %d tables assigned; the pairing is kept in %s"
        % (args.round, len(pairs) - failed, len(pairs), folder)
    )
    if failed:
        raise DeviceIOError(
            "%d tables not assigned (see above): run the same command again" % failed
        )
    return 0


def do_hall_result(args):
    """A result entered at the hall for a table of a round (kept in the hall's folder)."""
    from ..hall import opengotha, results

    opengotha.check_re(args.result)
    folder = folder_of(args)
    tables = (results.load(folder, results.ASSIGNMENTS).get("rounds") or {}).get(
        str(args.round)
    ) or {}
    if str(args.table) not in tables:
        raise UsageError(
            "round %d has no table %d in %s (goclock hall assign)"
            % (args.round, args.table, folder)
        )
    import time as _time

    results.enter_result(
        folder, args.round, args.table, args.result, by="hall", utc=int(_time.time() * 1000)
    )
    a = tables[str(args.table)]
    print(
        "round %d table %d: %s – %s %s"
        % (args.round, args.table, a["black_name"], a["white_name"], args.result)
    )
    return 0


def do_hall_results(args):
    from ..hall import results

    paths, rows = results.write_round(folder_of(args), args.round, args.out)
    for table, a, re_value, by, src in rows:
        how = (
            " (%s%s)" % (by or "?", ", " + src if src else "")
            if re_value != "?"
            else "  NO RESULT YET"
        )
        print("table %d: %s – %s  %s%s" % (table, a["black_name"], a["white_name"], re_value, how))
    for ext in ("xml", "h9", "csv"):
        print("wrote %s" % paths[ext])
    return 0


def do_result(args):
    """`goclock result GAME RE`: the result of a game, written into its log by the clock."""
    from ..hall import opengotha
    from ..link import discovery

    opengotha.check_re(args.result)
    with discovery.connect(args.port, args.timeout) as clock:
        current = clock.request("status").get("game")
        if current != args.game:
            raise UsageError(
                "the clock takes a result for the game on it (game %s), not game %d"
                % (current, args.game)
            )
        reply = clock.request("result", result=args.result)
    if getattr(args, "json", False):
        from .. import ui

        ui.print_json(reply)
    else:
        print("game %d: %s" % (args.game, args.result))
    return 0


def do_hall_setup(args):
    """Write a Mosquitto config, ACL and hashed passwords for the hall."""
    from ..hall import brokerconf

    clocks = [c for c in (args.clocks or "").split(",") if c]
    if args.tables:
        clocks += ["table-%d" % n for n in range(1, args.tables + 1)]
    out = args.out or os.path.join(folder_of(args), "broker")
    try:
        paths = brokerconf.setup(
            out,
            hall_name(args),
            clocks,
            port=args.port,
            ws_port=args.ws_port,
            spectators=args.spectators,
            cert=args.tls_cert,
            key=args.tls_key,
            bind=args.bind,
            log_refused=args.log_refused,
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    print(
        "wrote %s (MQTT on port %d, WebSocket on %d%s)"
        % (paths["conf"], args.port, args.ws_port, ", TLS" if args.tls_cert else "")
    )
    print(
        "accounts: hall, arbiter, %s; the passwords are in %s/ (one file each, only you read them)"
        % (", ".join(clocks), paths["secrets"])
    )
    print("run it:   mosquitto -c %s" % paths["conf"])
    return 0
