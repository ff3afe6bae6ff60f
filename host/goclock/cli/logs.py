"""`goclock logs ...`: list, pull and verify, export (JSON/CSV), SGF, report, clear.

A log is judged by its checksum chain (gamerecord.py) and by its sequence (verify.py: time
never goes back, moves numbered without gaps or repeats, times that follow from its actions);
`verify` and `pull` say both, naming each record by its number with the file's line beside.
`report`, `export` and `sgf` refuse a log that does not verify (exit 2) unless --force.
"""

import csv
import io
import json
import os
import sys

from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn
from rich.table import Table

from .. import ui
from ..errors import DeviceIOError, GoclockError, UsageError
from ..link import discovery
from ..records import kinds, ledger, pull, report, sgfmerge, verify
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
        st = clock.request("status")
        clock_id = clock.info.get("clock_id")
        current = st.get("game")  # its log may still grow: a record may be half written
        # A game lost on time is over (a ruling may still follow): only these go on.
        running = current if st.get("state") in ("running", "paused") else None
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
                res["current"] = game == current
                results.append(res)
    altered = []
    for res in results:
        record = GameRecord.from_file(res["path"])
        check = verify.Check(record)
        res.update(check.as_json())
        with open(res["path"], "rb") as f:  # written down once verified: logs clear asks
            res["noted"] = ledger.note(clock_id, res["game"], f.read(), res["path"], check, record)
        res["outcome"] = record.outcome
        res["state"] = record.replayed.state
        # A game still on may end in a record still being written: not damage.
        if not check.ok and not (check.torn and not check.problems and res["current"]):
            altered.append("game %d: %s" % (res["game"], check.verdict))
        if not args.json:
            how = pull.how_text(res)
            if res["running"]:
                how += " (the game is still on: pull again later for the rest)"
            print(
                "game %d -> %s, %d bytes%s: %s"
                % (res["game"], res["path"], res["size"], how, check.verdict)
            )
    if args.json:
        ui.print_json(results)
    if altered:
        raise DeviceIOError("; ".join(altered))  # the clock's own copy is damaged
    return 0


def _ids(games):
    return ", ".join(str(g) for g in games) or "none"


def do_verify(args):
    """One line per file; exit 2 when any of them cannot be trusted."""
    results = []
    for path in args.files:
        try:
            check = verify.Check(GameRecord.from_file(path))
        except GoclockError as exc:  # a file that cannot be read is named, the rest go on
            results.append({"file": path, "ok": False, "log": False, "verdict": str(exc)})
            continue
        results.append(dict(check.as_json(), file=path))
    if args.json:
        ui.print_json(results[0] if len(args.files) == 1 else results)
    else:
        for res in results:
            print("%s: %s" % (res["file"], res["verdict"]))
    bad = [r for r in results if not r["ok"]]
    if len(args.files) == 1 and bad:
        raise UsageError("%s cannot be trusted: %s" % (bad[0]["file"], bad[0]["verdict"]))
    if bad:
        raise UsageError(
            "%d of %d files cannot be trusted: %s"
            % (len(bad), len(results), ", ".join(r["file"] for r in bad))
        )
    return 0


def load_record(args):
    """GAME as a pulled file, or a game number read from the clock, with its verdict.

    A log that does not verify is refused (exit 2) unless --force: then its good records
    are used as they are (moves keep the clock's numbers) and a warning says what is wrong.
    """
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
        if record.foreign or not getattr(args, "force", False):
            hint = "" if record.foreign else " (--force to go on with what verifies)"
            raise UsageError("%s: %s%s" % (record.name, check.verdict, hint))
        print("goclock: warning: %s: %s" % (record.name, check.verdict), file=sys.stderr)
    return record, check


LEFT_COLS = [f for f in LEFT_FIELDS if f != "flagged"]
CSV_FIELDS = (
    ["record", "line", "t_ms", "at", "event", "side", "move", "used_ms", "used"]
    + LEFT_COLS
    + ["left", "phrase", "action", "other"]
)


def _csv_text(record):
    """One row per record; a move's row also has what the side had left at its press, an
    arbiter's action or a decision its words (before -> after), and the human columns
    (at, used, left) follow the clock's rounding."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    tc = record.time_control or {}
    moves = {m["record"]: m for m in record.moves}
    steps = {s.number: s for s in record.replayed.steps}
    for entry, rec in zip(record.good, record.records):
        row = {
            "record": entry.number,
            "line": entry.line,
            "t_ms": rec.get("t"),
            "at": ui.time_used(rec.get("t")),
            "event": rec.get("event"),
            "side": rec.get("side", ""),
        }
        move = moves.get(entry.number)
        if move:
            row["move"] = move["n"]
            row.update((k, v) for k, v in move["left"].items() if k in LEFT_COLS)
            row["left"] = report._left_text(tc, move)
        for key in ("used_ms", "phrase"):
            if key in rec:
                row[key] = rec[key]
        if "used_ms" in rec or (move and move.get("used_ms") is not None):
            row["used"] = ui.time_used(rec.get("used_ms", move and move.get("used_ms")))
        step = steps.get(entry.number)
        if step is not None and kinds.shown(rec):
            row["action"] = step.words()
        shown = ("event", "t", "side", "used_ms", "phrase") + (("left",) if move else ())
        other = {k: v for k, v in rec.items() if k not in shown}
        row["other"] = json.dumps(other, ensure_ascii=False, sort_keys=True) if other else ""
        writer.writerow(row)
    return out.getvalue()


def export_json(record, check=None):
    rep = record.replayed
    acc = report.account(record)
    return {
        "game": record.game,
        "verified": (check or verify.Check(record)).as_json(),
        "time_control": record.time_control,
        "outcome": record.outcome,
        "result": rep.result(),
        "actions": [s.as_json() for s in rep.actions()],
        "pauses": rep.pauses,
        "account": acc,
        "summary": report.summary(record),
        "moves": record.moves,
        "records": record.records,
    }


def do_export(args):
    record, check = load_record(args)
    if args.format == "csv":
        text = _csv_text(record)
    else:
        text = json.dumps(export_json(record, check), ensure_ascii=False, indent=1) + "\n"
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
    record, _check = load_record(args)
    if args.merge:
        result = sgfmerge.merge_file(record, args.merge, args.output)
    else:
        game, result = sgfmerge.timed_sgf(record)
        sgfmerge.write_sgf(game, args.output)
    timed = ui.plural(result["timed"], "move")
    where = "standard output" if args.output == "-" else args.output
    print("%s: times of %s written (game %s)" % (where, timed, record.game), file=sys.stderr)
    for text in ([result["mismatch"]] if result["mismatch"] else []) + result["warnings"]:
        print("goclock: warning: %s" % text, file=sys.stderr)
    return 0


def do_report(args):
    record, check = load_record(args)
    if args.json:
        doc = export_json(record, check)
        del doc["records"]
        doc["verdict"] = check.verdict
        ui.print_json(doc)
    else:
        report.print_report(record, check)
    if args.plot:
        from ..records import chart

        chart.plot(record, args.plot)
        print("chart written to %s" % args.plot, file=sys.stderr)
    return 0


def do_clear(args, ask=None):
    """Delete finished games' logs from the clock, never by a slip: each game is listed
    (moves, how it ended, whether it was pulled); a game never pulled is refused unless
    --force; in a terminal the tool asks, in a script it needs --yes (exit 2 without)."""
    with discovery.connect(args.port, args.timeout) as clock:
        clock_id = clock.info.get("clock_id")
        logs = clock.request("logs.list")["logs"]
        current = clock.request("status").get("game")
        on_clock = [e["game"] for e in logs]
        if args.game is not None:
            if args.game not in on_clock:
                raise UsageError(
                    "the clock has no game %d (it has: %s)" % (args.game, _ids(on_clock))
                )
            if args.game == current:
                raise UsageError(
                    "game %d is the clock's current game: its log is never deleted (goclock "
                    "reset starts the next game)" % args.game
                )
        chosen = [e for e in logs if e["game"] != current]
        if args.game is not None:
            chosen = [e for e in chosen if e["game"] == args.game]
        if not chosen:
            print("no finished game logs to delete")
            return 0
        rows = [_clear_row(clock, clock_id, e) for e in chosen]
        for row in rows:
            print(row["text"])
        unpulled = [r for r in rows if not r["pulled"]]
        if unpulled and not args.force:
            games = " ".join(str(r["game"]) for r in unpulled)
            raise UsageError(
                "%s never pulled to this computer: goclock logs pull %s -o DIR first (or "
                "--force to delete %s all the same)"
                % (
                    "game %s was" % games if len(unpulled) == 1 else "games %s were" % games,
                    games if len(unpulled) == 1 else "--all",
                    "it" if len(unpulled) == 1 else "them",
                )
            )
        if not args.yes:
            what = ui.plural(len(rows), "game log")
            answer = (ask or ui.confirm)("Delete %s from the clock?" % what)
            if answer is None:
                raise UsageError(
                    "%s would be deleted: run goclock logs clear --yes to delete from a script"
                    % what
                )
            if not answer:
                raise UsageError("nothing deleted")
        removed = 0
        for row in rows:  # one by one: a game that ended meanwhile is not among them
            removed += clock.request("logs.clear", game=row["game"])["removed"]
    print("%s removed from the clock" % ui.plural(removed, "game log"))
    return 0


def _clear_row(clock, clock_id, entry):
    """What `logs clear` says of one game before it deletes it."""
    game, size = entry["game"], entry.get("size", 0)
    data, offset = pull.tail(clock, game, size)
    moves, outcome = pull.tail_summary(data, offset)
    ok, where = ledger.pulled(clock_id, game, size, ledger.last_checksum(data))
    if moves is not None:
        counted = ui.plural(moves, "move")
    else:  # no press in the log, or none in the part of it read
        counted = "no moves" if offset == 0 else "moves not counted"
    parts = ["game %d" % game, counted]
    parts.append(outcome or "no end recorded")
    parts.append(where if ok else "NOT PULLED (%s)" % where)
    return {"game": game, "pulled": ok, "text": ": ".join([parts[0], ", ".join(parts[1:])])}
