"""Command-line switches for the training aids ([aids] in a run spec) and the linear
batch-size scaling helper for the learning rate."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from mpstudio.engine.distribute.lr_plan import scaled_learning_rate
from mpstudio.engine.spec import MONITORS, RunSpec, SpecError


def add_aid_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("training aids")
    add = group.add_argument
    add("--early-stopping", type=int, nargs="?", const=3, metavar="PATIENCE",
        help="stop when the monitored metric has not improved for PATIENCE epochs (3), "
        "and restore the best epoch's weights")
    add("--no-restore-best", action="store_true",
        help="early stopping keeps the last epoch's weights instead of the best")
    add("--monitor", help=f"what the aids watch: one of {', '.join(MONITORS)} (val_loss)")
    add("--reduce-lr-on-plateau", type=int, nargs="?", const=2, metavar="PATIENCE",
        help="multiply the learning rate by --lr-factor after PATIENCE epochs without "
        "improvement (2)")
    add("--lr-factor", type=float, help="reduce-on-plateau factor (0.5)")
    add("--min-lr", type=float, help="reduce-on-plateau floor (1e-6)")
    add("--best-checkpoint", action="store_true",
        help="keep the best epoch's weights (float32) as the run's model for export")
    add("--tensorboard", action="store_true",
        help="write TensorBoard scalars (loss, loss scale, throughput...) into the run's "
        "folder; `mpstudio tensorboard ID` shows them")
    add("--no-oom-retry", action="store_true",
        help="out of memory: fail instead of retrying at half the batch")
    add("--min-batch-size", type=int, metavar="N",
        help="out-of-memory retries stop below this batch size (8)")
    add("--diagnose", action="store_true",
        help="when the loss turns NaN/inf, re-run the step with per-layer checks and name "
        "the first layer that produced it")
    add("--underflow-every", type=int, metavar="N",
        help="mixed_float16: every N steps, measure how much of the gradient float16 "
        "rounds to zero with and without loss scaling (about 1/N more compute; 0: off)")
    add("--lr-scaled-from", type=int, metavar="BATCH",
        help="the learning rate given is for batch BATCH: scale it linearly to "
        "--batch-size (the linear scaling rule)")


def apply_aid_options(args: argparse.Namespace, spec: RunSpec) -> RunSpec:
    changes: dict[str, Any] = {
        "monitor": args.monitor, "lr_factor": args.lr_factor,
        "min_learning_rate": args.min_lr, "min_batch_size": args.min_batch_size,
        "underflow_every": args.underflow_every,
    }
    if args.early_stopping is not None:
        changes.update(early_stopping=True, patience=args.early_stopping)
    if args.no_restore_best:
        changes["restore_best_weights"] = False
    if args.reduce_lr_on_plateau is not None:
        changes.update(reduce_lr_on_plateau=True, lr_patience=args.reduce_lr_on_plateau)
    for flag, field in (("best_checkpoint", "best_checkpoint"), ("tensorboard", "tensorboard"),
                        ("diagnose", "diagnose_numerics")):
        if getattr(args, flag):
            changes[field] = True
    if args.no_oom_retry:
        changes["oom_retry"] = False
    aids = dataclasses.replace(spec.aids, **{k: v for k, v in changes.items() if v is not None})
    spec = spec.replace(aids=aids)
    if args.lr_scaled_from is not None:
        if args.lr_scaled_from <= 0:
            raise SpecError([f"--lr-scaled-from must be a positive batch size, "
                             f"got {args.lr_scaled_from}"])
        spec = spec.replace(learning_rate=scaled_learning_rate(
            spec.learning_rate, args.lr_scaled_from, spec.batch_size))
    return spec
