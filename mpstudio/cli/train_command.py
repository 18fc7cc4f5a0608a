"""``mpstudio train`` and ``mpstudio compare``: one run, or a float32 baseline beside
the mixed run, trained headless and recorded in the run history.

The spec is checked before TensorFlow is imported, so a typo costs no wait.
Exit codes: 0 done (or stopped), 1 a run failed or diverged, 2 bad arguments.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mpstudio.cli.aid_options import add_aid_options, apply_aid_options
from mpstudio.cli.estimate_command import add_estimate_option, run_estimate_only
from mpstudio.cli.pin_option import add_pin_option, apply_pin_option, print_pin_advice
from mpstudio.cli.spec_arguments import add_source_options, dataset_argument, source_options
from mpstudio.cli.support import (
    EXIT_FAILED,
    EXIT_OK,
    ctrl_c_held,
    ctrl_c_stops,
    ended_early,
    make_console,
    print_log_hint,
    usage_error,
)
from mpstudio.engine.datasets.registry import dataset_names
from mpstudio.engine.i18n import _
from mpstudio.engine.json_values import json_ready
from mpstudio.engine.quiet_stderr import tensorflow_logs_hidden
from mpstudio.engine.spec import (
    LOOPS,
    LOSS_SCALING_MODES,
    OPTIMIZERS,
    PRECISIONS,
    STRATEGIES,
    XLA_MODES,
    RunSpec,
    SpecError,
)
from mpstudio.engine.spec_checks import load_spec, validate_spec
from mpstudio.engine.templates.registry import template_names
from mpstudio.engine.templates.user_model import is_model_file

if TYPE_CHECKING:
    from mpstudio.engine.distribute.cluster import Cluster
    from mpstudio.engine.run_session import Session, TrainingOutcome
    from mpstudio.engine.trainer.compare_options import CompareOptions

COMMANDS = ("train", "compare")


def add_train_commands(commands: Any) -> None:
    """``train`` and ``compare``: the same run options, compare adds its trials."""
    train = commands.add_parser("train", help=_("train one run and print its summary"))
    run_options(train)
    compare = commands.add_parser(
        "compare",
        help=_("train a float32 baseline and the mixed run, print them side by side"))
    compare_options(compare)
    compare.add_argument("--sizing", choices=("auto", "off"), default="auto",
                         help=_("auto (default): where no --epochs, --steps, --batch-size or "
                                "--config sets them, a comparison too short to time its speed "
                                "is lengthened to a few seconds of steady time per side (on "
                                "a GPU, at the batch the prediction says it needs); off: "
                                "train as set"))


def compare_options(parser: argparse.ArgumentParser) -> None:
    """compare's options: the run options and its trials (a rerun repeats them)."""
    run_options(parser)
    compare = parser
    compare.add_argument("--repeats", type=int, default=1, metavar="N",
                         help=_("trials of each side, alternating; the card shows medians "
                                "(1)"))
    compare.add_argument("--baseline", default="auto", metavar=_("MATH"),
                         help=_("what the float32 side computes in: auto (TensorFlow's "
                                "default: TF32 on Ampere and newer GPUs), float32 (TF32 off) "
                                "or tf32"))
    compare.add_argument("--profile", action="store_true",
                         help=_("trace a few steady steps of each side with TensorFlow's "
                                "profiler: time per op type side by side, the casts mixed "
                                "precision added, and why it was slower"))


def _one_of(names: Any, default: str) -> str:
    return _("one of: {names} (default {default})").format(names=", ".join(names),
                                                           default=default)


def run_options(parser: argparse.ArgumentParser) -> None:
    """Options shared by train and compare. Defaults are None: unset options keep
    the value from --config (or the RunSpec default)."""
    add = parser.add_argument
    add("--config", metavar=_("RUN.toml"),
        help=_("read a saved run spec; options given here override it"))
    add("--save-config", metavar=_("RUN.toml"),
        help=_("write the effective run spec to a TOML file"))
    add("--json", action="store_true", help=_("print machine-readable results to stdout"))
    add("--dataset", metavar=_("DATASET"),
        help=_("one of: {names} (default digits), or the path of an .npz file, a .csv file "
               "or a folder of images (one sub-folder per class)"
               ).format(names=", ".join(dataset_names())))
    add("--template", metavar=_("TEMPLATE"),
        help=_("{choices}, or the path of your own model saved as .keras (its last layer "
               "computes in float32)").format(choices=_one_of(template_names(), "mlp")))
    add("--precision", metavar=_("PRECISION"), help=_one_of(PRECISIONS, "mixed_float16"))
    add("--loss-scaling", metavar=_("MODE"),
        help=_("one of: {names} (default auto: dynamic under float16)"
               ).format(names=", ".join(LOSS_SCALING_MODES)))
    add("--initial-scale", type=float, metavar=_("INITIAL_SCALE"),
        help=_("dynamic loss scaling: initial scale (2**15)"))
    add("--growth-steps", type=int, metavar=_("GROWTH_STEPS"),
        help=_("dynamic loss scaling: finite steps before doubling (2000)"))
    add("--scale-factor", type=float, metavar=_("SCALE_FACTOR"),
        help=_("fixed loss scaling: the scale (1024)"))
    add("--optimizer", metavar=_("OPTIMIZER"), help=_one_of(OPTIMIZERS, "adam"))
    add("--learning-rate", "--lr", type=float, metavar=_("LEARNING_RATE"),
        help=_("default 0.001"))
    add("--batch-size", type=int, metavar=_("BATCH_SIZE"), help=_("per replica, default 128"))
    add("--epochs", type=int, metavar=_("EPOCHS"), help=_("default 5"))
    add("--steps", type=int, metavar=_("STEPS"),
        help=_("a step budget: train this many steps instead of --epochs"))
    add("--validation-split", type=float, metavar=_("VALIDATION_SPLIT"),
        help=_("fraction held out for validation (0.2)"))
    add("--seed", type=int, metavar=_("SEED"),
        help=_("fixes the split, initial weights and data order (0)"))
    add("--xla", metavar=_("XLA"),
        help=_("one of: {names} (default auto: on for GPUs)").format(names=", ".join(XLA_MODES)))
    add("--loop", metavar=_("LOOP"), help=_one_of(LOOPS, "fit"))
    add("--log-every", type=int, metavar=_("LOG_EVERY"),
        help=_("report step metrics every N steps (0: auto)"))
    add("--strategy", metavar=_("STRATEGY"),
        help=_("one of: {names} (default: one device); multiworker reads the cluster from "
               "TF_CONFIG: run it on every host").format(names=", ".join(STRATEGIES)))
    add("--devices", metavar="GPU:0,GPU:1",
        help=_("mirrored: the devices to use (default: every local GPU)"))
    add("--lr-scaling", metavar=_("RULE"),
        help=_("learning rate for the global batch: linear (x replicas, the default) or "
               "none"))
    add("--warmup-steps", type=int, metavar=_("WARMUP_STEPS"),
        help=_("linear learning-rate warmup from 0 (0: none)"))
    add("--join-timeout", type=float, metavar=_("SECONDS"),
        help=_("multiworker: how long to wait for every worker to start (300)"))
    add("--cpu-devices", type=int, metavar="N",
        help=_("split the CPU into N logical devices (try mirrored or multiworker without "
               "GPUs)"))
    add("--events", action="store_true",
        help=_("print every run event as a JSON line on stdout (for front ends)"))
    add("--shuffle-buffer", type=int, metavar=_("SHUFFLE_BUFFER"),
        help=_("0 turns shuffling off (10000)"))
    add("--no-cache", action="store_true", help=_("do not cache the dataset in memory"))
    add("--no-prefetch", action="store_true", help=_("do not prefetch batches"))
    add_source_options(parser)
    add_aid_options(parser)
    add_pin_option(parser)
    add_estimate_option(parser)


def spec_from_args(args: argparse.Namespace, server: bool = False) -> RunSpec:
    """The run spec: --config (or the defaults) with the options given applied.
    ``server``: it runs in a server's engine (cli/remote_run.py), so its paths are the
    server's: kept as written, not made absolute here."""
    spec = RunSpec() if not args.config else RunSpec.read(args.config) if server \
        else load_spec(args.config)
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
    if args.dataset is not None and not server:
        changes["dataset"] = dataset_argument(args.dataset)
    if args.template is not None and is_model_file(args.template) and not server:
        changes["template"] = str(Path(args.template).expanduser().resolve())
    changes["dataset_options"] = source_options(args, spec.dataset_options)
    changes["warmup_steps"] = (spec.warmup_steps if args.warmup_steps is None
                               else args.warmup_steps)
    distribute = {"strategy": args.strategy, "lr_scaling": args.lr_scaling,
                  "join_timeout": args.join_timeout,
                  "devices": None if args.devices is None
                  else [d.strip() for d in args.devices.split(",") if d.strip()]}
    changes["distribute"] = dataclasses.replace(
        spec.distribute, **{k: v for k, v in distribute.items() if v is not None})
    return apply_pin_option(args, apply_aid_options(args, spec.replace(**changes)))


def sizes_comparison(args: argparse.Namespace) -> bool:
    """A comparison is sized where the user set neither its length nor its batch."""
    return args.sizing == "auto" and all(
        getattr(args, name) is None for name in ("epochs", "steps", "batch_size", "config"))


def run_train_command(args: argparse.Namespace) -> int:
    """Train (or compare) as the arguments say; the exit code."""
    try:
        spec = spec_from_args(args)
        validate_spec(spec)
        cluster = worker_cluster(spec, args)
        if args.command == "compare":
            from mpstudio.engine.trainer.compare_options import comparison_problems

            problems = comparison_problems(spec, args.repeats, args.baseline)
            if problems:
                raise SpecError(problems)
    except SpecError as exc:
        return usage_error(args.command, exc.problems)
    if args.save_config:
        try:
            spec.save(args.save_config)
        except OSError as exc:
            return usage_error(args.command, [_("cannot write {path}: {reason}").format(
                path=args.save_config, reason=exc.strerror)])

    if args.estimate_only:  # the memory it would need, per precision; no training
        return run_estimate_only(args, spec)

    from mpstudio.engine.trainer.compare_options import CompareOptions

    comparison = CompareOptions(args.repeats, args.baseline, args.profile,
                                size=sizes_comparison(args)) \
        if args.command == "compare" else None
    session = train_from_command(
        args.command, spec, comparison, quiet=args.json or args.events, events=args.events,
        cpu_devices=args.cpu_devices,
        # in a multi-worker cluster only the chief records
        record=cluster is None or cluster.is_chief)
    if isinstance(session, int):
        return session  # it ended early, said in one line
    return report_session(args, session, "compare" if comparison else "train",
                          compare_options if comparison else run_options)


def report_session(args: argparse.Namespace, session: Session | TrainingOutcome, kind: str,
                   options: Any, where: str = "") -> int:
    """Print what a session trained as ``kind`` (train or compare) as the arguments ask
    (a card, --json, --events) and the pin advice; the exit code. ``where``: the server
    whose engine trained it (its history holds the runs)."""
    results, stored = session.results, session.stored
    payload = _payload(kind, results, stored, session.card)
    if args.events:
        print(json.dumps({"event": "Done", **payload}, allow_nan=False), flush=True)
    elif args.json:
        print(json.dumps(payload, indent=2, allow_nan=False))
    else:
        _print_outcome(session.card, stored, session.history_kept, where)
    if not args.events:  # a server's history is read there, not here
        print_pin_advice(args, options, results,
                         stored if session.history_kept and not where else [])
    if any(r.failure is not None and r.failure.has_traceback for r in results):
        print_log_hint(args.command)  # the error's traceback is there
    return EXIT_OK if all(r.ok for r in results) else EXIT_FAILED


def train_from_command(command: str, spec: RunSpec, comparison: CompareOptions | None, *,
                       quiet: bool, events: bool = False, cpu_devices: int | None = None,
                       record: bool = True) -> Session | int:
    """How every command trains (train, compare, replay): TensorFlow imported quietly, the
    saved GPU memory settings applied first, the run path the window's engine takes
    (run_session) under Ctrl-C handling, progress on stderr. The session, or the exit
    code of a run that ended early (said in one line)."""
    from mpstudio.cli.console import ConsoleReporter
    from mpstudio.engine.datasets.errors import DataLoadStopped
    from mpstudio.engine.first_step import (
        FirstStepWatch,
        StoppedBeforeFirstStep,
        WatchingReporter,
        stopped_reason,
    )
    from mpstudio.engine.said import render

    with ctrl_c_held(), tensorflow_logs_hidden():
        from mpstudio.engine.hardware.gpu_memory import apply_saved_gpu_memory
        from mpstudio.engine.run_session import train_session
        from mpstudio.engine.trainer import runner

        memory = apply_saved_gpu_memory()  # before the first op initializes the GPUs
        if cpu_devices:
            from mpstudio.engine.distribute.placement import StrategyError, split_cpu

            try:
                split_cpu(cpu_devices)
            except StrategyError as exc:
                return usage_error(command, [str(exc)])
    if memory.status in ("applied", "failed", "needs_restart"):
        print(_("mpstudio {command}: GPU memory: {message}").format(
            command=command, message=memory.message), file=sys.stderr)

    console = ConsoleReporter(make_console(stderr=True), quiet=quiet,
                              summaries=comparison is None,  # a comparison prints its card
                              results=make_console(stderr=False))
    front: Any = EventPrinter(console) if events else console
    watch = None
    if spec.distribute.strategy != "multiworker":  # workers stop together, after a step
        watch = FirstStepWatch()
        front = WatchingReporter(front, watch)
    try:
        with ctrl_c_stops(front, watch):
            # the window's engine process takes the same path (run_session)
            return train_session(spec, front, comparison, record=record)
    except SpecError as exc:
        return usage_error(command, exc.problems)
    except (runner.RunSetupError, DataLoadStopped) as exc:
        return ended_early(command, exc)
    except StoppedBeforeFirstStep:
        console.close()  # its live lines first, then the sentence
        print("\n" + _("mpstudio {command}: {reason}; the run is in the history as "
                       "stopped").format(command=command, reason=render(stopped_reason())),
              file=sys.stderr)
        return EXIT_OK  # a stop the user asked for, as after a step
    finally:
        console.close()


def worker_cluster(spec: RunSpec, args: argparse.Namespace) -> Cluster | None:
    """This process's cluster for a multi-worker run (None otherwise); SpecError for a
    TF_CONFIG that names no cluster this process belongs to."""
    if args.cpu_devices is not None and args.cpu_devices < 1:
        raise SpecError([_("--cpu-devices must be a positive integer, got {value}").format(
            value=args.cpu_devices)])
    if spec.distribute.strategy != "multiworker":
        return None
    import os

    from mpstudio.engine.distribute.cluster import ClusterError, read_cluster

    try:
        return read_cluster(os.environ)
    except ClusterError as exc:
        raise SpecError([str(exc)]) from None


class EventPrinter:
    """``--events``: every event as one JSON line on stdout, for a front end that runs
    this command as a worker process (the GUI's multi-worker runs)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def emit(self, event: Any) -> None:
        from mpstudio.engine.event_codec import event_to_json

        print(json.dumps(json_ready(event_to_json(event)), allow_nan=False), flush=True)
        self.inner.emit(event)

    def should_stop(self) -> bool:
        return self.inner.should_stop()

    def stop(self) -> None:
        self.inner.stop()


def _payload(command: str, results: list, stored: list, card: Any) -> dict[str, Any]:
    ids = [run.id for run in stored] if len(stored) == len(results) else [None] * len(results)
    runs = [{"id": run_id, **_result_json(result)} for run_id, result in
            zip(ids, results, strict=True)]
    if command == "train":
        return runs[0]
    return json_ready({
        "runs": runs,
        "card": card.to_dict() if card else None,
        "verdict": card.verdict.sentence if card else None,
        "speedup": card.speedup.median if card else None,
        "accuracy_delta_pp": card.accuracy_delta_pp if card else None,
        "accuracy_interval_pp": [card.accuracy.low_pp, card.accuracy.high_pp]
        if card and card.accuracy else None,
        "accuracy_outcome": card.accuracy.outcome if card and card.accuracy else None,
        "memory_saving": card.memory_saving if card else None,
    })


def _print_outcome(card: Any, stored: list, persistent: bool, where: str = "") -> None:
    from mpstudio.cli.history_tables import card_table

    if card is not None:
        make_console(stderr=False).print(card_table(card))
    if stored and persistent:
        ids = ", ".join(f"#{run.id}" for run in stored)
        hint = (f"mpstudio runs compare {stored[0].id} {stored[1].id}" if len(stored) > 1
                else f"mpstudio runs show {stored[0].id}")
        if where:
            print(_("saved in {host}'s run history as {ids} (see: ssh {host} {hint})").format(
                host=where, ids=ids, hint=hint), file=sys.stderr)
            return
        print(_("saved in the run history as {ids} (see: {hint})").format(ids=ids, hint=hint),
              file=sys.stderr)


def _result_json(result) -> dict[str, Any]:
    return json_ready(
        {
            "spec": result.spec.to_dict(),
            "summary": result.summary.to_dict(),
            "epochs": [dataclasses.asdict(e) for e in result.epochs],
            "warnings": result.warnings,
            "failure": result.failure.reason if result.failure else None,
        }
    )
