""""Keep this layer in float32 and run again": which layers to pin after a diverged run,
and what pinning cost.

A diagnosis that finds a float16 layer producing inf/NaN from finite inputs (stage
"forward") is fixed by computing that layer in float32. The next run pins it; if the
overflow then moves on to its neighbour (the value it made is now fine in float32 but
still too large for the float16 layer after it), that run's diagnosis names the
neighbour and the suggestion grows by one. A diagnosis at the gradient or the weights
is the loss scale's doing, not a layer's range: pinning would not help, so nothing is
offered. No TensorFlow here: the window asks this too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mpstudio.engine.event_text import fmt_rate
from mpstudio.engine.events import NumericsDiagnosis
from mpstudio.engine.i18n import _

OVERFLOWING_DTYPES = ("float16",)  # bfloat16 has float32's range: it does not overflow


def layers_to_pin(pinned: Sequence[str], diagnosis: NumericsDiagnosis | None) -> list[str] | None:
    """The float32 layers of the next run: ``pinned`` plus the layer the diagnosis names;
    None when pinning would not help (no layer, not a forward overflow, not float16)."""
    if (diagnosis is None or diagnosis.stage != "forward" or not diagnosis.layer
            or diagnosis.dtype not in OVERFLOWING_DTYPES or diagnosis.layer in pinned):
        return None
    return [*pinned, diagnosis.layer]


def pin_offer_text(layer: str) -> str:
    return _("Keep {layer} in float32 and run again").format(layer=layer)


def same_but(spec: dict[str, Any], other: dict[str, Any], *keys: str) -> bool:
    """Two stored specs alike in every setting but ``keys`` (an older record lacks
    float32_layers: none were pinned)."""
    def rest(d: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in d.items() if k not in keys and k != "float32_layers"}
    return rest(spec) == rest(other)


def pin_cost_text(pinned_rate: float | None, layers: Sequence[str],
                  all_mixed: tuple[int, float | None] | None,
                  float32: tuple[int, float | None] | None) -> str:
    """One line: the pinned run's steady rate against the all-mixed run's (which diverged
    but timed its steps) and a float32 run's, each ``(run id, examples/s)`` or None when
    the history has no such run."""
    parts = [_("{layers} kept in float32: {rate}").format(
        layers=", ".join(layers), rate=fmt_rate(pinned_rate))]
    for found, name in ((all_mixed, _("the all-mixed run")), (float32, _("float32"))):
        if found is None:
            parts.append(_("no {name} run with these settings to compare").format(name=name))
        elif not found[1] or not pinned_rate:
            parts.append(_("{name} (#{id}) has no steady rate (too few steps)").format(
                name=name, id=found[0]))
        else:
            parts.append(_("{ratio:.2f}x {name}'s {rate} (#{id})").format(
                ratio=pinned_rate / found[1], name=name, rate=fmt_rate(found[1]),
                id=found[0]))
    return "; ".join(parts)


def pin_cost_from_history(store: Any, run: Any) -> str | None:
    """The cost line for the stored run ``run`` (a StoredRun with pinned layers), against
    the newest runs in ``store`` (a RunStore) with the same settings: the same precision
    without pins, and float32. None when ``run`` pinned nothing."""
    layers = run.spec.get("float32_layers") or []
    if not layers or run.spec.get("precision") == "float32":
        return None
    all_mixed = baseline = None
    for row in store.runs(dataset=run.row.dataset, template=run.row.template, limit=200):
        if row.id == run.id or (all_mixed and baseline):
            continue
        other = store.run(row.id, metrics=False)
        rate = other.summary.steady_examples_per_sec if other.summary else None
        if (all_mixed is None and not other.spec.get("float32_layers")
                and other.spec.get("precision") == run.spec.get("precision")
                and same_but(run.spec, other.spec)):
            all_mixed = (row.id, rate)
        elif (baseline is None and row.precision == "float32" and row.status == "finished"
              and same_but(run.spec, other.spec, "precision", "loss_scaling")):
            baseline = (row.id, rate)
    rate = run.summary.steady_examples_per_sec if run.summary else None
    return pin_cost_text(rate, layers, all_mixed, baseline)
