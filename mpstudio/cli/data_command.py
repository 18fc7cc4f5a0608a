"""``mpstudio data list`` and ``mpstudio data show SOURCE``: what there is to train on."""

from __future__ import annotations

import argparse
import json
from typing import Any

from mpstudio.cli.spec_arguments import add_source_options, dataset_argument, source_options
from mpstudio.cli.support import (
    EXIT_OK,
    ctrl_c_stops,
    ended_early,
    make_console,
    usage_error,
)
from mpstudio.engine.datasets.registry import (
    availability,
    dataset_entry,
    dataset_names,
    dataset_problems,
    display_name,
)
from mpstudio.engine.i18n import _
from mpstudio.engine.quiet_stderr import tensorflow_logs_hidden
from mpstudio.engine.spec import SpecError


def add_data_commands(commands: Any) -> None:
    data = commands.add_parser("data",
                               help=_("list the dataset sources, or show what one holds"))
    sub = data.add_subparsers(dest="data_command", required=True, metavar="{list,show}",
                              parser_class=type(data))
    listing = sub.add_parser("list", help=_("every dataset and whether it works offline now"))
    listing.add_argument("--json", action="store_true", help=_("print JSON to stdout"))
    show = sub.add_parser(
        "show", help=_("read a dataset (downloading it if needed) and print what it holds")
    )
    show.add_argument("source", metavar=_("source"),
                      help=_("a dataset name, or an .npz, .csv or image-folder path"))
    show.add_argument("--json", action="store_true", help=_("print JSON to stdout"))
    add_source_options(show)


def run_data_command(args: argparse.Namespace) -> int:
    if args.data_command == "list":
        return _list(args.json)
    return _show(args)


def _list(as_json: bool) -> int:
    rows: list[dict[str, Any]] = []  # as --json prints them
    for name in dataset_names():
        entry, avail = dataset_entry(name), availability(name)
        rows.append({"name": name, "origin": entry.origin, "offline": avail.offline,
                     "detail": avail.detail, "description": entry.description})
    if as_json:
        print(json.dumps(rows, indent=2))
        return EXIT_OK
    from rich.table import Table
    from rich.text import Text

    table = Table(title=_("datasets"), title_justify="left")
    for column in (_("name"), _("offline now"), _("where"), _("what")):
        table.add_column(column, overflow="fold")
    for row in rows:
        offline = Text(_("yes"), style="green") if row["offline"] \
            else Text(_("no"), style="yellow")
        description = row["description"]  # N_()-marked in the registry
        table.add_row(row["name"], offline, row["detail"], _(description))
    console = make_console(stderr=False)
    console.print(table)
    console.print(
        _("Your own data: --dataset PATH with an .npz file (x_train, y_train[, x_test, "
          "y_test]), a .csv file (numeric features and a label column) or a folder with one "
          "sub-folder of images per class."), markup=False
    )
    return EXIT_OK


def _show(args: argparse.Namespace) -> int:
    try:
        options = source_options(args, {})
    except SpecError as exc:
        return usage_error("data show", exc.problems)
    source = dataset_argument(args.source)
    problems = dataset_problems(source, options)
    if problems:
        return usage_error("data show", problems)

    from mpstudio.cli.console import ConsoleReporter, data_report_table
    from mpstudio.engine.datasets.context import LoadContext
    from mpstudio.engine.datasets.errors import DataError, DataLoadStopped, DownloadError
    from mpstudio.engine.datasets.registry import inspect_dataset, needs_tensorflow

    if needs_tensorflow(source):  # import it now, with its start-up chatter hidden
        with tensorflow_logs_hidden():
            import tensorflow  # noqa: F401

    reporter = ConsoleReporter(make_console(stderr=True), quiet=args.json)
    ctx = LoadContext(display_name(source), emit=reporter.emit, should_stop=reporter.should_stop)
    try:
        with ctrl_c_stops(reporter):
            report = inspect_dataset(source, options, ctx)
    except DataError as exc:
        return usage_error("data show", [str(exc)])
    except (DownloadError, DataLoadStopped) as exc:
        return ended_early("data show", exc)
    finally:
        reporter.close()
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        make_console(stderr=False).print(data_report_table(report))
    return EXIT_OK
