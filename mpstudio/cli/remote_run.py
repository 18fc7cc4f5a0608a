"""``mpstudio --engine gpu-box train|compare ...``: the run trains in the server's engine
(the one the window drives), and this terminal shows its progress as a local run's.

The arguments are read here and checked as far as this machine can (the settings);
the dataset and a model file are the server's, checked there, and a problem with them
fails the job with the same sentence. The run is the server's: a dropped connection is
opened again and the progress goes on from the step it had reached; the first Ctrl-C
stops the run after its step (recorded there as stopped), a second leaves at once.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from mpstudio.cli.support import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    ctrl_c_stops,
    error_line,
    make_console,
    usage_error,
)
from mpstudio.engine.i18n import _
from mpstudio.engine.service import protocol as p
from mpstudio.engine.service.engine_connection import EngineConnection, EngineUnreachable
from mpstudio.engine.service.engine_target import EngineTarget
from mpstudio.engine.spec import SpecError

JOB_ID = 1
# What needs this machine's TensorFlow, or several processes of its own: run it there
HERE_ONLY = ("estimate_only", "cpu_devices")


def run_on_engine(args: argparse.Namespace, target: EngineTarget) -> int:
    """train or compare in the engine at ``target``; the exit code."""
    from mpstudio.cli.train_command import (
        compare_options,
        report_session,
        run_options,
        sizes_comparison,
        spec_from_args,
    )
    from mpstudio.engine.service.job_requests import TrainRequest
    from mpstudio.engine.trainer.compare_options import CompareOptions, comparison_problems

    command = args.command
    here_only = [f"--{name.replace('_', '-')}" for name in HERE_ONLY if getattr(args, name)]
    if here_only:
        return usage_error(command, [_(
            "{options} cannot go to the engine on {host}: run the command there (ssh "
            "{host} mpstudio {command} ...)").format(options=", ".join(here_only),
                                                     host=target.label, command=command)])
    try:
        spec = spec_from_args(args, server=True)
        problems = spec.setting_problems()  # the dataset and a model file: the server's
        if spec.distribute.strategy == "multiworker":
            problems.append(_("multiworker runs start a process on every host: run the "
                              "command on each of them"))
        if command == "compare":
            problems += comparison_problems(spec, args.repeats, args.baseline)
        if problems:
            raise SpecError(problems)
    except SpecError as exc:
        return usage_error(command, exc.problems)
    if args.save_config:
        try:
            spec.save(args.save_config)
        except OSError as exc:
            return usage_error(command, [_("cannot write {path}: {reason}").format(
                path=args.save_config, reason=exc.strerror)])
    comparison = CompareOptions(args.repeats, args.baseline, args.profile,
                                size=sizes_comparison(args)) if command == "compare" else None
    outcome = _train_there(args, target, TrainRequest(spec, comparison))
    if isinstance(outcome, int):
        return outcome
    return report_session(args, outcome, command,
                          compare_options if comparison else run_options,
                          where=target.label)


def _train_there(args: argparse.Namespace, target: EngineTarget, request: Any) -> Any:
    """Submit the run and show its events as they come; the TrainingOutcome, or the exit
    code of a run that could not start or end."""
    from mpstudio.cli.console import ConsoleReporter
    from mpstudio.cli.train_command import EventPrinter

    command = args.command
    quiet = args.json or args.events
    console = ConsoleReporter(make_console(stderr=True), quiet=quiet,
                              summaries=request.comparison is None,
                              results=make_console(stderr=False))
    front: Any = EventPrinter(console) if args.events else console
    connection = EngineConnection(target)
    leave_running = True
    try:
        welcome = connection.open()
        if not quiet:
            print(_("mpstudio {command}: the run trains on {host} (mpstudio {version}); a "
                    "dropped connection is opened again").format(
                        command=command, host=welcome.host, version=welcome.version),
                  file=sys.stderr, flush=True)
        connection.submit(JOB_ID, request)
        with ctrl_c_stops(front):
            return _follow(connection, front, command)
    except EngineUnreachable as exc:
        print(error_line(command, str(exc)), file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:  # the second Ctrl-C: leave now, the engine stops the run
        console.close()
        print("\n" + _("mpstudio {command}: left; the engine on {host} stops the run after "
                       "its step").format(command=command, host=target.label),
              file=sys.stderr)
        leave_running = False
        return EXIT_INTERRUPTED
    finally:
        console.close()
        connection.close(leave_running=leave_running)


def _follow(connection: EngineConnection, front: Any, command: str) -> Any:
    cancelled = False
    for message in connection.messages():
        if front.should_stop() and not cancelled:  # the first Ctrl-C
            connection.cancel(JOB_ID)
            cancelled = True
        if message is None:
            continue
        if isinstance(message, p.EngineLoadFailed):
            print(error_line(command, _("the engine could not load TensorFlow: {error}").format(
                error=message.message)), file=sys.stderr)
            return EXIT_FAILED
        job_message = getattr(message, "message", None)
        if isinstance(job_message, p.JobEvent):
            front.emit(job_message.event)
        elif isinstance(job_message, p.JobResult):
            return _with_stops(job_message.value, command)
        elif isinstance(job_message, p.JobFailed):
            if job_message.cancelled:
                print(_("mpstudio {command}: stopped before the run began").format(
                    command=command), file=sys.stderr)
                return EXIT_OK
            print(error_line(command, job_message.message), file=sys.stderr)
            return EXIT_FAILED
    return EXIT_FAILED  # messages() ends only by raising


def _with_stops(outcome: Any, command: str) -> Any:
    if outcome.stopped_while_loading:  # the data never finished loading: said, not a card
        print(_("mpstudio {command}: {message}").format(
            command=command, message=outcome.stopped_while_loading), file=sys.stderr)
        return EXIT_OK
    return outcome
