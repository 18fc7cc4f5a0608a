"""What differs between the two sides of a comparison besides the precision.

A comparison's own runs differ only in the precision and its loss scaling; two
runs picked from the history can differ in anything (a cnn against an mlp, batch
64 against 128). A speedup or an accuracy change between those measures the
difference, not mixed precision, so the card says what differs and withholds
"worth it" and "accuracy loss".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mpstudio.engine.hardware.device_text import device_text
from mpstudio.engine.i18n import _
from mpstudio.engine.said import render

# What a comparison changes on purpose, and settings that change neither the model,
# the data nor the math (how often the charts sample, where TensorBoard logs go).
BY_DESIGN = frozenset({"precision", "loss_scaling", "log_every_steps", "aids.tensorboard",
                       "sized_from"})  # what the user had set, where mpstudio sized the run
# What decides which examples are the validation and test examples: when these agree,
# example i is the same example on both sides (the split is drawn from the seed).
EXAMPLE_KEYS = ("dataset", "dataset_options", "validation_split", "seed")
# Hardware facts that are not hardware: the advisor's word on each side's own
# precision, and what float32 computed in (the card names the baseline's math).
ADVISOR_KEYS = frozenset({"advisor_verdict", "advisor_reason", "advisor_device"})
# graph_rewrites: float16 on a CPU trains with the remapping pass off, by design (its own
# card row says so: card_text.py)
HARDWARE_BY_DESIGN = ADVISOR_KEYS | {"float32_math", "graph_rewrites"}
MAX_VALUE_TEXT = 40
# A comparison at each side's largest batch changes these on purpose (card.scaled_batches)
BATCH_KEYS = frozenset({"batch_size", "learning_rate"})


def _flat(spec: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in spec.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and key != "dataset_options":
            out.update(_flat(value, f"{name}."))
        else:
            out[name] = value
    return out


def _text(value: Any) -> str:
    text = _("unset") if value is None else render(value)
    return text if len(text) <= MAX_VALUE_TEXT else text[:MAX_VALUE_TEXT - 1] + "…"


def spec_differences(baseline: Mapping[str, Any], mixed: Mapping[str, Any],
                     also_by_design: frozenset[str] = frozenset()) -> list[str]:
    """"template cnn vs mlp" for each setting that differs, precision and its loss
    scaling left out. A key only one spec has (an older release's) counts only when
    its value is not the other's default, which this module cannot know: it is
    reported, as a difference a user can judge. ``also_by_design``: more keys this
    comparison changed on purpose."""
    a, b = _flat(baseline), _flat(mixed)
    out = []
    for key in sorted(a.keys() | b.keys()):
        if key in BY_DESIGN or key.split(".")[0] in BY_DESIGN or key in also_by_design:
            continue
        if a.get(key) != b.get(key):
            out.append(_("{key} {baseline} vs {mixed}").format(
                key=key, baseline=_text(a.get(key)), mixed=_text(b.get(key))))
    return out


def same_examples(baseline: Mapping[str, Any], mixed: Mapping[str, Any]) -> bool:
    """Whether both sides validated (and tested) on the same examples, in order."""
    return all(baseline.get(k) == mixed.get(k) for k in EXAMPLE_KEYS)


def hardware_differences(baseline: Mapping[str, str], mixed: Mapping[str, str]) -> list[str]:
    """"device CPU vs GPU:0 (NVIDIA A100)", "tensorflow 2.20.0 vs 2.21.0", ... (the
    values compared as recorded, shown in the language in force)."""
    out = []
    for key in sorted(baseline.keys() | mixed.keys()):
        if key in HARDWARE_BY_DESIGN:
            continue
        a, b = baseline.get(key), mixed.get(key)
        if key == "machine" and None in (a, b):
            continue  # a run recorded before runs named their machine: not a difference
        if a != b:
            if key == "device":
                a, b = (device_text(v) if isinstance(v, str) else v for v in (a, b))
            out.append(_("{key} {baseline} vs {mixed}").format(
                key=key, baseline=_text(a), mixed=_text(b)))
    return out


def differences_sentence(spec: list[str], hardware: list[str]) -> str:
    """One sentence for above the verdict; "" when the sides differ only by design."""
    settings = _("settings differ ({differences})").format(differences="; ".join(spec))
    machine = _("hardware or software differs ({differences})").format(
        differences="; ".join(hardware))
    if spec and hardware:
        what = _("{settings} and {machine}").format(settings=settings, machine=machine)
    elif spec or hardware:
        what = settings if spec else machine
    else:
        return ""
    return _("These runs differ in more than the precision: {what}. The figures below "
             "compare those differences too, so no verdict is given; run `compare` (or "
             "Compare with float32) for a fair one.").format(what=what)
