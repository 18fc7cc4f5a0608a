"""``mpstudio doctor``: check the whole training chain on this machine and print a
pass/warn/fail table with the reason for each line; ``--json``, ``--html`` and
``--json-out`` give a report to attach to a bug report.

Exit codes: 0 nothing failed (also after a stop), 1 a check failed (or a report file
could not be written), 2 bad arguments (checked before TensorFlow is imported).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mpstudio.cli.language import for_people
from mpstudio.cli.support import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    StopFlag,
    ctrl_c_stops,
    make_console,
    usage_error,
)
from mpstudio.engine.i18n import _
from mpstudio.engine.quiet_stderr import tensorflow_logs_hidden
from mpstudio.engine.report.files import ReportError, check_writable
from mpstudio.engine.templates.registry import template_names

if TYPE_CHECKING:
    from rich.table import Table

    from mpstudio.engine.doctor.checks import DoctorReport

STATUS_STYLE = {"pass": "bold green", "warn": "bold yellow", "fail": "bold red",
                "skipped": "dim"}


def add_doctor_command(commands: Any) -> None:
    doctor = commands.add_parser(
        "doctor", help=_("check training on this machine: build and driver, memory settings, "
                         "a few real training steps per template and precision, timing, TF32"))
    add = doctor.add_argument
    add("--quick", action="store_true",
        help=_("a reduced set: 3 templates, 4 steps each, a short timing (under a minute on "
               "a CPU)"))
    add("--templates", metavar=_("NAMES"),
        help=_("only these templates, comma-separated (from: {templates})").format(
            templates=", ".join(template_names())))
    add("--json", action="store_true", help=_("print the report as JSON on stdout, no table"))
    add("-o", "--html", metavar=_("REPORT.html"),
        help=_("also write the report as one self-contained HTML page"))
    add("--json-out", metavar=_("REPORT.json"), help=_("also write the report as JSON"))


def _argument_problems(args: argparse.Namespace) -> tuple[list[str], tuple[str, ...] | None]:
    problems = []
    templates = None
    if args.templates is not None:
        templates = tuple(t.strip() for t in args.templates.split(",") if t.strip())
        unknown = [t for t in templates if t not in template_names()]
        if unknown or not templates:
            problems.append(_("unknown template {names}; choose from: {templates}").format(
                names=", ".join(unknown) or _("(none given)"),
                templates=", ".join(template_names())))
    paths = [p for p in (args.html, args.json_out) if p]
    for path in paths:  # refuse before minutes of checks, not after
        try:
            check_writable(Path(path).expanduser())
        except ReportError as exc:
            problems.append(str(exc))
    if len(paths) == 2 and Path(paths[0]).resolve() == Path(paths[1]).resolve():
        problems.append(_("--html and --json-out name the same file; give each its own"))
    return problems, templates


def run_doctor_command(args: argparse.Namespace) -> int:
    problems, templates = _argument_problems(args)
    if problems:
        return usage_error("doctor", problems)
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    with tensorflow_logs_hidden():
        import tensorflow  # noqa: F401  (imported here, quietly, not inside the check)

        from mpstudio.engine.doctor.doctor import run_doctor
        from mpstudio.engine.doctor.report_files import report_json, write_reports
    out, err = make_console(stderr=False), make_console(stderr=True)
    stopper = StopFlag()
    progress = Progress(TextColumn(_("checking {what}").format(what="{task.description}")),
                        BarColumn(), MofNCompleteColumn(),
                        TextColumn(_("elapsed"), markup=False), TimeElapsedColumn(),
                        TextColumn(_("eta"), markup=False), TimeRemainingColumn(),
                        console=err, transient=True, disable=args.json)
    if not args.json and not args.quick:  # minutes: said before they start
        print(_("mpstudio doctor: the full check trains every template under each precision "
                "and times a comparison: a few minutes on a CPU, more while the machine is "
                "busy (--quick: under a minute)"), file=sys.stderr, flush=True)
    task = progress.add_task("", total=None)

    def update(done: int, total: int, what: str) -> None:
        progress.update(task, completed=done, total=total, description=what)

    try:
        with progress, ctrl_c_stops(stopper):
            report = run_doctor(args.quick, templates, progress=update,
                                should_stop=stopper.should_stop)
    except KeyboardInterrupt:  # the second Ctrl-C: leave now, without a traceback
        print(_("mpstudio doctor: interrupted"), file=sys.stderr)
        return EXIT_INTERRUPTED
    try:  # the files first: with --json, a failure leaves stdout to its error document
        with for_people():  # the page is for people: their language, even with --json
            written = write_reports(report, args.html, args.json_out)
    except ReportError as exc:
        print(_("mpstudio doctor: error: {error}").format(error=exc), file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        print(report_json(report), end="")
    else:
        out.print(checks_table(report))
        out.print(report.summary())
        if not (args.html or args.json_out):
            out.print(_("A report to attach to a bug report: mpstudio doctor -o report.html "
                        "(or --json-out report.json)"))
    for path in written:
        print(_("mpstudio doctor: report written to {path}").format(path=path),
              file=sys.stderr)
    if report.stopped:
        print(_("mpstudio doctor: stopped early; the lines not run say so"), file=sys.stderr)
    return EXIT_FAILED if report.failed else EXIT_OK


def checks_table(report: DoctorReport) -> Table:
    from rich.table import Table
    from rich.text import Text

    from mpstudio.engine.doctor.checks import COLUMNS

    table = Table(title=_("mpstudio doctor: training on this machine"), title_justify="left")
    for column in COLUMNS:
        table.add_column(_(column), overflow="fold")
    checks = report.checks
    for i, check in enumerate(checks):
        last_of_section = i + 1 == len(checks) or checks[i + 1].section != check.section
        first_of_section = i == 0 or checks[i - 1].section != check.section
        table.add_row(check.section_text if first_of_section else "", check.name_text,
                      Text(check.status_text, style=STATUS_STYLE.get(check.status, "")),
                      check.reason_text, end_section=last_of_section)
    return table
