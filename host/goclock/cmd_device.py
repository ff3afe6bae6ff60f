"""`goclock ports`, `info`, `status`, `watch`: what is connected and what it shows."""

import collections
import json
import time

from rich.console import Group
from rich.live import Live
from rich.table import Table

from . import device, ui
from .errors import GoclockError


def do_ports(args):
    found = device.scan()
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
    with device.connect(args.port, args.timeout) as clock:
        info = clock.info
    if args.json:
        ui.print_json(info)
        return 0
    rows = [
        ("port", clock.name),
        ("firmware", info.get("version")),
        ("protocol", info.get("protocol")),
        ("board", info.get("board")),
        ("flash free", _kb(info.get("flash_free"))),
        ("RAM free", _kb(info.get("ram_free"))),
        ("battery", "%s mV" % info["battery_mv"] if info.get("battery_mv") else "not wired"),
    ]
    ui.console().print(ui.kv_table(rows, title="goclock"))
    return 0


def do_status(args):
    with device.connect(args.port, args.timeout) as clock:
        st = clock.request("status")
    if args.json:
        ui.print_json(st)
        return 0
    con = ui.console()
    con.print(ui.status_table(st, title="%s, move %s" % (st.get("state"), st.get("moves"))))
    tc = st.get("time_control")
    if tc:
        from . import notation

        try:
            con.print("time control: %s" % notation.format(tc))
        except (KeyError, TypeError, ValueError):
            con.print("time control: %s" % json.dumps(tc))
    if st.get("game") is not None:
        con.print("game log: %s" % st["game"])
    return 0


def describe_event(ev):
    """One line for an event pushed by the clock."""
    kind = ev.get("event")
    who = ev.get("side", "")
    at = ui.clock_text(ev.get("t"))
    if kind == "call":
        return "%s  %s: “%s”" % (at, who, ev.get("phrase"))
    if kind == "press":
        return "%s  %s moved (%s)" % (at, who, ui.clock_text(ev.get("used_ms")))
    if kind == "log":
        return "clock: %s" % (
            ev.get("message") or ev.get("value") or json.dumps(ev, ensure_ascii=False)
        )
    extra = {k: v for k, v in ev.items() if k not in ("event", "t", "side")}
    tail = " " + json.dumps(extra, ensure_ascii=False) if extra else ""
    return "%s  %s %s%s" % (at, kind, who, tail)


def _watch_view(st, recent):
    parts = []
    if st:
        parts.append(ui.status_table(st, title="%s, move %s" % (st.get("state"), st.get("moves"))))
    parts.extend(recent)
    return Group(*parts)


def do_watch(args, now=time.monotonic):
    """Follow the clock until Ctrl-C (or --seconds); the clock keeps running either way."""
    with device.connect(args.port, args.timeout) as clock:
        st = clock.request("status")
        clock.request("watch", on=True)
        end = now() + args.seconds if args.seconds else None
        recent = collections.deque(maxlen=8)
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
                with Live(
                    _watch_view(st, recent), console=ui.console(), auto_refresh=False
                ) as live:

                    def show(ev):
                        nonlocal st
                        if ev.get("event") == "status":
                            st = {k: v for k, v in ev.items() if k != "event"}
                        else:
                            recent.append(describe_event(ev))
                        live.update(_watch_view(st, recent), refresh=True)

                    _follow(clock, end, now, show)
            else:
                # Not a terminal (a pipe, a log file): one plain line per event.
                print(ui.status_line(st), flush=True)
                _follow(clock, end, now, lambda ev: print(_plain(ev), flush=True))
        except KeyboardInterrupt:
            pass  # Ctrl-C ends watching; nothing on the clock changes
        finally:
            try:
                clock.request("watch", on=False, timeout=1.0)
            except (GoclockError, KeyboardInterrupt):
                pass  # the line is gone or the user insists: leave quietly
    return 0


def _plain(ev):
    if ev.get("event") == "status":
        return ui.status_line(ev)
    return describe_event(ev)


def _follow(clock, end, now, show):
    while end is None or now() < end:
        wait = 0.5 if end is None else max(0.0, min(0.5, end - now()))
        ev = clock.next_event(wait)
        if ev is not None:
            show(ev)


def _kb(n):
    """Bytes as the table shows them; anything else (missing, odd) as it came."""
    return "%d KB" % (n // 1024) if isinstance(n, int) and not isinstance(n, bool) else n
