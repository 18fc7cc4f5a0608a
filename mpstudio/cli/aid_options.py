"""Command-line switches for the training aids ([aids] in a run spec) and the linear
batch-size scaling helper for the learning rate."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from mpstudio.engine.distribute.lr_plan import scaled_learning_rate
from mpstudio.engine.i18n import _
from mpstudio.engine.spec import MONITORS, RunSpec, SpecError


def add_aid_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(_("training aids"))
    add = group.add_argument
    add("--early-stopping", type=int, nargs="?", const=3, metavar=_("PATIENCE"),
        help=_("stop when the monitored metric has not improved for {patience} epochs (3), "
               "and restore the best epoch's weights").format(patience=_("PATIENCE")))
    add("--no-restore-best", action="store_true",
        help=_("early stopping keeps the last epoch's weights instead of the best"))
    add("--monitor", metavar=_("MONITOR"),
        help=_("what the aids watch: one of {names} (val_loss)").format(
            names=", ".join(MONITORS)))
    add("--reduce-lr-on-plateau", type=int, nargs="?", const=2, metavar=_("PATIENCE"),
        help=_("multiply the learning rate by --lr-factor after {patience} epochs without "
               "improvement (2)").format(patience=_("PATIENCE")))
    add("--lr-factor", type=float, metavar=_("LR_FACTOR"),
        help=_("reduce-on-plateau factor (0.5)"))
    add("--min-lr", type=float, metavar=_("MIN_LR"), help=_("reduce-on-plateau floor (1e-6)"))
    add("--best-checkpoint", action="store_true",
        help=_("keep the best epoch's weights (float32) as the run's model for export"))
    add("--tensorboard", action="store_true",
        help=_("write TensorBoard scalars (loss, loss scale, throughput...) into the run's "
               "folder; `mpstudio tensorboard ID` shows them"))
    add("--no-oom-retry", action="store_true",
        help=_("out of memory: fail instead of retrying at half the batch"))
    add("--min-batch-size", type=int, metavar="N",
        help=_("out-of-memory retries stop below this batch size (8)"))
    add("--diagnose", action="store_true",
        help=_("when the loss turns NaN/inf, re-run the step with per-layer checks and name "
               "the first layer that produced it"))
    add("--underflow-every", type=int, metavar="N",
        help=_("mixed_float16: every N steps, measure how much of the gradient float16 "
               "rounds to zero with and without loss scaling (about 1/N more compute; 0: "
               "off)"))
    add("--lr-scaled-from", type=int, metavar=_("BATCH"),
        help=_("the learning rate given is for batch {batch}: scale it linearly to "
               "--batch-size (the linear scaling rule)").format(batch=_("BATCH")))


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
            raise SpecError([_("--lr-scaled-from must be a positive batch size, got "
                               "{value}").format(value=args.lr_scaled_from)])
        spec = spec.replace(learning_rate=scaled_learning_rate(
            spec.learning_rate, args.lr_scaled_from, spec.batch_size))
    return spec
