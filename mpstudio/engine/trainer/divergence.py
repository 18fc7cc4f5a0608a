"""A diverged run in words: the monitor's reason, and what the numerics diagnosis found.

Weights that turned non-finite behind a finite loss are named at once (the weights
check found the layer); a non-finite loss is traced to its first bad layer only when
the spec asks (``aids.diagnose_numerics``: it re-runs training steps).
"""

from __future__ import annotations

import keras

from mpstudio.engine.datasets.bundle import DataBundle
from mpstudio.engine.events import NumericsDiagnosis, Reporter, RunWarning
from mpstudio.engine.i18n import N_, _
from mpstudio.engine.said import Said, said
from mpstudio.engine.spec import RunSpec
from mpstudio.engine.trainer.monitor import Divergence, describe_layer
from mpstudio.engine.trainer.numerics import diagnose


def explain_divergence(divergence: Divergence, spec: RunSpec, model: keras.Model,
                       bundle: DataBundle, reporter: Reporter,
                       ) -> tuple[Said, NumericsDiagnosis | None]:
    """The failure's reason and the diagnosis (emitted), if one was made."""
    if divergence.weight is not None:  # the weights check named the layer
        found = weights_diagnosis(divergence)
        reporter.emit(found)
        return divergence.reason, found
    if not spec.aids.diagnose_numerics:
        return divergence.reason, None
    diagnosis = diagnose_divergence(model, bundle, divergence, reporter)
    if diagnosis is None:
        return divergence.reason, None
    return said(N_("{reason} Diagnosis: {diagnosis}."), reason=divergence.reason,
                diagnosis=diagnosis.message), diagnosis


def diagnose_divergence(model: keras.Model, bundle: DataBundle, divergence: Divergence,
                        reporter: Reporter) -> NumericsDiagnosis | None:
    try:
        found = diagnose(model, iter(bundle.train), keras.losses.SparseCategoricalCrossentropy(),
                         divergence.loss_scale, divergence.step)
    except Exception as exc:  # a diagnosis must never hide the failure it explains
        reporter.emit(RunWarning(_("the numerics diagnosis failed: {error}").format(
            error=f"{type(exc).__name__}: {exc}")))
        return None
    reporter.emit(found)
    return found


def weights_diagnosis(divergence: Divergence) -> NumericsDiagnosis:
    """The diagnosis of a run whose weights turned non-finite behind a finite loss: the
    weights check already named the layer (no step is re-run)."""
    found = divergence.weight
    assert found is not None
    return NumericsDiagnosis(
        divergence.step, found.layer, found.dtype, "weights", said(N_(
            "{layer} has non-finite weights ({weight}) behind a finite loss: a fused kernel "
            "(such as MatMul+BiasAdd+ReLU) can turn a NaN output into 0, so only the "
            "weights show it"), layer=describe_layer(found), weight=found.weight))
