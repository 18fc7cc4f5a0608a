"""``mpstudio predict``: what mixed precision should give a model on a device before a
run: each precision's examples/s, speedup over float32 (TF32 on compute capability
8.0+) with its range, peak memory, the share of its arithmetic in the half type, and
what bounds its step. The device need not be present: any GPU in the table.
``--measure`` times the model on this machine's device too (a few seconds a precision)
and sets the measurement beside the prediction.

Exit codes: 0 predicted, 1 the model or data could not be read (or nothing could be
measured), 2 bad arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mpstudio.cli.spec_arguments import parse_sizes
from mpstudio.cli.support import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    StopFlag,
    ctrl_c_stops,
    ended_early,
    make_console,
    usage_error,
)
from mpstudio.engine.i18n import _
from mpstudio.engine.quiet_stderr import tensorflow_logs_hidden
from mpstudio.engine.templates.registry import template_names
from mpstudio.engine.templates.user_model import is_model_file, model_file_problem

COMMAND = "predict"
SECONDS_RANGE = (0.1, 60.0)  # --seconds: timed per precision with --measure


def add_predict_command(commands: Any) -> None:
    parser = commands.add_parser(
        COMMAND, help=_("predict each precision's speed and memory for a model on a GPU "
                        "(present or not) or this machine, before a run"))
    add = parser.add_argument
    add("--template", default="mlp", metavar=_("TEMPLATE"),
        help=_("a template name or your own .keras model (default mlp)"))
    add("--batch-size", type=int, default=128, metavar="N",
        help=_("per replica (default 128)"))
    add("--dataset", metavar=_("DATASET"),
        help=_("take the input shape and classes from this dataset (default: a .keras "
               "model's own, else digits, unless --input-shape is given)"))
    add("--input-shape", metavar="H,W,C",
        help=_("the model's input shape instead of a dataset's, e.g. 32,32,3 (images are "
               "taken as stored uint8, scaled by the model)"))
    add("--classes", type=int, metavar="N",
        help=_("with --input-shape: classes (10)"))
    add("--device", default="this", metavar=_("DEVICE"),
        help=_("a GPU by name (e.g. 'NVIDIA H200', A100, 'RTX 4090'), cpu, or this "
               "(default: this machine's first GPU, else its CPU, measured now)"))
    add("--explain", action="store_true",
        help=_("also list the layers that take most of the step, each precision's time for "
               "them and what bounds each"))
    add("--measure", action="store_true",
        help=_("also time a few steps of the model under each precision on this machine's "
               "device, as a comparison times them, beside the prediction"))
    add("--seconds", type=float, default=2.0, metavar="S",
        help=_("with --measure: seconds timed per precision after the warm-up (2)"))
    add("--json", action="store_true", help=_("print JSON to stdout"))


def _problems(args: argparse.Namespace) -> list[str]:
    problems = []
    if args.batch_size < 1:
        problems.append(_("--batch-size must be a positive whole number"))
    if args.input_shape is not None and parse_sizes(args.input_shape) is None:
        problems.append(_("--input-shape takes positive sizes separated by commas, like "
                          "32,32,3; got {value!r}").format(value=args.input_shape))
    if args.input_shape is not None and args.dataset is not None:
        problems.append(_("give --dataset or --input-shape, not both"))
    if args.classes is not None and args.classes < 2:
        problems.append(_("--classes must be at least 2"))
    if args.classes is not None and args.input_shape is None:
        problems.append(_("--classes goes with --input-shape (a dataset or a model file "
                          "has its own classes)"))
    if not is_model_file(args.template) and args.template not in template_names():
        problems.append(_("unknown template {name!r}; choose from: {names}, or give a "
                          ".keras file").format(name=args.template,
                                                names=", ".join(template_names())))
    elif is_model_file(args.template) and not Path(args.template).expanduser().is_file():
        problems.append(model_file_problem(args.template) or "")  # (its content: exit 1)
    low, high = SECONDS_RANGE
    if args.measure and not low <= args.seconds <= high:
        problems.append(_("--seconds must be between {low:g} and {high:g}, got {value:g}")
                        .format(low=low, high=high, value=args.seconds))
    return problems


@dataclass(frozen=True)
class Inputs:
    shape: tuple[int, ...]
    classes: int
    scale: float | None  # the model scales stored uint8 images by this (None: floats)
    source: str  # "input-shape" | "dataset" | "model file"


def _inputs(args: argparse.Namespace) -> Inputs:
    """--input-shape, else --dataset, else a .keras model's own input, else digits."""
    from mpstudio.engine.templates.user_model import (
        is_model_file,
        own_inputs,
        stored_image_scale,
    )

    if args.input_shape is not None:
        shape = parse_sizes(args.input_shape) or ()
        classes = 10 if args.classes is None else args.classes
        return Inputs(shape, classes, stored_image_scale(shape), "input-shape")
    if args.dataset is None and is_model_file(args.template):
        return Inputs(*own_inputs(args.template), "model file")
    from mpstudio.engine.memory_estimate import model_inputs
    from mpstudio.engine.spec import RunSpec

    return Inputs(*model_inputs(RunSpec(dataset=args.dataset or "digits")), "dataset")


def run_predict_command(args: argparse.Namespace) -> int:
    problems = _problems(args)
    if problems:
        return usage_error(COMMAND, problems)
    if args.measure:
        from mpstudio.engine.prediction.devices import not_measurable_here

        problem = not_measurable_here(args.device)
        if problem:
            return usage_error(COMMAND, [problem])
        if args.device.strip().lower() == "cpu":  # before TensorFlow starts a GPU
            from mpstudio.engine.prediction.devices import compute_on_cpu

            with tensorflow_logs_hidden():
                compute_on_cpu()
    # TensorFlow's start-up is hidden from file descriptor 2: the errors are printed
    # after it, where the user sees them
    with tensorflow_logs_hidden():
        outcome = _predict(args)
    if isinstance(outcome, UsageProblem):
        return usage_error(COMMAND, [str(outcome)])
    if isinstance(outcome, Exception):
        return ended_early(COMMAND, outcome)
    prediction, larger, inputs = outcome
    measurement = None
    if args.measure:
        try:
            measurement = _measure(args, prediction, inputs)
        except KeyboardInterrupt:  # the second Ctrl-C: leave now, without a traceback
            print(_("mpstudio {command}: error: interrupted").format(command=COMMAND),
                  file=sys.stderr)
            return EXIT_INTERRUPTED
    if args.json:
        from mpstudio.cli.prediction_tables import prediction_json

        out = prediction_json(prediction, larger, measurement, inputs.shape,
                              inputs.classes, inputs.source)
        if args.explain:
            out["layers"] = prediction.largest_layers()
        print(json.dumps(out, indent=2, allow_nan=False))
    else:
        from mpstudio.cli.prediction_tables import print_prediction

        console = make_console(stderr=False)
        if inputs.source == "model file":
            from mpstudio.engine.templates.user_model import own_inputs_text

            console.print(_("{template}: predicted {inputs} (give --input-shape or --dataset "
                            "for other data)").format(
                template=args.template, inputs=own_inputs_text(inputs.shape, inputs.classes)),
                highlight=False, markup=False)
        print_prediction(console, prediction, larger, measurement, args.explain)
    return _measured_exit(measurement)


def _measured_exit(measurement: Any) -> int:
    """0, or 1 where --measure could time no precision at all (each row says why)."""
    if measurement is None or measurement.stopped:
        return EXIT_OK
    return EXIT_OK if any(p.ok for p in measurement.precisions) else EXIT_FAILED


class UsageProblem(ValueError):
    """A device the table does not know: bad input, exit 2."""


def _predict(args: argparse.Namespace) -> tuple[Any, Any, Inputs] | Exception:
    """(the prediction, a larger batch's or None, the inputs), or the problem that
    stopped it."""
    from mpstudio.engine.prediction.devices import UnknownDevice, resolve_device
    from mpstudio.engine.prediction.predict import costed_models, larger_batch, predict_costed

    try:
        device = resolve_device(args.device)
    except UnknownDevice as exc:
        return UsageProblem(str(exc))
    try:
        inputs = _inputs(args)
        models = costed_models(args.template, inputs.shape, inputs.classes, device,
                               inputs.scale)
    except (ValueError, OSError) as exc:  # a template misfit, data that cannot be read
        return exc
    except Exception as exc:  # a what-if model built with its real weights, too large
        if not isinstance(exc, MemoryError) and type(exc).__name__ != "ResourceExhaustedError":
            raise
        return UsageProblem(_(
            "{template} for input {shape} and {classes} classes has more weights than this "
            "machine's memory holds, so it cannot be costed here: give a smaller "
            "--input-shape or --classes").format(
                template=args.template, shape="x".join(map(str, inputs.shape)),
                classes=f"{inputs.classes:,}"))
    prediction = predict_costed(models, args.template, args.batch_size, device)
    return prediction, larger_batch(models, prediction, device), inputs


def _measure(args: argparse.Namespace, prediction: Any, inputs: Inputs) -> Any:
    """The model timed under each precision the prediction has, progress on stderr (not
    with --json), Ctrl-C as a Stop."""
    from pathlib import Path

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from mpstudio.cli.spec_arguments import dataset_argument
    from mpstudio.engine.prediction.measure_model import data_on_disk, measure_model
    from mpstudio.engine.spec import RunSpec
    from mpstudio.engine.templates.user_model import is_model_file

    template = args.template
    if is_model_file(template):
        template = str(Path(template).expanduser().resolve())
    spec = RunSpec(template=template, batch_size=args.batch_size,
                   dataset=dataset_argument(args.dataset or "digits"))
    # the data a comparison would train on, where there is some here; else its shape
    on_data = inputs.source == "dataset" and data_on_disk(spec)
    stopper = StopFlag()
    progress = Progress(TextColumn(_("measuring {what}").format(what="{task.description}")),
                        BarColumn(), MofNCompleteColumn(),
                        console=make_console(stderr=True), transient=True,
                        disable=args.json)
    task = progress.add_task("", total=None)

    def update(done: int, total: int, what: str) -> None:
        progress.update(task, completed=done, total=total, description=what)

    with tensorflow_logs_hidden(), progress, ctrl_c_stops(stopper):
        return measure_model(spec, inputs.shape, inputs.classes,
                             tuple(prediction.predictions), seconds=args.seconds,
                             progress=update, should_stop=stopper.should_stop,
                             on_data=on_data, own_inputs=inputs.source == "model file")
