"""``mpstudio runs``: the run history from the command line (list, show, compare,
report, bundle, delete). Reads the same SQLite file as the desktop app; never imports
TensorFlow, so every command answers at once (but bundle, which describes the machine
with the hardware check)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from mpstudio.cli.language import for_people
from mpstudio.cli.support import EXIT_FAILED, EXIT_OK, error_line, make_console, usage_error
from mpstudio.engine.comparison.card import sides_from_history
from mpstudio.engine.history.records import STATUSES
from mpstudio.engine.history.store import HistoryError, RunStore
from mpstudio.engine.history.stored_columns import COLUMN_NAMES
from mpstudio.engine.i18n import _, ngettext


def add_runs_command(commands: Any) -> None:
    runs = commands.add_parser("runs", help=_("the run history: list, show, compare, report"))
    sub = runs.add_subparsers(dest="runs_command",
                              metavar="{list,show,compare,report,bundle,delete}",
                              parser_class=type(runs))
    sub.required = True
    listing = sub.add_parser("list", help=_("runs, newest first"))
    listing.add_argument("--status", choices=STATUSES)
    listing.add_argument("--dataset", metavar=_("DATASET"))
    listing.add_argument("--template", metavar=_("TEMPLATE"))
    listing.add_argument("--precision", metavar=_("PRECISION"))
    listing.add_argument("--limit", type=int, default=50, metavar=_("LIMIT"),
                         help=_("at most this many (50; 0: all)"))
    show = sub.add_parser("show", help=_("one run: spec, hardware, summary, epochs"))
    show.add_argument("id", type=int, metavar=_("id"))
    compare = sub.add_parser(
        "compare", help=_("two runs on one comparison card, with the verdict (a float32 run "
                          "is the baseline; trials of a repeated comparison count together)"))
    compare.add_argument("ids", type=int, nargs=2, metavar=_("ID"))
    report = sub.add_parser("report", help=_("write the comparison of two runs as a "
                                             "self-contained HTML page and its metrics as CSV"))
    report.add_argument("ids", type=int, nargs=2, metavar=_("ID"))
    report.add_argument("-o", "--output", required=True, metavar=_("REPORT.html"))
    report.add_argument("--csv", metavar=_("METRICS.csv"),
                        help=_("where the metrics go (default: beside the HTML, .csv)"))
    bundle = sub.add_parser(
        "bundle", help=_("write a comparison (or a run) as a benchmark bundle: one zip with "
                         "the spec, seed, initial-weights hashes, versions, hardware, metrics "
                         "and verdict, replayed by `mpstudio replay`"))
    bundle.add_argument("target", metavar=_("COMPARISON_OR_RUN_ID"),
                        help=_("a run id (a run of a comparison brings the whole comparison) "
                               "or a comparison's id"))
    bundle.add_argument("-o", "--output", required=True, metavar=_("BUNDLE.zip"),
                        help=_("the zip to write (.zip is added when missing); an existing "
                               "folder gets bench-ID.zip inside it"))
    bundle.add_argument("--overwrite", action="store_true",
                        help=_("replace a file that exists (without it, it is left alone)"))
    delete = sub.add_parser("delete", help=_("remove runs and their metrics from the history"))
    delete.add_argument("ids", type=int, nargs="+", metavar=_("ID"))
    delete.add_argument("--yes", action="store_true",
                        help=_("do it (without: list what would go)"))
    for parser in (listing, show, compare, report, bundle, delete):
        parser.add_argument("--json", action="store_true", help=_("print JSON to stdout"))


def run_runs_command(args: argparse.Namespace) -> int:
    command = f"runs {args.runs_command}"
    try:
        with RunStore() as store:
            store.recover_interrupted()
            missing = _missing_run(store, args)
            if missing:  # a typo in an id is a usage error (exit 2), told by the store
                return usage_error(command, [missing])
            return _COMMANDS[args.runs_command](store, args)
    except HistoryError as exc:
        print(error_line(command, exc), file=sys.stderr)
        return EXIT_FAILED


def _missing_run(store: RunStore, args: argparse.Namespace) -> str:
    """Why the first id given that is not in the history is not there; "" when all are."""
    ids = [args.id] if hasattr(args, "id") else list(getattr(args, "ids", []))
    known = {row.id for row in store.runs()} if ids else set()
    for run_id in ids:
        if run_id not in known:
            try:
                store.run(run_id, metrics=False)
            except HistoryError as exc:
                return str(exc)
    return ""


def _print_json(payload: Any) -> None:
    from mpstudio.engine.json_values import json_ready

    print(json.dumps(json_ready(payload), indent=2, allow_nan=False))


def _list(store: RunStore, args: argparse.Namespace) -> int:
    from mpstudio.cli.history_tables import runs_table

    rows = store.runs(status=args.status, dataset=args.dataset, template=args.template,
                      precision=args.precision, limit=args.limit or None)
    for row in rows:  # listed all the same, its unreadable values as "?"
        if row.damaged:
            print(_("run #{id}: its stored {columns} could not be read (shown as ?)").format(
                id=row.id, columns=", ".join(_(COLUMN_NAMES.get(c, c)) for c in row.damaged)),
                file=sys.stderr)
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
        with for_people():  # a report is read by people, --json or not
            files = write_report(baseline, mixed, Path(args.output),
                                 Path(args.csv) if args.csv else None, history=store.path)
    except ReportError as exc:
        print(error_line("runs report", exc), file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        _print_json({"html": str(files.html), "csv": str(files.csv) if files.csv else None})
    else:
        print(_("wrote {html} and {csv}").format(html=files.html, csv=files.csv) if files.csv
              else _("wrote {html}").format(html=files.html))
    return EXIT_OK


def _delete(store: RunStore, args: argparse.Namespace) -> int:
    from mpstudio.cli.history_tables import row_title

    rows = {row.id: row for row in store.runs()}  # a damaged run's row reads: it can go
    if not args.yes:
        for run_id in args.ids:
            print(_("would delete {run}").format(run=row_title(rows[run_id])))
        print(_("add --yes to delete them"), file=sys.stderr)
        return EXIT_OK
    deleted = store.delete_runs(args.ids)
    if args.json:
        _print_json({"deleted": args.ids})
    else:
        print(ngettext("deleted {count} run", "deleted {count} runs", deleted).format(
            count=deleted))
    return EXIT_OK


def _bundle(store: RunStore, args: argparse.Namespace) -> int:
    from mpstudio.engine.export.placement import target_problem
    from mpstudio.engine.report.bench_bundle import (
        benchmark_source,
        bundle_file_name,
        write_bundle,
    )
    from mpstudio.engine.report.files import ReportError

    try:
        source = benchmark_source(store, args.target)
    except HistoryError as exc:  # an id that is not there: a usage error, as for the others
        return usage_error("runs bundle", [str(exc)])
    path = Path(args.output).expanduser()
    if path.is_dir():  # as cp does: into the folder, under the default name
        path = path / bundle_file_name(args.target)
    elif path.suffix.lower() != ".zip":
        path = path.with_name(path.name + ".zip")
    problem = target_problem(path, False, args.overwrite, command_line=True)
    if problem:  # an existing file is replaced only with --overwrite, as export does
        return usage_error("runs bundle", [problem])
    try:
        written = write_bundle(source, path, _machine())
    except ReportError as exc:
        print(error_line("runs bundle", exc), file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        _print_json({"bundle": str(written), "runs": [run.id for run in source.runs],
                     "replay": f"mpstudio replay {written}"})
    else:
        print(_("wrote {path} ({runs}); replay it with: mpstudio replay {path}").format(
            path=written, runs=", ".join(f"#{run.id}" for run in source.runs)))
    return EXIT_OK


def _machine() -> dict[str, Any] | None:
    """This machine as the hardware check describes it (devices, compute capability,
    driver, CUDA/cuDNN build); None when the check fails (the runs' recorded device
    stands alone in the bundle then)."""
    from mpstudio.engine.quiet_stderr import tensorflow_logs_hidden

    try:
        with tensorflow_logs_hidden():
            from mpstudio.engine.hardware.detect import detect_hardware

            return detect_hardware().to_dict()
    except Exception:  # a nicety: never the bundle's failure
        return None


_COMMANDS = {"list": _list, "show": _show, "compare": _compare, "report": _report,
             "bundle": _bundle, "delete": _delete}
