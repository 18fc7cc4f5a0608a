"""One training line of the doctor: a few real steps of a template under a policy,
through the same runner the CLI and the GUI use, judged on what the run really did:
a finite loss, the layer dtypes as built, the loss scale moving under float16, and
the XLA decision as taken."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mpstudio.engine import device_info
from mpstudio.engine.datasets.errors import DataLoadStopped
from mpstudio.engine.doctor.checks import TRAINING, Check, Status, not_run
from mpstudio.engine.doctor.plan import GROWTH_STEPS, DoctorPlan
from mpstudio.engine.events import CollectingReporter, Event, LossScaleChanged, RunStarted
from mpstudio.engine.model_summary import ModelSummary
from mpstudio.engine.spec import Distribution, LossScaling, RunSpec, SpecError, TrainingAids
from mpstudio.engine.templates.model_input import SCALING_LAYER
from mpstudio.engine.trainer import runner
from mpstudio.engine.trainer.xla_decision import xla_request

COMPUTE_DTYPE = {"float32": "float32", "mixed_float16": "float16",
                 "mixed_bfloat16": "bfloat16"}


class DoctorReporter(CollectingReporter):
    """Collects a run's events; stops when the doctor is asked to stop."""

    def __init__(self, should_stop: Callable[[], bool]) -> None:
        super().__init__()
        self._external = should_stop

    def should_stop(self) -> bool:
        return super().should_stop() or self._external()


@dataclass(frozen=True)
class TrainingLine:
    check: Check
    started: RunStarted | None  # the run's own start event (None: it never started)


def training_spec(plan: DoctorPlan, template: str, policy: str,
                  distribution: Distribution | None = None) -> RunSpec:
    """A few steps of synthetic data, one epoch, the loss scale growing every
    ``GROWTH_STEPS`` finite steps so that it visibly moves."""
    return RunSpec(
        dataset="synthetic", template=template, precision=policy,
        loss_scaling=LossScaling(growth_steps=GROWTH_STEPS),
        batch_size=plan.batch_size, steps=plan.steps, epochs=1, validation_split=0.0,
        learning_rate=plan.learning_rate, log_every_steps=1, seed=0, xla="auto",
        distribute=distribution or Distribution(),
        aids=TrainingAids(oom_retry=False),
        dataset_options={"shape": list(plan.shape), "classes": plan.classes,
                         "samples": plan.batch_size * plan.steps},
    )


def line_name(template: str, policy: str) -> str:
    return f"{template} · {policy}"


def run_training_line(spec: RunSpec, should_stop: Callable[[], bool],
                      name: str | None = None, section: str = TRAINING) -> TrainingLine:
    """Train ``spec`` and judge it. Never raises: a spec that cannot run, a setup
    that fails or an unexpected error is a fail line with the reason."""
    name = name or line_name(spec.template, spec.precision)
    reporter = DoctorReporter(should_stop)
    try:
        result = runner.run(spec, reporter, oom_retry=False)
    except SpecError as exc:
        return TrainingLine(Check(section, name, "fail", "the run cannot start: "
                                  + "; ".join(exc.problems)), None)
    except runner.RunSetupError as exc:
        return TrainingLine(Check(section, name, "fail", f"the run could not be set up: {exc}"),
                            None)
    except DataLoadStopped:
        return TrainingLine(not_run(section, name), None)
    except Exception as exc:  # the doctor reports it and goes on with the next line
        return TrainingLine(Check(section, name, "fail", f"the run crashed: "
                                  f"{type(exc).__name__}: {exc} (a bug: attach this report "
                                  "to an issue)"), None)
    started = next(iter(reporter.of_type(RunStarted)), None)
    xla_asked = xla_request(spec, device_info.run_devices(), spec.distribute.strategy)
    check = judge_run(section, name, spec, result, reporter.events, xla_asked)
    return TrainingLine(check, started)


def judge_run(section: str, name: str, spec: RunSpec, result: runner.RunResult,
              events: Sequence[Event], xla_asked: bool) -> Check:
    """The verdict on one finished (or failed) run."""
    s = result.summary
    details = {"status": s.status, "steps": s.steps_done, "final_loss": s.final_loss,
               "xla": s.xla, "device": s.device, "label": s.label,
               "examples_per_sec": s.steady_examples_per_sec,
               "replicas": s.replicas, "strategy": s.strategy}
    if result.failure is not None:
        details["failure_kind"] = result.failure.kind
        return Check(section, name, "fail", f"the run failed at step {result.failure.step}: "
                     f"{result.failure.reason}", details)
    if s.status == "stopped":
        return Check(section, name, "skipped", f"not run (stopped) after {s.steps_done} of "
                     f"{spec.steps} steps", {**details, "stopped": True})
    problems: list[str] = []  # each one fails the line
    warnings: list[str] = []  # each one makes it a warn
    notes: list[str] = []
    if s.final_loss is None or not math.isfinite(s.final_loss):
        problems.append(f"the loss is {s.final_loss} after {s.steps_done} steps, not a finite "
                        "number")
    else:
        notes.append(f"loss {s.final_loss:.3g} after {s.steps_done} steps")
    started = next((e for e in events if isinstance(e, RunStarted)), None)
    if started is not None:
        model_policy = result.model.dtype_policy.name
        bad, fact, counts = dtype_findings(started.model, model_policy, spec.precision)
        problems += bad
        notes.append(fact)
        details["layer_compute_dtypes"] = counts
        details["model_policy"] = model_policy
    if spec.precision == "mixed_float16" and spec.loss_scaling_mode == "dynamic":
        changes = sum(isinstance(e, LossScaleChanged) for e in events)
        moved, text = loss_scale_finding(s.loss_scale_min, s.loss_scale_max, s.overflow_steps,
                                         spec.loss_scaling.initial_scale, s.steps_done,
                                         changes)
        (notes if moved else problems).append(text)
        details.update(loss_scale_min=s.loss_scale_min, loss_scale_max=s.loss_scale_max,
                       overflow_steps=s.overflow_steps, loss_scale_moved=moved)
    if s.replicas > 1:
        notes.append(f"{s.replicas} replicas ({s.distribution})")
    xla_text, xla_warn = xla_finding(s, result.model, xla_asked)
    (warnings if xla_warn else notes).append(xla_text)
    details["xla_note"] = getattr(s, "xla_note", "")
    status: Status = "fail" if problems else "warn" if warnings else "pass"
    return Check(section, name, status, "; ".join(problems + warnings + notes), details)


def dtype_findings(model: ModelSummary, model_policy: str, policy: str,
                   ) -> tuple[list[str], str, dict[str, int]]:
    """Problems with the dtypes the layers were built with, a sentence on what they
    are, and how many layers compute in each dtype. Under a mixed policy every layer
    computes in the half type except the float32 output head; variables stay float32."""
    expected = COMPUTE_DTYPE[policy]
    # The input layer holds the data's dtype (uint8 images, float32 features) and the
    # input scaling computes in float32 by design (templates/model_input): neither is
    # a layer the policy decides.
    layers = tuple(li for li in model.layers
                   if li.kind != "InputLayer" and li.name != SCALING_LAYER)
    counts: dict[str, int] = {}
    for layer in layers:
        counts[layer.compute_dtype] = counts.get(layer.compute_dtype, 0) + 1
    problems = []
    if model_policy != policy:
        problems.append(f"the model was built under {model_policy}, not the run's {policy}")
    body, head = (layers[:-1], layers[-1:]) if policy != "float32" else (layers, ())
    wrong = [li for li in body if li.compute_dtype != expected]
    if wrong:
        listed = ", ".join(f"{li.name} ({li.kind}) in {li.compute_dtype}" for li in wrong[:3])
        more = f" and {len(wrong) - 3} more" if len(wrong) > 3 else ""
        problems.append(f"{len(wrong)} layer(s) do not compute in {expected} under {policy}: "
                        f"{listed}{more}")
    if head and head[0].compute_dtype != "float32":
        problems.append(f"the output layer {head[0].name} computes in {head[0].compute_dtype}: "
                        "end the model with a float32 softmax")
    half_variables = [li.name for li in layers if li.variable_dtype != "float32"]
    if half_variables:
        problems.append(f"variables not float32 in {', '.join(half_variables[:3])}")
    if policy == "float32":
        fact = f"all {len(layers)} layers float32"
    else:
        fact = (f"layers as built: {len(body) - len(wrong)} of {len(body)} in {expected}, "
                f"output head {head[0].compute_dtype if head else '?'}, variables float32")
    return problems, fact, counts


def loss_scale_finding(scale_min: float | None, scale_max: float | None, overflows: int,
                       initial: float, steps: int, changes: int) -> tuple[bool, str]:
    """Whether the dynamic loss scale moved, and how, in words."""
    up = scale_max is not None and scale_max > initial
    down = scale_min is not None and scale_min < initial
    if not (up or down or changes):
        return False, (f"the loss scale stayed at {initial:,.0f} for {steps} steps although it "
                       f"doubles every {GROWTH_STEPS} finite steps: dynamic loss scaling is "
                       "not working (attach this report to a bug report)")
    parts = []
    if down:
        parts.append(f"halved to {scale_min:,.0f} on {overflows} overflow step(s)")
    if up:
        parts.append(f"doubled up to {scale_max:,.0f}")
    return True, f"loss scale moved from {initial:,.0f}: {', then '.join(parts) or 'changed'}"


def xla_finding(summary, model, asked: bool) -> tuple[str, bool]:
    """The XLA decision as taken, in the runner's words, and whether it is worth a
    warning: XLA was asked for and turned off (Keras does that for layers XLA cannot
    compile, such as the cuDNN LSTM on a GPU)."""
    note = summary.xla_note
    taken = bool(summary.xla) and getattr(model, "jit_compile", True) is not False
    if asked and not taken:
        why = note.removeprefix("off: ").removeprefix("Keras turned XLA off: ") or (
            "Keras turned it off (a layer XLA cannot compile, such as a cuDNN LSTM)")
        return f"XLA was asked for and turned off: {why}", True
    if note:  # e.g. "off: xla = auto keeps it off on a CPU"
        said = note if note.startswith(("on", "off")) else f"{'on' if taken else 'off'}: {note}"
        return f"XLA {said}", False
    return f"XLA {'on' if taken else 'off'}", False
