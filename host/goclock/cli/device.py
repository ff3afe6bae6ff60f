"""`goclock ports`, `info`, `status`, `watch`: what is connected and what it shows."""

import json
import time

from rich.live import Live
from rich.table import Table
from rich.text import Text

from .. import ui
from ..errors import GoclockError
from ..link import discovery
from ..records import eventtext


def do_ports(args):
    found = discovery.scan()
    if args.json:
        ui.print_json(found)
        return 0
    if not found:
        print("no serial ports found (for `make sim`, pass the pty path it prints with --port)")
        return 0
    table = Table(show_header=True, header_style="bold")
    for col in ("port", "description", "goclock"):
        table.add_column(col)
    for p in found:
        info = p["info"]
        what = (
            "%s, firmware %s" % (info.get("board", "?"), info.get("version", "?"))
            if info
            else p["note"]
        )
        table.add_row(p["port"], p["description"] or "", what)
    ui.console().print(table)
    return 0


def do_info(args):
    with discovery.connect(args.port, args.timeout) as clock:
        info = clock.info
    if args.json:
        ui.print_json(info)
        return 0
    rows = [
        ("port", clock.name),
        ("firmware", info.get("version")),
        ("protocol", info.get("protocol")),
        ("board", info.get("board")),
        ("flash free", ui.size_text(info.get("flash_free"))),  # bytes, as the clock says
        ("RAM free", ui.size_text(info.get("ram_free"))),
        ("voice packs", ", ".join(info.get("voices") or []) or "none"),
        ("battery", "%s mV" % info["battery_mv"] if info.get("battery_mv") else "not wired"),
    ]
    ui.console().print(ui.kv_table(rows, title="goclock"))
    return 0


def do_status(args):
    with discovery.connect(args.port, args.timeout) as clock:
        st = clock.request("status")
    if args.json:
        ui.print_json(st)
        return 0
    con = ui.console()
    played = ui.plural(st.get("moves", 0), "move")
    con.print(ui.status_table(st, title="%s, %s played" % (st.get("state"), played)))
    tc = st.get("time_control")
    if tc:
        from ..timecontrol import notation

        try:
            con.print("time control: %s" % notation.format(tc))
        except (KeyError, TypeError, ValueError):
            con.print("time control: %s" % json.dumps(tc))
    if st.get("game") is not None:
        con.print("game log: %s" % st["game"])
    return 0


def describe_event(ev):
    """One line in words for an event pushed by the clock (eventtext.py)."""
    return eventtext.describe(ev)


def do_watch(args, now=time.monotonic):
    """Follow the clock until Ctrl-C (or --seconds); the clock keeps running either way.

    One line in words per event; in a terminal the status line stays at the bottom, updated
    in place, with the events printed above it. `--json`: the event objects, one per line.
    """
    with discovery.connect(args.port, args.timeout) as clock:
        st = clock.request("status")
        clock.request("watch", on=True)
        end = now() + args.seconds if args.seconds is not None else None
        try:
            if args.json:
                print(json.dumps(dict(st, event="status"), ensure_ascii=False), flush=True)
                _follow(
                    clock,
                    end,
                    now,
                    lambda ev: print(json.dumps(ev, ensure_ascii=False), flush=True),
                )
            elif ui.console().is_terminal:
                con = ui.console()
                with Live(Text(ui.status_line(st)), console=con, auto_refresh=False) as live:

                    def show(ev):
                        if ev.get("event") == "status":
                            live.update(Text(ui.status_line(ev)), refresh=True)
                        else:
                            live.console.print(Text(describe_event(ev)))

                    _follow(clock, end, now, show)
            else:
                # Not a terminal (a pipe, a log file): every event a line, status included.
                print(ui.status_line(st), flush=True)
                _follow(clock, end, now, lambda ev: print(describe_event(ev), flush=True))
        except KeyboardInterrupt:
            pass  # Ctrl-C ends watching; nothing on the clock changes
        finally:
            try:
                clock.request("watch", on=False, timeout=1.0)
            except (GoclockError, KeyboardInterrupt):
                pass  # the line is gone or the user insists: leave quietly
    return 0


def _follow(clock, end, now, show):
    while end is None or now() < end:
        wait = 0.5 if end is None else max(0.0, min(0.5, end - now()))
        ev = clock.next_event(wait)
        if ev is not None:
            show(ev)
