"""``mpstudio runs``: the run history from the command line (list, show, compare,
report, delete). Reads the same SQLite file as the desktop app; never imports
TensorFlow, so every command answers at once."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from mpstudio.cli.support import EXIT_FAILED, EXIT_OK, make_console, usage_error
from mpstudio.engine.comparison.card import sides_from_history
from mpstudio.engine.history.records import STATUSES
from mpstudio.engine.history.store import HistoryError, RunStore


def add_runs_command(commands: Any) -> None:
    runs = commands.add_parser("runs", help="the run history: list, show, compare, report")
    sub = runs.add_subparsers(dest="runs_command", metavar="{list,show,compare,report,delete}",
                              parser_class=type(runs))
    sub.required = True
    listing = sub.add_parser("list", help="runs, newest first")
    listing.add_argument("--status", choices=STATUSES)
    listing.add_argument("--dataset")
    listing.add_argument("--template")
    listing.add_argument("--precision")
    listing.add_argument("--limit", type=int, default=50, help="at most this many (50; 0: all)")
    show = sub.add_parser("show", help="one run: spec, hardware, summary, epochs")
    show.add_argument("id", type=int)
    compare = sub.add_parser(
        "compare", help="two runs on one comparison card, with the verdict (a float32 run "
        "is the baseline; trials of a repeated comparison count together)")
    compare.add_argument("ids", type=int, nargs=2, metavar="ID")
    report = sub.add_parser("report", help="write the comparison of two runs as a "
                            "self-contained HTML page and its metrics as CSV")
    report.add_argument("ids", type=int, nargs=2, metavar="ID")
    report.add_argument("-o", "--output", required=True, metavar="REPORT.html")
    report.add_argument("--csv", metavar="METRICS.csv",
                        help="where the metrics go (default: beside the HTML, .csv)")
    delete = sub.add_parser("delete", help="remove runs and their metrics from the history")
    delete.add_argument("ids", type=int, nargs="+", metavar="ID")
    delete.add_argument("--yes", action="store_true", help="do it (without: list what would go)")
    for parser in (listing, show, compare, report, delete):
        parser.add_argument("--json", action="store_true", help="print JSON to stdout")


def run_runs_command(args: argparse.Namespace) -> int:
    command = f"runs {args.runs_command}"
    try:
        with RunStore() as store:
            store.recover_interrupted()
            return _COMMANDS[args.runs_command](store, args)
    except HistoryError as exc:
        message = str(exc)
        if message.startswith("no run #"):
            return usage_error(command, [message])
        print(f"mpstudio {command}: error: {message}", file=sys.stderr)
        return EXIT_FAILED


def _print_json(payload: Any) -> None:
    from mpstudio.engine.json_values import json_ready

    print(json.dumps(json_ready(payload), indent=2, allow_nan=False))


def _list(store: RunStore, args: argparse.Namespace) -> int:
    from mpstudio.cli.history_tables import runs_table

    rows = store.runs(status=args.status, dataset=args.dataset, template=args.template,
                      precision=args.precision, limit=args.limit or None)
    if args.json:
        _print_json([r.to_dict() for r in rows])
    else:
        console = make_console(stderr=False)
        console.print(runs_table(rows, len(store.runs()), console.width))
    return EXIT_OK


def _show(store: RunStore, args: argparse.Namespace) -> int:
    from mpstudio.cli.history_tables import run_detail

    run = store.run(args.id)
    if args.json:
        _print_json(run.to_dict())
    else:
        make_console(stderr=False).print(run_detail(run))
    return EXIT_OK


def _compare(store: RunStore, args: argparse.Namespace) -> int:
    from mpstudio.cli.history_tables import card_table
    from mpstudio.engine.comparison.card import build_card

    baseline, mixed = sides_from_history(store, *args.ids)
    card = build_card(baseline, mixed)
    if args.json:
        _print_json(card.to_dict())
    else:
        make_console(stderr=False).print(card_table(card))
    return EXIT_OK


def _report(store: RunStore, args: argparse.Namespace) -> int:
    from mpstudio.engine.report.html_report import ReportError, write_report

    baseline, mixed = sides_from_history(store, *args.ids)
    try:
        files = write_report(baseline, mixed, Path(args.output),
                             Path(args.csv) if args.csv else None, history=store.path)
    except ReportError as exc:
        print(f"mpstudio runs report: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        _print_json({"html": str(files.html), "csv": str(files.csv) if files.csv else None})
    else:
        print(f"wrote {files.html}" + (f" and {files.csv}" if files.csv else ""))
    return EXIT_OK


def _delete(store: RunStore, args: argparse.Namespace) -> int:
    runs = [store.run(i, metrics=False) for i in args.ids]  # every id must exist
    if not args.yes:
        for run in runs:
            print(f"would delete {run.title()}")
        print("add --yes to delete them", file=sys.stderr)
        return EXIT_OK
    deleted = store.delete_runs(args.ids)
    if args.json:
        _print_json({"deleted": args.ids})
    else:
        print(f"deleted {deleted} run{'s' if deleted != 1 else ''}")
    return EXIT_OK


_COMMANDS = {"list": _list, "show": _show, "compare": _compare, "report": _report,
             "delete": _delete}
