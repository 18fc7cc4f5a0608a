"""export_models: every requested format of one trained model, each converted into a
staging folder, verified in its own runtime, then moved into place."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence

import numpy as np
import tensorflow as tf

from mpstudio.engine.export.formats import export_format, unavailable_reason
from mpstudio.engine.export.placement import (
    Staging,
    clear_killed_exports,
    os_error_text,
    scratch_folder,
    tree_size,
)
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
from mpstudio.engine.export.writers import WRITERS, Conversion
from mpstudio.engine.i18n import N_, _

Progress = Callable[[int, int, str], None]
CANCELLED = N_("cancelled; nothing was written")  # shown as _(CANCELLED)


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
            raise ExportCancelled(_(CANCELLED))
        if progress is not None:
            progress(step, total, text)
        step += 1

    clear_killed_exports(request.path.parent for request in requests)
    scratch = scratch_folder()
    try:
        tick(_("loading held-out examples"))
        samples = samples_for(source.spec, source.model)
        reference = predict_keras(source.model, samples.held_out_x)
        conversion = Conversion(source, samples.calibration_x, samples.problem, scratch)
        for done, outcome in enumerate(outcomes, start=1):
            _export_one(outcome, conversion, samples, reference, overwrite, tick)
            step = 1 + 2 * done  # a format that failed early skipped its ticks
    except ExportCancelled:
        for outcome in outcomes:
            if outcome.result is None and not outcome.error:
                outcome.error = _(CANCELLED)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if progress is not None:
        progress(total, total, _("done"))
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
            label = _(fmt.label)
            tick(_("converting to {format}").format(format=label))
            notes = WRITERS[fmt.id](conversion, stage.path)
            tick(_("checking {format} in {runtime}").format(format=label, runtime=fmt.runtime))
            verification = verify(fmt, stage.path, samples, reference)
            if samples.held_out_y is None:
                notes.append(_("checked on random inputs: {reason}").format(
                    reason=samples.problem))
            path = stage.publish()
        outcome.result = ExportResult(fmt, path, tree_size(path),
                                      conversion.source.model.count_params() * 4,
                                      verification, tuple(notes))
    except ExportCancelled:
        raise
    except ExportError as exc:
        outcome.error = str(exc)
    except (tf.errors.ResourceExhaustedError, MemoryError):
        outcome.error = _("ran out of memory converting to {format}: close other programs "
                          "or export on a machine with more memory").format(
                              format=_(fmt.label))
    except OSError as exc:
        outcome.error = os_error_text(exc, request.path.parent)
    except Exception as exc:  # a converter's own error: name it, keep the others going
        outcome.error = _("{format} failed: {error}").format(
            format=_(fmt.label), error=f"{type(exc).__name__}: {str(exc)[:300]}")
