"""``mpstudio replay BUNDLE.zip``: re-run a benchmark bundle (``mpstudio runs bundle``)
here, the same spec with the same seed through the one run path (run_session, as
``mpstudio compare`` takes), recorded in the history like any run, and print the new
figures beside the bundle's, with whether the runs started from the same weights and
what differs in the machine and the software.

The bundle is checked before TensorFlow is imported: a damaged, foreign or newer one
costs one line (exit 2) and no wait.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from mpstudio.cli.support import EXIT_FAILED, EXIT_OK, make_console, usage_error
from mpstudio.engine.i18n import _
from mpstudio.engine.report.bench_compare import ReplayOutcome
from mpstudio.engine.spec import SpecError

COMMAND = "replay"


def add_replay_command(commands: Any) -> None:
    replay = commands.add_parser(
        COMMAND, help=_("re-run a benchmark bundle (mpstudio runs bundle) on this machine and "
                        "print the new figures beside the bundle's"))
    replay.add_argument("bundle", metavar=_("BUNDLE.zip"))
    replay.add_argument("--json", action="store_true", help=_("print JSON to stdout"))


def run_replay_command(args: argparse.Namespace) -> int:
    from mpstudio.engine.report.bench_read import BundleError, read_bundle
    from mpstudio.engine.spec_checks import validate_spec
    from mpstudio.engine.trainer.compare_options import comparison_problems

    try:
        bundle = read_bundle(args.bundle)
        validate_spec(bundle.spec)  # a dataset file this machine lacks, say
        if bundle.compare is not None:
            problems = comparison_problems(bundle.spec, bundle.compare.repeats,
                                           bundle.compare.baseline)
            if problems:
                raise SpecError(problems)
    except BundleError as exc:
        return usage_error(COMMAND, [str(exc)])
    except SpecError as exc:
        return usage_error(COMMAND, [_("{path} cannot be replayed here: {problems}").format(
            path=args.bundle, problems="; ".join(exc.problems))])

    from mpstudio.cli.train_command import train_from_command

    session = train_from_command(COMMAND, bundle.spec, bundle.compare, quiet=args.json)
    if isinstance(session, int):
        return session  # it ended early, said in one line

    from mpstudio.engine.report.bench_compare import replay_outcome

    outcome = replay_outcome(bundle.manifest, bundle.runs, bundle.card, session.stored,
                             session.card.to_dict() if session.card else None,
                             _machine_now())
    ids = [run.id for run in session.stored] if session.history_kept else []
    if args.json:
        from mpstudio.engine.json_values import json_ready

        print(json.dumps(json_ready({"bundle": str(bundle.path), "runs": ids,
                                     **outcome.to_dict()}), indent=2, allow_nan=False))
    else:
        _print_outcome(outcome, ids)
    return EXIT_OK if all(r.ok for r in session.results) else EXIT_FAILED


def _machine_now() -> dict[str, Any] | None:
    """This machine as the hardware check describes it (None if the check fails: the
    replay's figures stand without it)."""
    try:
        from mpstudio.engine.hardware.detect import detect_hardware

        return detect_hardware().to_dict()
    except Exception:  # a nicety, never the replay's failure
        return None


def _print_outcome(outcome: ReplayOutcome, ids: list[int]) -> None:
    from rich.table import Table

    out, err = make_console(stderr=False), make_console(stderr=True)
    table = Table(title=_("replayed: the bundle's figures and this machine's"),
                  title_justify="left")
    table.add_column(_("metric"), no_wrap=True)
    for heading in (_("bundle"), _("now"), _("change")):
        table.add_column(heading, justify="right")
    for figure in outcome.figures:
        table.add_row(figure.name, figure.text(figure.old), figure.text(figure.new),
                      figure.change_text())
    out.print(table)
    if outcome.spread_note():
        out.print(outcome.spread_note(), markup=False)
    if outcome.verdict_old or outcome.verdict_new:
        out.print(_("verdict in the bundle: {verdict}").format(verdict=outcome.verdict_old),
                  markup=False)
        out.print(_("verdict now: {verdict}").format(verdict=outcome.verdict_new),
                  markup=False)
    weights = outcome.weights
    if weights.status == "match":
        out.print(_("initial weights: the same as the bundle's (sha256 {hash}…)").format(
            hash=weights.runs[0][2][:12]), style="green", markup=False)
    elif weights.status == "differ":
        err.print(_("WARNING: the initial weights differ from the bundle's: the runs did "
                    "not start alike, so the figures are not like for like (a different "
                    "TensorFlow or Keras can initialise differently)"),
                  style="bold red", markup=False)
        for label, old, new in weights.runs:
            if old != new:
                err.print(f"  {label}: {old[:16]}… → {new[:16]}…", markup=False)
    else:
        err.print(_("initial weights: not checked (the bundle or this replay did not "
                    "record their hash)"), style="yellow", markup=False)
    if outcome.machine_differs:
        out.print(_("machine in the bundle: {machine}").format(machine=outcome.machine_old),
                  markup=False)
        out.print(_("machine now: {machine}").format(machine=outcome.machine_new),
                  markup=False)
    changes = outcome.software_changes
    if changes:
        err.print(_("note: the software differs from the bundle's ({changes}): figures may "
                    "differ for that reason").format(changes="; ".join(changes)),
                  style="yellow", markup=False)
    if ids:
        print(_("saved in the run history as {ids}").format(
            ids=", ".join(f"#{i}" for i in ids)), file=sys.stderr)
