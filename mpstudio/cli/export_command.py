"""``mpstudio export``: a run's trained model (or a .keras file) to a deployment
format, verified in that format's own runtime; prints the verification line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from mpstudio.cli.support import (
    EXIT_FAILED,
    EXIT_OK,
    error_line,
    make_console,
    usage_error,
)
from mpstudio.engine.export.formats import (
    FORMAT_IDS,
    FORMATS,
    ExportFormat,
    default_path,
    export_base_name,
    export_format,
    unavailable_reason,
)
from mpstudio.engine.export.placement import clear_killed_exports, target_problem
from mpstudio.engine.i18n import _
from mpstudio.engine.quiet_stderr import tensorflow_logs_hidden

ALL = "all"


def add_export_command(commands: Any) -> None:
    formats = "; ".join(f"{f.id}: {_(f.label)}" for f in FORMATS)
    export = commands.add_parser(
        "export", help=_("export a run's trained model (or a .keras file) and verify it"),
        description=_("Convert a trained model to a deployment format, load it back in that "
                      "format's runtime and compare it with the trained model on held-out "
                      "examples. Formats: {formats}").format(formats=formats))
    export.add_argument("source", metavar=_("RUN_ID|MODEL.keras"),
                        help=_("a run id from `mpstudio runs list`, or a .keras file"))
    export.add_argument("--format", "-f", required=True, metavar=_("FORMAT"),
                        help=_("one of: {names}, or {all} (every format installed here, into "
                               "the folder -o names)").format(names=", ".join(FORMAT_IDS),
                                                              all=ALL))
    export.add_argument("-o", "--output", metavar=_("PATH"),
                        help=_("the file (a folder for savedmodel, or for --format all); "
                               "default: the current folder, named after the run"))
    export.add_argument("--overwrite", action="store_true",
                        help=_("replace files that exist (without it they are left alone)"))
    export.add_argument("--json", action="store_true", help=_("print JSON to stdout"))


def _base_name(source: str) -> str:
    if source.isdigit():
        from mpstudio.engine.history.store import HistoryError, RunStore

        try:
            with RunStore() as store:
                row = store.run(int(source), metrics=False).row
            return export_base_name(row.id, row.template, row.precision)
        except HistoryError:
            return f"run{source}"
    return Path(source).stem


def _targets(args: argparse.Namespace) -> tuple[list[tuple[ExportFormat, Path]], list[str]]:
    """What goes where, and the problems found before any work (exit 2)."""
    base = _base_name(args.source)
    if args.format == ALL:
        folder = Path(args.output or ".").expanduser()
        if folder.exists() and not folder.is_dir():
            return [], [_("{folder} is not a folder: --format all writes every format "
                          "into a folder (it is made when missing)").format(folder=folder)]
        formats = [f for f in FORMATS if unavailable_reason(f) is None]
        return [(f, default_path(folder, base, f)) for f in formats], []
    try:
        fmt = export_format(args.format)
    except ValueError as exc:
        return [], [str(exc)]
    missing = unavailable_reason(fmt)
    if missing:
        return [], [missing]
    if args.output is None:
        return [(fmt, default_path(Path("."), base, fmt))], []
    path = Path(args.output).expanduser()
    if fmt.suffix and not path.name.lower().endswith(fmt.suffix):  # two-part suffixes too
        path = path.with_name(path.name + fmt.suffix)
    return [(fmt, path)], []


def _make_all_folder(args: argparse.Namespace) -> Path | None:
    """``--format all -o deploy/`` into a folder that does not exist yet: make it (as
    ``mkdir -p``), returning it so a refusal can take it back; None otherwise."""
    if args.format != ALL or args.output is None:
        return None
    folder = Path(args.output).expanduser()
    if folder.exists():
        return None
    try:
        folder.mkdir(parents=True)
    except OSError:
        return None  # the targets' own check says why it cannot be written
    return folder


def run_export_command(args: argparse.Namespace) -> int:
    targets, problems = _targets(args)
    clear_killed_exports(path.parent for _fmt, path in targets)  # even if refused below
    made = _make_all_folder(args) if targets and not problems else None
    for fmt, path in targets:
        problem = target_problem(path, fmt.is_folder, args.overwrite, command_line=True)
        if problem:
            problems.append(problem)
    if not args.source.isdigit() and not Path(args.source).expanduser().is_file():
        problems.append(_("{source} is neither a run id (see `mpstudio runs list`) nor a "
                          ".keras file").format(source=args.source))
    if problems:
        if made is not None:
            made.rmdir()  # refused: leave no empty folder behind
        return usage_error("export", problems)

    from mpstudio.engine.export.results import ExportError, ExportRequest

    with tensorflow_logs_hidden():
        from mpstudio.engine.export.source import source_from_file, source_from_run
    try:
        with tensorflow_logs_hidden():
            source = (source_from_run(int(args.source)) if args.source.isdigit()
                      else source_from_file(args.source))
    except ExportError as exc:
        print(error_line("export", exc), file=sys.stderr)
        return EXIT_FAILED
    requests = [ExportRequest(fmt.id, path) for fmt, path in targets]
    outcomes = _export_with_progress(source, requests, args)
    if source.run_id is not None:
        _record_paths(source.run_id, [o.result.path for o in outcomes if o.result])
    if args.json:
        from mpstudio.engine.json_values import json_ready

        print(json.dumps(json_ready({"source": source.label, "run_id": source.run_id,
                          "exports": [_outcome_json(o) for o in outcomes]}), indent=2))
    else:
        out = make_console(stderr=False)
        for outcome in outcomes:
            style = "green" if outcome.ok else "red"
            out.print(outcome.line(), style=style, soft_wrap=True, markup=False,
                      highlight=False)
            for note in outcome.result.notes if outcome.result else ():
                out.print("  " + _("note: {note}").format(note=note), markup=False,
                          highlight=False)
    return EXIT_OK if all(o.ok for o in outcomes) else EXIT_FAILED


def _export_with_progress(source: Any, requests: list, args: argparse.Namespace) -> list:
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from mpstudio.engine.export.exporter import export_models

    console = make_console(stderr=True)
    with Progress(TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn(),
                  console=console, disable=args.json, transient=True) as bar:
        task = bar.add_task(_("exporting {source}").format(source=source.label), total=1)

        def progress(done: int, total: int, text: str) -> None:
            bar.update(task, completed=done, total=total, description=text)

        return export_models(source, requests, overwrite=args.overwrite, progress=progress)


def _record_paths(run_id: int, paths: list[Path]) -> None:
    from mpstudio.engine.history.store import HistoryError, RunStore

    try:
        with RunStore() as store:
            for path in paths:
                store.add_model_path(run_id, path.resolve())
    except HistoryError:
        pass  # the files are written either way


def _outcome_json(outcome: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"format": outcome.request.format_id,
                            "path": str(outcome.request.path), "ok": outcome.ok,
                            "error": outcome.error or None}
    result = outcome.result
    if result is not None:
        v = result.verification
        data.update({
            "size_bytes": result.size_bytes, "float32_weight_bytes": result.float32_bytes,
            "notes": list(result.notes), "line": result.line(),
            "verification": {"runtime": v.runtime, "examples": v.examples,
                             "origin": v.origin, "max_difference": v.max_difference,
                             "agreement": v.agreement, "threshold": v.threshold,
                             "passed": v.passed, "export_accuracy": v.export_accuracy,
                             "trained_accuracy": v.trained_accuracy},
        })
    return data
