"""``mpstudio hw``: what this machine can do for mixed precision, measured on request;
``--memory-growth`` / ``--memory-limit`` save the GPU memory settings runs apply."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from typing import Any

from mpstudio.cli.support import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    StopFlag,
    ctrl_c_stops,
    make_console,
    usage_error,
)
from mpstudio.engine.app_settings import (
    AppSettings,
    InvalidSettings,
    SettingsError,
    load_settings,
    save_settings,
    settings_path,
)
from mpstudio.engine.hardware.gpu_memory import described
from mpstudio.engine.i18n import _
from mpstudio.engine.quiet_stderr import tensorflow_logs_hidden


def add_hw_command(commands: Any) -> None:
    hw = commands.add_parser(
        "hw", help=_("hardware check: devices, precision verdicts, and a measurement on "
                     "request"))
    add = hw.add_argument
    add("--measure", action="store_true",
        help=_("time matmul and conv in float32/float16/bfloat16 on each device (~10-20 s)"))
    add("--seconds", type=float, default=0.5, metavar="S",
        help=_("--measure: seconds timed for each kernel and precision (0.5)"))
    add("--json", action="store_true", help=_("print JSON to stdout"))
    add("--template", default="mlp", metavar=_("TEMPLATE"),
        help=_("predict this template's payoff on each device (default mlp)"))
    add("--batch-size", type=int, default=128, metavar="N",
        help=_("the batch predicted (128)"))
    add("--dataset", default="digits", metavar=_("DATASET"),
        help=_("the data the prediction is for (default digits)"))
    add("--memory-growth", choices=("on", "off"),
        help=_("save: let TensorFlow allocate GPU memory as needed (on) or up front (off)"))
    add("--memory-limit", metavar="MiB|none",
        help=_("save: cap each GPU at this much memory, or 'none' to remove the cap"))


def _save_memory_settings(args: argparse.Namespace) -> int:
    try:
        settings = load_settings()
    except InvalidSettings as exc:  # parses, wrong values: the new values replace them
        print(_("mpstudio hw: replacing what was saved: {reason}").format(reason=exc.shown()),
              file=sys.stderr)
        settings = AppSettings()
    except SettingsError as exc:
        return usage_error("hw", [exc.shown()])
    memory = settings.gpu_memory
    if args.memory_limit is not None:
        text = args.memory_limit.strip().lower()
        if text == "none":
            memory = dataclasses.replace(memory, limit_mb=None)
        elif text.isdigit():
            memory = dataclasses.replace(memory, limit_mb=int(text), growth=False)
        else:
            return usage_error("hw", [_("--memory-limit takes MiB or 'none', got {value!r}")
                                      .format(value=text)])
    if args.memory_growth is not None:
        memory = dataclasses.replace(memory, growth=args.memory_growth == "on")
        if memory.growth and args.memory_limit is None:
            memory = dataclasses.replace(memory, limit_mb=None)  # growth replaces a limit
    try:
        path = save_settings(dataclasses.replace(settings, gpu_memory=memory))
    except SettingsError as exc:
        return usage_error("hw", [exc.shown()])
    print(_("GPU memory: {settings}; saved to {path}. Runs started from now on apply it (a "
            "running app: after a restart).").format(settings=described(memory), path=path))
    return EXIT_OK


def run_hw_command(args: argparse.Namespace) -> int:
    if args.memory_growth is not None or args.memory_limit is not None:
        return _save_memory_settings(args)
    if not 0.05 <= args.seconds <= 10:
        return usage_error("hw", [_("--seconds must be between 0.05 and 10, got {value}")
                                  .format(value=args.seconds)])
    if args.batch_size < 1:
        return usage_error("hw", [_("--batch-size must be a positive whole number")])
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from mpstudio.cli import hardware_tables as tables

    with tensorflow_logs_hidden():
        import tensorflow  # noqa: F401  (imported here, quietly, not inside the check)

        from mpstudio.engine.hardware.check import run_hardware_check
        from mpstudio.engine.prediction.for_hardware import Workload
        from mpstudio.engine.spec import RunSpec

        try:
            workload = Workload.of_spec(RunSpec(dataset=args.dataset, template=args.template,
                                                batch_size=args.batch_size))
        except (ValueError, OSError) as exc:
            return usage_error("hw", [str(exc)])
    out, err = make_console(stderr=False), make_console(stderr=True)
    stopper = StopFlag()
    # rich fills {task.description} in
    progress = Progress(TextColumn(_("measuring {what}").format(what="{task.description}")),
                        BarColumn(),
                        MofNCompleteColumn(), console=err, transient=True,
                        disable=args.json or not args.measure)
    task = progress.add_task("", total=None)

    def update(done: int, total: int, what: str) -> None:
        progress.update(task, completed=done, total=total, description=what)

    try:
        with progress, ctrl_c_stops(stopper):
            check = run_hardware_check(args.measure, args.seconds, update, stopper.should_stop,
                                       workload=workload)
    except KeyboardInterrupt:  # the second Ctrl-C: leave now, without a traceback
        print(_("mpstudio {command}: error: interrupted").format(command="hw"),
              file=sys.stderr)
        return EXIT_INTERRUPTED
    if args.json:
        print(json.dumps(check.to_dict(), indent=2))
    else:
        out.print(tables.build_line(check.report))
        out.print(tables.gpu_table(check.report))
        out.print(tables.tpu_line(check.report))
        out.print(tables.cpu_line(check.report))
        out.print(_("GPU memory: {message} · settings file {path}").format(
            message=check.memory.message, path=settings_path()),
            markup=False, highlight=False)  # the message quotes [gpu_memory]
        out.print(tables.verdict_table(check.advice))
        if check.measurements:
            out.print(tables.measurement_table(check.measurements))
        else:
            out.print(_("Verdicts above are from what the hardware is; `mpstudio hw "
                        "--measure` times it."))
        from mpstudio.cli.prediction_tables import print_prediction

        for device in check.predictions:
            print_prediction(out, device.prediction, device.larger)
        out.print(tables.advice_block(check.advice))
    if check.stopped:
        print(_("mpstudio hw: measurement stopped early; verdicts use what was measured"),
              file=sys.stderr)
    return EXIT_FAILED if check.memory.status == "failed" else EXIT_OK
