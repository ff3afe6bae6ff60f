"""`goclock logs ...`: list, pull and verify, export (JSON/CSV), merge into SGF, report.

A log is judged by its checksum chain (gamerecord.py) and by its sequence (verify.py: time
never goes back, moves numbered without gaps or repeats); `verify`, `pull` and the warning of
the other commands say both, naming the lines.
"""

import csv
import io
import json
import os
import sys

from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn
from rich.table import Table

from .. import ui
from ..errors import DeviceIOError, UsageError
from ..link import discovery
from ..records import pull, report, sgfmerge, verify
from ..records.gamerecord import LEFT_FIELDS, GameRecord


def do_list(args):
    with discovery.connect(args.port, args.timeout) as clock:
        logs = clock.request("logs.list")["logs"]
        running = clock.request("status").get("game")
    if args.json:
        ui.print_json(logs)
        return 0
    if not logs:
        print("no game logs on the clock")
        return 0
    table = Table(header_style="bold")
    for col in ("game", "size", "records", ""):
        table.add_column(col, justify="right" if col in ("size", "records") else "left")
    for entry in logs:
        mark = "current game" if entry.get("game") == running else ""
        table.add_row(
            str(entry.get("game")), "%d B" % entry.get("size", 0), str(entry.get("records")), mark
        )
    ui.console().print(table)
    return 0


def _progress(disabled):
    return Progress(
        TextColumn("game {task.fields[game]}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        console=ui.console(),
        disable=disabled,
        transient=False,
    )


def do_pull(args):
    results = []
    with discovery.connect(args.port, args.timeout) as clock:
        logs = clock.request("logs.list")["logs"]
        running = clock.request("status").get("game")
        on_clock = [e["game"] for e in logs]
        if args.all:
            games = on_clock
        elif args.game is not None:
            if args.game not in on_clock:
                raise UsageError(
                    "the clock has no game %d (it has: %s)" % (args.game, _ids(on_clock))
                )
            games = [args.game]
        else:
            if not on_clock:
                raise UsageError("the clock has no game logs")
            games = [on_clock[-1]]
        with _progress(args.json) as bar:
            for game in games:
                task = bar.add_task("", total=None, game=game)
                res = pull.pull(
                    clock,
                    game,
                    args.output,
                    lambda done, total, t=task: bar.update(t, completed=done, total=total),
                )
                res["running"] = game == running
                results.append(res)
    altered = []
    for res in results:
        record = verify.Check(GameRecord.from_file(res["path"]))
        res.update(record.as_json())
        # A running game's log may end in a record still being written: not damage.
        if not record.ok and not (record.torn and not record.problems and res["running"]):
            altered.append("game %d: %s" % (res["game"], record.verdict))
        if not args.json:
            how = pull.how_text(res)
            if res["running"]:
                how += " (the game is still on: pull again later for the rest)"
            print(
                "game %d -> %s, %d bytes%s: %s"
                % (res["game"], res["path"], res["size"], how, record.verdict)
            )
    if args.json:
        ui.print_json(results)
    if altered:
        raise DeviceIOError("; ".join(altered))  # the clock's own copy is damaged
    return 0


def _ids(games):
    return ", ".join(str(g) for g in games) or "none"


def do_verify(args):
    record = verify.Check(GameRecord.from_file(args.game))
    if args.json:
        ui.print_json(dict(record.as_json(), file=args.game))
    else:
        print("%s: %s" % (args.game, record.verdict))
    if not record.ok:
        raise UsageError("%s cannot be trusted: %s" % (args.game, record.verdict))
    return 0


def load_record(args):
    """GAME as a pulled file, or a game number read from the clock. Warns when not intact."""
    if os.path.exists(args.game):
        record = GameRecord.from_file(args.game)
    elif args.game.isdigit():
        with discovery.connect(args.port, args.timeout) as clock:
            record = GameRecord(pull.read_all(clock, int(args.game)), "game %s" % args.game)
    else:
        raise UsageError(
            "%s is neither a log file nor a game number (goclock logs list)" % args.game
        )
    check = verify.Check(record)
    if not check.ok:
        print("goclock: warning: %s: %s" % (record.name, check.verdict), file=sys.stderr)
    return record


def _csv_text(record):
    """One row per record; a move's row also has what the side had left at its press."""
    out = io.StringIO()
    left_cols = [f for f in LEFT_FIELDS if f != "flagged"]
    fields = (
        ["record", "t_ms", "event", "side", "move", "used_ms"] + left_cols + ["phrase", "other"]
    )
    writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    moves = {m["record"]: m for m in record.moves}
    for i, rec in enumerate(record.records, 1):
        row = {
            "record": i,
            "t_ms": rec.get("t"),
            "event": rec.get("event"),
            "side": rec.get("side", ""),
        }
        move = moves.get(i)
        if move:
            row["move"] = move["n"]
            row.update((k, v) for k, v in move["left"].items() if k in left_cols)
        for key in ("used_ms", "phrase"):
            if key in rec:
                row[key] = rec[key]
        shown = ("event", "t", "side", "used_ms", "phrase") + (("left",) if move else ())
        other = {k: v for k, v in rec.items() if k not in shown}
        row["other"] = json.dumps(other, ensure_ascii=False, sort_keys=True) if other else ""
        writer.writerow(row)
    return out.getvalue()


def export_json(record):
    return {
        "game": record.game,
        "verified": verify.Check(record).as_json(),
        "time_control": record.time_control,
        "moves": record.moves,
        "records": record.records,
    }


def do_export(args):
    record = load_record(args)
    if args.format == "csv":
        text = _csv_text(record)
    else:
        text = json.dumps(export_json(record), ensure_ascii=False, indent=1) + "\n"
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8", newline="") as f:
                f.write(text)
        except OSError as exc:
            raise DeviceIOError(
                "cannot write %s: %s" % (args.output, exc.strerror or exc)
            ) from None
        print(
            "game %s: %s, %s -> %s"
            % (
                record.game,
                ui.plural(len(record.records), "record"),
                ui.plural(len(record.moves), "move"),
                args.output,
            ),
            file=sys.stderr,
        )
    else:
        sys.stdout.write(text)
    return 0


def do_sgf(args):
    record = load_record(args)
    result = sgfmerge.merge_file(record, args.merge, args.output)
    timed = ui.plural(result["timed"], "move")
    print("%s: times of %s written (game %s)" % (args.output, timed, record.game))
    if result["mismatch"]:
        print("goclock: warning: %s" % result["mismatch"], file=sys.stderr)
    return 0


def do_report(args):
    record = load_record(args)
    if args.json:
        ui.print_json(
            {
                "game": record.game,
                "summary": report.summary(record),
                "moves": record.moves,
                "verdict": verify.Check(record).verdict,
            }
        )
    else:
        report.print_report(record)
    if args.plot:
        report.plot(record, args.plot)
        print("chart written to %s" % args.plot, file=sys.stderr)
    return 0


def do_clear(args):
    with discovery.connect(args.port, args.timeout) as clock:
        req = {} if args.game is None else {"game": args.game}
        removed = clock.request("logs.clear", **req)["removed"]
    print("%d game log%s removed from the clock" % (removed, "" if removed == 1 else "s"))
    return 0
