"""The ``mpstudio`` command: no subcommand opens the desktop app; ``train`` and
``compare`` run the engine headless.

Arguments are checked before TensorFlow is imported, so a typo costs no wait.
Exit codes: 0 done (or stopped), 1 a run failed or diverged, 2 bad arguments.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import math
import os
import signal
import sys
from collections.abc import Iterator
from typing import Any, NoReturn

from mpstudio import __version__
from mpstudio.engine.datasets.registry import dataset_names
from mpstudio.engine.spec import (
    LOOPS,
    LOSS_SCALING_MODES,
    OPTIMIZERS,
    PRECISIONS,
    XLA_MODES,
    RunSpec,
    SpecError,
)
from mpstudio.engine.templates.registry import template_names

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, no usage dump
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _run_options(parser: argparse.ArgumentParser) -> None:
    """Options shared by train and compare. Defaults are None: unset options keep
    the value from --config (or the RunSpec default)."""
    add = parser.add_argument
    add("--config", metavar="RUN.toml",
        help="read a saved run spec; options given here override it")
    add("--save-config", metavar="RUN.toml", help="write the effective run spec to a TOML file")
    add("--json", action="store_true", help="print machine-readable results to stdout")
    add("--dataset", help=f"one of: {', '.join(dataset_names())} (default digits)")
    add("--template", help=f"one of: {', '.join(template_names())} (default mlp)")
    add("--precision", help=f"one of: {', '.join(PRECISIONS)} (default mixed_float16)")
    add("--loss-scaling", metavar="MODE",
        help=f"one of: {', '.join(LOSS_SCALING_MODES)} (default auto: dynamic under float16)")
    add("--initial-scale", type=float, help="dynamic loss scaling: initial scale (2**15)")
    add("--growth-steps", type=int,
        help="dynamic loss scaling: finite steps before doubling (2000)")
    add("--scale-factor", type=float, help="fixed loss scaling: the scale (1024)")
    add("--optimizer", help=f"one of: {', '.join(OPTIMIZERS)} (default adam)")
    add("--learning-rate", "--lr", type=float, help="default 0.001")
    add("--batch-size", type=int, help="per replica, default 128")
    add("--epochs", type=int, help="default 5")
    add("--steps", type=int, help="a step budget: train this many steps instead of --epochs")
    add("--validation-split", type=float, help="fraction held out for validation (0.2)")
    add("--seed", type=int, help="fixes the split, initial weights and data order (0)")
    add("--xla", help=f"one of: {', '.join(XLA_MODES)} (default auto: on for GPUs)")
    add("--loop", help=f"one of: {', '.join(LOOPS)} (default fit)")
    add("--log-every", type=int, help="report step metrics every N steps (0: auto)")
    add("--shuffle-buffer", type=int, help="0 turns shuffling off (10000)")
    add("--no-cache", action="store_true", help="do not cache the dataset in memory")
    add("--no-prefetch", action="store_true", help="do not prefetch batches")
    add("--synthetic-shape", metavar="H,W,C", help="synthetic data: input shape (32,32,3)")
    add("--synthetic-classes", type=int, help="synthetic data: number of classes (10)")
    add("--synthetic-samples", type=int, help="synthetic data: examples per epoch (8192)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="mpstudio",
        description="Mixed-precision training workbench for TensorFlow/Keras. "
        "With no command, opens the desktop app.",
        epilog="TensorFlow's own logs are hidden; set TF_CPP_MIN_LOG_LEVEL=0 to see them.",
    )
    parser.add_argument("--version", action="version", version=f"mpstudio {__version__}")
    commands = parser.add_subparsers(dest="command", parser_class=_Parser)
    train = commands.add_parser("train", help="train one run and print its summary")
    _run_options(train)
    compare = commands.add_parser(
        "compare", help="train a float32 baseline and the mixed run, print them side by side"
    )
    _run_options(compare)
    return parser


def _shape(text: str) -> list[int]:
    try:
        return [int(part) for part in text.replace("x", ",").split(",") if part.strip()]
    except ValueError:
        raise SpecError([f"synthetic shape must look like 32,32,3, got {text!r}"]) from None


def spec_from_args(args: argparse.Namespace) -> RunSpec:
    spec = RunSpec.load(args.config) if args.config else RunSpec()
    plain = {
        "dataset": args.dataset, "template": args.template, "precision": args.precision,
        "optimizer": args.optimizer, "learning_rate": args.learning_rate,
        "batch_size": args.batch_size, "epochs": args.epochs, "steps": args.steps,
        "validation_split": args.validation_split, "seed": args.seed, "xla": args.xla,
        "loop": args.loop, "log_every_steps": args.log_every,
    }
    changes: dict[str, Any] = {k: v for k, v in plain.items() if v is not None}
    scaling = {
        "mode": args.loss_scaling, "initial_scale": args.initial_scale,
        "growth_steps": args.growth_steps, "factor": args.scale_factor,
    }
    changes["loss_scaling"] = dataclasses.replace(
        spec.loss_scaling, **{k: v for k, v in scaling.items() if v is not None}
    )
    data = {"cache": False if args.no_cache else None,
            "prefetch": False if args.no_prefetch else None,
            "shuffle_buffer": args.shuffle_buffer}
    changes["data"] = dataclasses.replace(
        spec.data, **{k: v for k, v in data.items() if v is not None}
    )
    options = dict(spec.dataset_options)
    if args.synthetic_shape is not None:
        options["shape"] = _shape(args.synthetic_shape)
    if args.synthetic_classes is not None:
        options["classes"] = args.synthetic_classes
    if args.synthetic_samples is not None:
        options["samples"] = args.synthetic_samples
    changes["dataset_options"] = options
    return spec.replace(**changes)


def _usage_error(command: str, problems: list[str]) -> int:
    for problem in problems:
        print(f"mpstudio {command}: error: {problem}", file=sys.stderr)
    return EXIT_USAGE


@contextlib.contextmanager
def _tensorflow_logs_hidden() -> Iterator[None]:
    """Import TensorFlow without its C++ start-up chatter (CUDA probing on machines
    without a GPU), unless the user asked for logs with TF_CPP_MIN_LOG_LEVEL."""
    if "TF_CPP_MIN_LOG_LEVEL" in os.environ:
        yield
        return
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    sys.stderr.flush()
    saved, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)  # absl writes its pre-init lines straight to file descriptor 2
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


@contextlib.contextmanager
def _ctrl_c_stops(reporter) -> Iterator[None]:
    """First Ctrl-C stops cooperatively after the current step; a second one aborts."""

    def handler(signum, frame):
        print("\nstopping after this step (Ctrl-C again to abort)", file=sys.stderr)
        reporter.stop()
        signal.signal(signal.SIGINT, signal.default_int_handler)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _run_command(args: argparse.Namespace) -> int:
    try:
        spec = spec_from_args(args)
        spec.validate()
    except SpecError as exc:
        return _usage_error(args.command, exc.problems)
    if args.save_config:
        try:
            spec.save(args.save_config)
        except OSError as exc:
            return _usage_error(args.command, [f"cannot write {args.save_config}: {exc.strerror}"])

    from rich.console import Console

    from mpstudio.console import ConsoleReporter, comparison_table

    with _tensorflow_logs_hidden():
        from mpstudio.engine.trainer import compare as compare_mod
        from mpstudio.engine.trainer import runner

    def console(stderr: bool) -> Console:
        plain = Console(stderr=stderr)  # a log file or pipe gets 80 columns: too narrow
        return plain if plain.is_terminal else Console(stderr=stderr, width=110)

    reporter = ConsoleReporter(console(True), quiet=args.json, summaries=args.command == "train")
    try:
        with _ctrl_c_stops(reporter):
            if args.command == "train":
                result = runner.run(spec, reporter)
                results = [result]
                payload: dict[str, Any] = _result_json(result)
            else:
                comparison = compare_mod.compare(spec, reporter)
                results = [r for r in (comparison.baseline, comparison.mixed) if r is not None]
                payload = {
                    "baseline": _result_json(comparison.baseline),
                    "mixed": _result_json(comparison.mixed) if comparison.mixed else None,
                    "speedup": comparison.speedup,
                    "accuracy_delta_pp": comparison.accuracy_delta_pp,
                    "memory_saving": comparison.memory_saving,
                }
                if not args.json:
                    console(False).print(comparison_table(comparison))
    except SpecError as exc:
        return _usage_error(args.command, exc.problems)
    except runner.RunSetupError as exc:
        print(f"mpstudio {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if args.json:
        print(json.dumps(payload, indent=2, allow_nan=False))
    return EXIT_OK if all(r.ok for r in results) else EXIT_FAILED


def _finite(value: Any) -> Any:
    """JSON has no NaN or infinity (a diverged run has them): write null instead."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _result_json(result) -> dict[str, Any]:
    return _finite(
        {
            "spec": result.spec.to_dict(),
            "summary": result.summary.to_dict(),
            "epochs": [dataclasses.asdict(e) for e in result.epochs],
            "warnings": result.warnings,
            "failure": result.failure.reason if result.failure else None,
        }
    )


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        print(
            "The mpstudio desktop app arrives in a later release. Until then, train from the "
            "command line, for example:\n"
            "  mpstudio train --dataset digits --template cnn --precision mixed_float16 "
            "--epochs 2\n"
            "  mpstudio compare --dataset digits --template mlp --epochs 3\n"
            "`mpstudio --help` lists every command."
        )
        return EXIT_OK
    return _run_command(args)
