"""export_models: every requested format of one trained model, each converted into a
staging folder, verified in its own runtime, then moved into place."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence

import numpy as np
import tensorflow as tf

from mpstudio.engine.export.formats import export_format, unavailable_reason
from mpstudio.engine.export.placement import Staging, os_error_text, tree_size
from mpstudio.engine.export.results import (
    ExportCancelled,
    ExportError,
    ExportOutcome,
    ExportRequest,
    ExportResult,
)
from mpstudio.engine.export.samples import ExportSamples, samples_for
from mpstudio.engine.export.source import ExportSource
from mpstudio.engine.export.verify import predict_keras, verify
from mpstudio.engine.export.writers import WRITERS, Conversion, scratch_folder

Progress = Callable[[int, int, str], None]
CANCELLED = "cancelled; nothing was written"


def export_models(
    source: ExportSource,
    requests: Sequence[ExportRequest],
    *,
    overwrite: bool = False,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> list[ExportOutcome]:
    """One outcome per request, in order. A format that fails does not stop the others;
    a stop request ends the export after the current step."""
    outcomes = [ExportOutcome(request) for request in requests]
    total = 1 + 2 * len(requests)
    step = 0

    def tick(text: str) -> None:
        nonlocal step
        if should_stop is not None and should_stop():
            raise ExportCancelled(CANCELLED)
        if progress is not None:
            progress(step, total, text)
        step += 1

    scratch = scratch_folder()
    try:
        tick("loading held-out examples")
        samples = samples_for(source.spec, source.model)
        reference = predict_keras(source.model, samples.held_out_x)
        conversion = Conversion(source, samples.calibration_x, samples.problem, scratch)
        for done, outcome in enumerate(outcomes, start=1):
            _export_one(outcome, conversion, samples, reference, overwrite, tick)
            step = 1 + 2 * done  # a format that failed early skipped its ticks
    except ExportCancelled:
        for outcome in outcomes:
            if outcome.result is None and not outcome.error:
                outcome.error = CANCELLED
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if progress is not None:
        progress(total, total, "done")
    return outcomes


def _export_one(outcome: ExportOutcome, conversion: Conversion, samples: ExportSamples,
                reference: np.ndarray, overwrite: bool, tick: Callable[[str], None]) -> None:
    request = outcome.request
    try:
        fmt = export_format(request.format_id)
    except ValueError as exc:
        outcome.error = str(exc)
        return
    missing = unavailable_reason(fmt)
    if missing:
        outcome.error = missing
        return
    try:
        with Staging(request.path, fmt.is_folder, overwrite) as stage:
            tick(f"converting to {fmt.label}")
            notes = WRITERS[fmt.id](conversion, stage.path)
            tick(f"checking {fmt.label} in {fmt.runtime}")
            verification = verify(fmt, stage.path, samples, reference)
            if samples.held_out_y is None:
                notes.append(f"checked on random inputs: {samples.problem}")
            path = stage.publish()
        outcome.result = ExportResult(fmt, path, tree_size(path),
                                      conversion.source.model.count_params() * 4,
                                      verification, tuple(notes))
    except ExportCancelled:
        raise
    except ExportError as exc:
        outcome.error = str(exc)
    except (tf.errors.ResourceExhaustedError, MemoryError):
        outcome.error = (f"ran out of memory converting to {fmt.label}: close other programs "
                         "or export on a machine with more memory")
    except OSError as exc:
        outcome.error = os_error_text(exc, request.path.parent)
    except Exception as exc:  # a converter's own error: name it, keep the others going
        outcome.error = f"{fmt.label} failed: {type(exc).__name__}: {str(exc)[:300]}"
