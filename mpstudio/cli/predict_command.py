"""``mpstudio predict``: what mixed precision should give a model on a device before a
run: each precision's examples/s, speedup over float32 (TF32 on compute capability
8.0+) with its range, peak memory, the share of its arithmetic in the half type, and
what bounds its step. The device need not be present: any GPU in the table.

Exit codes: 0 predicted, 1 the model or data could not be read, 2 bad arguments.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from mpstudio.cli.support import EXIT_OK, ended_early, make_console, usage_error
from mpstudio.engine.i18n import _
from mpstudio.engine.quiet_stderr import tensorflow_logs_hidden

COMMAND = "predict"


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
        help=_("take the input shape and classes from this dataset (default digits, "
               "unless --input-shape is given)"))
    add("--input-shape", metavar="H,W,C",
        help=_("the model's input shape instead of a dataset's, e.g. 32,32,3 (images are "
               "taken as stored uint8, scaled by the model)"))
    add("--classes", type=int, default=10, metavar="N",
        help=_("with --input-shape: classes (10)"))
    add("--device", default="this", metavar=_("DEVICE"),
        help=_("a GPU by name (e.g. 'NVIDIA H200', A100, 'RTX 4090'), cpu, or this "
               "(default: this machine's first GPU, else its CPU, measured now)"))
    add("--explain", action="store_true",
        help=_("also list the layers that take most of the step, each precision's time for "
               "them and what bounds each"))
    add("--json", action="store_true", help=_("print JSON to stdout"))


def _shape(text: str) -> tuple[int, ...] | None:
    try:
        shape = tuple(int(part) for part in text.replace("x", ",").split(",") if part)
    except ValueError:
        return None
    return shape if shape and all(d > 0 for d in shape) else None


def _problems(args: argparse.Namespace) -> list[str]:
    problems = []
    if args.batch_size < 1:
        problems.append(_("--batch-size must be a positive whole number"))
    if args.input_shape is not None and _shape(args.input_shape) is None:
        problems.append(_("--input-shape takes positive sizes separated by commas, like "
                          "32,32,3; got {value!r}").format(value=args.input_shape))
    if args.input_shape is not None and args.dataset is not None:
        problems.append(_("give --dataset or --input-shape, not both"))
    if args.classes < 2:
        problems.append(_("--classes must be at least 2"))
    return problems


def _inputs(args: argparse.Namespace) -> tuple[tuple[int, ...], int, float | None]:
    if args.input_shape is not None:
        shape = _shape(args.input_shape) or ()
        return shape, args.classes, (1 / 255 if len(shape) == 3 else None)
    from mpstudio.engine.memory_estimate import model_inputs
    from mpstudio.engine.spec import RunSpec

    return model_inputs(RunSpec(dataset=args.dataset or "digits"))


def run_predict_command(args: argparse.Namespace) -> int:
    problems = _problems(args)
    if problems:
        return usage_error(COMMAND, problems)
    # TensorFlow's start-up is hidden from file descriptor 2: the errors are printed
    # after it, where the user sees them
    with tensorflow_logs_hidden():
        outcome = _predict(args)
    if isinstance(outcome, UsageProblem):
        return usage_error(COMMAND, [str(outcome)])
    if isinstance(outcome, Exception):
        return ended_early(COMMAND, outcome)
    prediction, larger = outcome
    if args.json:
        out = prediction.to_dict()
        if larger is not None:
            out["larger_batch"] = larger.to_dict()
        if args.explain:
            out["layers"] = prediction.largest_layers()
        print(json.dumps(out, indent=2, allow_nan=False))
        return EXIT_OK
    from mpstudio.cli.prediction_tables import print_prediction

    print_prediction(make_console(stderr=False), prediction, larger, args.explain)
    return EXIT_OK


class UsageProblem(ValueError):
    """A device the table does not know: bad input, exit 2."""


def _predict(args: argparse.Namespace) -> tuple[Any, Any] | Exception:
    """(the prediction, a larger batch's or None), or the problem that stopped it."""
    from mpstudio.engine.prediction.devices import UnknownDevice, resolve_device
    from mpstudio.engine.prediction.predict import costed_models, larger_batch, predict_costed

    try:
        device = resolve_device(args.device)
    except UnknownDevice as exc:
        return UsageProblem(str(exc))
    try:
        shape, classes, scale = _inputs(args)
        models = costed_models(args.template, shape, classes, device, scale)
    except (ValueError, OSError) as exc:  # a template misfit, data that cannot be read
        return exc
    prediction = predict_costed(models, args.template, args.batch_size, device)
    return prediction, larger_batch(models, prediction, device)
