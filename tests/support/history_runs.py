"""A real RunStore filled through its API with crafted runs, as the recorder writes
them (no TensorFlow, no training): single runs, float32-vs-mixed comparisons with
their trials, and ``fill``'s five runs of different datasets, speeds and ends. For the
History tab, the comparison card and their Chinese and layout checks."""

from __future__ import annotations

import numpy as np

from mpstudio.engine.comparison.paired_accuracy import encode_hits
from mpstudio.engine.events import EpochMetrics, RunStarted, RunSummary, StepMetrics
from mpstudio.engine.history.store import RunStore
from mpstudio.engine.model_summary import ModelSummary

CPU = "CPU (x86_64, 2 cores)"
GPU = "GPU:0 NVIDIA H100 80GB HBM3 (compute capability 9.0)"
WARMUP = 5
STEPS_PER_EPOCH = 20
EPOCHS = 3
BATCH = 64
VAL_EXAMPLES = 5000  # enough for "worth it" when the two sides agree


def summary(label: str, precision: str, status: str, eps: float | None, acc: float | None,
            device: str = CPU, peak: int | None = None) -> RunSummary:
    """A full RunSummary as a finished (or stopped/diverged) run reports it."""
    mixed = precision != "float32"
    steps = STEPS_PER_EPOCH * EPOCHS
    step_time = BATCH / eps if eps else None
    return RunSummary(
        label=label, precision=precision, status=status, loop="fit", xla=False,
        batch_size=BATCH, epochs_done=EPOCHS, steps_done=steps, warmup_steps=WARMUP,
        time_to_first_step=2.4 if mixed else 1.9,
        steady_examples_per_sec=eps, steady_step_time=step_time,
        mean_epoch_time=STEPS_PER_EPOCH * step_time + 0.3 if step_time else None,
        total_time=steps * (step_time or 0.05) + 3.0,
        final_loss=0.21 if mixed else 0.2, final_accuracy=0.94,
        final_val_loss=0.25, final_val_accuracy=acc,
        best_val_accuracy=None if acc is None else min(1.0, acc + 0.004),
        overflow_steps=2 if mixed else 0,
        loss_scale_mode="dynamic" if mixed else "off",
        loss_scale_min=16384.0 if mixed else None, loss_scale_max=32768.0 if mixed else None,
        loss_scale_final=32768.0 if mixed else None,
        peak_memory_bytes=peak, memory_note="" if peak else "not reported on CPU",
        device=device, params=118_282, val_examples=VAL_EXAMPLES,
        # the first examples right: two runs' flags nest, as two close models' mostly do
        val_hits="" if acc is None else encode_hits(
            np.arange(VAL_EXAMPLES) < round(acc * VAL_EXAMPLES)),
    )


def add_run(store: RunStore, *, precision: str = "float32", label: str | None = None,
            dataset: str = "digits", template: str = "mlp", status: str = "finished",
            eps: float | None = 1000.0, acc: float | None = 0.95, role: str = "single",
            trial: int = 1, trials: int = 1, comparison: str | None = None,
            device: str = CPU, peak: int | None = None) -> int:
    """A run written the way the recorder writes one: begin, metrics, finish."""
    label = label or precision
    spec = {"dataset": dataset, "template": template, "precision": precision,
            "batch_size": BATCH, "epochs": EPOCHS}
    run_id = store.begin_run(RunStarted(
        label=label, spec=spec,
        hardware={"device": device, "advisor_reason": "this CPU has no fast float16 math"},
        model=ModelSummary(template, precision, 118_282, 118_282, ()),
        dataset=f"{dataset}: 1,437 train / 360 validation examples",
        steps_per_epoch=STEPS_PER_EPOCH, total_steps=STEPS_PER_EPOCH * EPOCHS,
        log_every_steps=1, xla=False, loss_scaling="off", role=role, trial=trial,
        trials=trials, comparison=comparison,
    ))
    if status == "running":
        return run_id
    mixed = precision != "float32"
    offset = 0.01 if mixed else 0.0  # the mixed curve a little above float32's
    steps = [StepMetrics(step=s, epoch=(s - 1) // STEPS_PER_EPOCH + 1,
                         loss=2.3 / s ** 0.5 + offset, accuracy=min(0.99, 0.1 + s / 60),
                         loss_scale=32768.0 if mixed else None, overflow_steps=0,
                         examples_per_sec=None if s <= WARMUP or not eps else eps,
                         step_time=BATCH / (eps or 1000.0), warmup=s <= WARMUP)
             for s in range(1, STEPS_PER_EPOCH * EPOCHS + 1)]
    epochs = [EpochMetrics(epoch=e, steps=e * STEPS_PER_EPOCH, loss=1.0 / e, accuracy=0.9,
                           val_loss=1.1 / e, val_accuracy=acc, epoch_time=1.5,
                           train_time=1.3) for e in range(1, EPOCHS + 1)]
    store.add_metrics(run_id, steps=steps, epochs=epochs)
    if status == "failed":
        store.finish_run(run_id, None, "out of memory at step 12: lower the batch size")
    else:
        store.finish_run(run_id, summary(label, precision, status, eps, acc, device, peak),
                         None)
    return run_id


def add_comparison(store: RunStore, trials: int, *, base_eps: float = 1000.0,
                   mixed_eps: float = 1800.0, base_acc: float = 0.9500,
                   mixed_acc: float = 0.9490, device: str = CPU,
                   peak: tuple[int | None, int | None] = (None, None),
                   dataset: str = "digits") -> tuple[list[int], list[int]]:
    """A float32-vs-mixed comparison as compare() writes it: trials alternating."""
    comparison = f"c{trials}{int(mixed_eps)}" + "0" * 24
    bases, mixeds = [], []
    for trial in range(1, trials + 1):
        tail = f" · trial {trial}/{trials}" if trials > 1 else ""
        bases.append(add_run(
            store, precision="float32", label=f"float32 baseline{tail}", role="baseline",
            trial=trial, trials=trials, comparison=comparison, dataset=dataset,
            eps=base_eps * (1 + 0.01 * trial), acc=base_acc, device=device, peak=peak[0]))
        mixeds.append(add_run(
            store, precision="mixed_float16", label=f"mixed_float16{tail}", role="mixed",
            trial=trial, trials=trials, comparison=comparison, dataset=dataset,
            eps=mixed_eps * (1 + 0.02 * trial), acc=mixed_acc, device=device, peak=peak[1]))
    return bases, mixeds


def fill(store: RunStore) -> dict[str, int]:
    """Five runs of different datasets, speeds and ends."""
    return {
        "slow": add_run(store, eps=900.0, acc=0.9331),
        "mixed": add_run(store, precision="mixed_float16", eps=10_000.0, acc=0.9412,
                         dataset="fashion_mnist", template="cnn_small"),
        "failed": add_run(store, status="failed", dataset="cifar10", template="resnet_small"),
        "stopped": add_run(store, precision="mixed_bfloat16", status="stopped", eps=2500.0),
        "running": add_run(store, status="running", dataset="imdb", template="lstm"),
    }
