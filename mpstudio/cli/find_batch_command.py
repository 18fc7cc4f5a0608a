"""``mpstudio find-batch``: the largest batch float32 and the run's mixed precision each
train at without running out of memory, each try in a fresh process; with
``--compare``, then the comparison at those batches (float32 at its largest, mixed at
its own, the learning rate scaled linearly from the run's), recorded like any other.

Exit codes: 0 found (and compared), 1 a search ended on an error or no batch fit, or a
compared run failed, 2 bad arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from typing import Any

from mpstudio.cli.support import EXIT_FAILED, EXIT_OK, ctrl_c_stops, usage_error
from mpstudio.cli.train_command import (
    compare_options,
    report_session,
    spec_from_args,
    train_from_command,
)
from mpstudio.engine.i18n import _
from mpstudio.engine.spec import SpecError

COMMAND = "find-batch"


def add_find_batch_command(commands: Any) -> None:
    parser = commands.add_parser(
        COMMAND, help=_("find the largest batch float32 and mixed precision each train at "
                        "without running out of memory, then (--compare) compare them there"))
    compare_options(parser)
    group = parser.add_argument_group(_("batch-size finder"))
    add = group.add_argument
    add("--memory-cap", type=float, metavar="MiB",
        help=_("the memory a try may use: on a GPU a limit on its memory, on the CPU a "
               "limit on TensorFlow's allocator (default: the whole device)"))
    add("--start", type=int, metavar="N",
        help=_("float32's first batch (default: --batch-size, at most --most); it doubles "
               "until a try runs out of memory. The mixed precision's search starts from "
               "the largest batch float32 reached"))
    add("--most", type=int, metavar="N", help=_("never try a batch above this"))
    add("--tries", type=int, default=10, metavar="N",
        help=_("tries per precision, each a fresh process of a few steps (10)"))
    add("--compare", action="store_true",
        help=_("then compare the baseline (float32; mixed_bfloat16 for float8) at its "
               "largest batch with the run's precision at its own, the learning rate scaled "
               "linearly from --learning-rate at --batch-size"))


def finder_problems(args: argparse.Namespace) -> list[str]:
    from mpstudio.engine.batch_search.memory_cap import cap_problem, machine_memory_mib

    problems = []
    most_mib = machine_memory_mib() if args.memory_cap is not None else None
    cap = cap_problem(args.memory_cap, most_mib)
    if cap:
        problems.append(cap)
    if args.estimate_only:
        problems.append(_("find-batch measures each batch: --estimate-only is for train and "
                          "compare"))
    for name, value in (("--start", args.start), ("--most", args.most),
                        ("--tries", args.tries)):
        if value is not None and value < 1:
            problems.append(_("{option} must be a positive integer, got {value}").format(
                option=name, value=value))
    if args.start and args.most and args.start > args.most:  # it would start at --most
        problems.append(_("--start {start} is above --most {most}: give a --start of at most "
                          "{most}, or a larger --most").format(start=args.start,
                                                              most=args.most))
    return problems


def run_find_batch_command(args: argparse.Namespace) -> int:
    from mpstudio.engine.batch_search.finder import (
        FinderOptions,
        comparison_at_largest,
        find_largest_batches,
        precisions_for,
    )
    from mpstudio.engine.batch_search.finder_text import search_json, search_lines, tried_line
    from mpstudio.engine.spec_checks import validate_spec
    from mpstudio.engine.trainer.compare_options import CompareOptions, comparison_problems

    try:
        spec = spec_from_args(args)
        validate_spec(spec)
        problems = finder_problems(args) + comparison_problems(spec, args.repeats,
                                                               args.baseline)
        if spec.distribute.strategy != "default":
            problems.append(_("find-batch searches one device: leave --strategy unset"))
        if problems:
            raise SpecError(problems)
    except SpecError as exc:
        return usage_error(COMMAND, exc.problems)

    options = FinderOptions(cap_mib=args.memory_cap, start=args.start, most=args.most,
                            max_tries=args.tries)
    stop = threading.Event()

    def said(tried: Any) -> None:
        if not args.json:
            print(tried_line(tried), file=sys.stderr, flush=True)

    with ctrl_c_stops(_Stopper(stop)):
        search = find_largest_batches(spec, options, said, stop.is_set)
    if args.json and not args.compare:
        print(json.dumps(search_json(search), indent=2, allow_nan=False))
    else:
        for line in search_lines(search):
            print(line, file=sys.stderr if args.json else sys.stdout)
    if any(r.error for r in search.results) or not search.comparable:
        return EXIT_FAILED if not any(r.stopped for r in search.results) else EXIT_OK
    if not args.compare:
        return EXIT_OK
    mixed_spec, base_batch = comparison_at_largest(search)
    print(_("comparing {baseline} at batch {base:,} with {precision} at batch {mixed:,} "
            "(learning rate scaled linearly from {rate:g} at batch {batch:,})").format(
                baseline=precisions_for(spec)[0], base=base_batch,
                precision=mixed_spec.precision, mixed=mixed_spec.batch_size,
                rate=spec.learning_rate, batch=spec.batch_size), file=sys.stderr)
    comparison = CompareOptions(args.repeats, args.baseline, args.profile,
                                baseline_batch_size=base_batch)
    session = train_from_command(COMMAND, mixed_spec, comparison,
                                 quiet=args.json or args.events, events=args.events,
                                 cpu_devices=args.cpu_devices)
    if isinstance(session, int):
        return session
    return report_session(args, session, "compare", compare_options)


class _Stopper:
    """What Ctrl-C calls: the search ends its try and stops."""

    def __init__(self, event: threading.Event) -> None:
        self.event = event

    def stop(self) -> None:
        self.event.set()
