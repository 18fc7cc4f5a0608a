"""Stored runs (``StoredRun``, as the history reads one back) built by hand, with no
store and no training: ``run`` for the comparison card's verdict (validation flags
that give a chosen accuracy), ``make_run``/``pair`` for the report and the charts (full
step and epoch metrics)."""

from __future__ import annotations

import math

import numpy as np

from mpstudio.engine.comparison.paired_accuracy import encode_hits
from mpstudio.engine.events import EpochMetrics, RunSummary, StepMetrics
from mpstudio.engine.history.records import RunRow, StoredRun

from support.history_fakes import summary


def run(run_id: int, precision: str, speed: float, val: float, *, status="finished",
        device="CPU (x86_64, 2 cores)", role="single", trial=1, memory=None,
        advisor="no native float16 arithmetic on this CPU", steps_done=500,
        data_fraction=None, float32_math="float32", examples=100_000, spec=None,
        advisor_verdict="works but slower") -> StoredRun:
    """A stored run whose ``examples`` validation flags give accuracy ``val``: the first
    examples right, so two runs' flags nest (they disagree only on the difference)."""
    label = "float32 baseline" if precision == "float32" else precision
    hits = encode_hits(np.arange(examples) < round(val * examples)) if examples else ""
    s = summary(status=status, speed=speed, val=val, label=label, precision=precision,
                steps_done=steps_done, peak_memory_bytes=memory, device=device,
                data_time_fraction=data_fraction, val_examples=examples or None,
                val_hits=hits)
    return StoredRun(
        row=RunRow(run_id, 0.0, label, status, "digits", "mlp", precision, speed, val,
                   "c" if role != "single" else None, role, trial, 1),
        spec={"precision": precision, **(spec or {})},
        hardware={"device": device, "advisor_reason": advisor, "float32_math": float32_math,
                  "advisor_verdict": advisor_verdict},
        model={}, dataset_summary="", steps_per_epoch=10, total_steps=steps_done,
        summary=s, failure=None, finished=1.0, model_paths=(), steps=(), epochs=(),
        scale_changes=(),
    )


def make_steps(n: int, eps: float, loss0: float = 2.0, scale: float | None = None,
               warmup: int = 2, nan_from: int | None = None) -> tuple[StepMetrics, ...]:
    out = []
    for i in range(1, n + 1):
        loss = loss0 / (1 + 0.1 * i)
        if nan_from is not None and i >= nan_from:
            loss = math.nan
        out.append(StepMetrics(
            step=i, epoch=1 + (i - 1) // 10, loss=loss, accuracy=min(0.99, 0.5 + 0.01 * i),
            loss_scale=scale, overflow_steps=0,
            examples_per_sec=None if i <= warmup else eps * (1 + 0.01 * (i % 3)),
            step_time=128 / eps, warmup=i <= warmup))
    return tuple(out)


def make_epochs(n_steps: int, val_acc: float | None) -> tuple[EpochMetrics, ...]:
    out = []
    for e in range(1, n_steps // 10 + 1):
        out.append(EpochMetrics(
            epoch=e, steps=10 * e, loss=1.0 / e, accuracy=0.8, val_loss=1.1 / e,
            val_accuracy=None if val_acc is None else val_acc - 0.01 * (n_steps // 10 - e),
            epoch_time=3.0, train_time=2.5))
    return tuple(out)


def make_run(id: int, label: str, role: str, precision: str, examples_per_sec: float,
             val_acc: float | None, *, steps: int = 40, trial: int = 1, trials: int = 1,
             status: str = "finished", nan_from: int | None = None,
             failure: str | None = None, spec: dict | None = None) -> StoredRun:
    scale = 32768.0 if precision == "mixed_float16" else None
    step_metrics = make_steps(steps, examples_per_sec, scale=scale, nan_from=nan_from)
    summary = RunSummary(
        label=label, precision=precision, status=status, loop="fit", xla=False,
        batch_size=128, epochs_done=steps // 10, steps_done=steps, warmup_steps=2,
        time_to_first_step=1.5, steady_examples_per_sec=examples_per_sec,
        steady_step_time=128 / examples_per_sec, mean_epoch_time=3.0, total_time=12.0,
        final_loss=step_metrics[-1].loss, final_accuracy=0.9, final_val_loss=0.3,
        final_val_accuracy=val_acc, best_val_accuracy=val_acc, overflow_steps=0,
        loss_scale_mode="dynamic" if scale else "off", loss_scale_min=scale,
        loss_scale_max=scale, loss_scale_final=scale,
        peak_memory_bytes=(200 if scale else 300) * 2**20,
        memory_note="", device="GPU:0 (test)", params=1000)
    row = RunRow(id=id, created=1_700_000_000.0 + id, label=label, status=status,
                 dataset="digits", template="mlp", precision=precision,
                 examples_per_sec=examples_per_sec, val_accuracy=val_acc, comparison="c1",
                 role=role, trial=trial, trials=trials)
    return StoredRun(
        row=row,
        spec=spec or {"dataset": "digits", "template": "mlp", "precision": precision,
                      "loss_scaling": {"mode": "auto", "initial_scale": 32768.0},
                      "batch_size": 128, "data": {"cache": True}},
        hardware={"device": "GPU:0 (test)", "tensorflow": "2.20.0"},
        model={"name": "mlp"}, dataset_summary="digits 1797 examples",
        steps_per_epoch=10, total_steps=steps, summary=summary, failure=failure,
        finished=1_700_000_100.0 + id, model_paths=(f"/models/run{id}.keras",),
        steps=step_metrics, epochs=make_epochs(steps, val_acc), scale_changes=())


def pair(base_eps: float = 1000.0, mixed_eps: float = 1800.0):
    base = make_run(1, "float32 baseline", "baseline", "float32", base_eps, 0.95)
    mixed = make_run(2, "mixed_float16 <fast> & co", "mixed", "mixed_float16", mixed_eps,
                     0.951)
    return [base], [mixed]
