"""One training line of the doctor: a few real steps of a template under a policy,
through the same runner the CLI and the GUI use, judged on what the run really did:
a finite loss, the layer dtypes as built, the loss scale moving under float16, and
the XLA decision as taken."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mpstudio.engine import device_info
from mpstudio.engine.datasets.errors import DataLoadStopped
from mpstudio.engine.doctor.checks import TRAINING, Check, Status, not_run
from mpstudio.engine.doctor.plan import GROWTH_STEPS, DoctorPlan
from mpstudio.engine.events import CollectingReporter, Event, LossScaleChanged, RunStarted
from mpstudio.engine.i18n import N_
from mpstudio.engine.model_summary import ModelSummary
from mpstudio.engine.said import Said, clauses, english, items, said
from mpstudio.engine.spec import Distribution, LossScaling, RunSpec, SpecError, TrainingAids
from mpstudio.engine.templates.model_input import SCALING_LAYER
from mpstudio.engine.trainer import runner
from mpstudio.engine.trainer.xla_decision import xla_request

# The runner's note when ``xla = "auto"`` leaves XLA off (trainer/xla_decision).
_AUTO_OFF = re.compile(r"off: xla = auto keeps it off on a (\S+)")
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
                      name: Said | str | None = None, section: str = TRAINING) -> TrainingLine:
    """Train ``spec`` and judge it. Never raises: a spec that cannot run, a setup
    that fails or an unexpected error is a fail line with the reason."""
    name = name or line_name(spec.template, spec.precision)
    reporter = DoctorReporter(should_stop)
    try:
        result = runner.run(spec, reporter, oom_retry=False)
    except SpecError as exc:
        return TrainingLine(Check(section, name, "fail", said(
            N_("the run cannot start: {problems}"), problems=clauses(*exc.problems))), None)
    except runner.RunSetupError as exc:
        return TrainingLine(Check(section, name, "fail", said(
            N_("the run could not be set up: {error}"), error=str(exc))), None)
    except DataLoadStopped:
        return TrainingLine(not_run(section, name), None)
    except Exception as exc:  # the doctor reports it and goes on with the next line
        return TrainingLine(Check(section, name, "fail", said(
            N_("the run crashed: {kind}: {error} (a bug: attach this report to an issue)"),
            kind=type(exc).__name__, error=str(exc))), None)
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
        return Check(section, name, "fail", said(
            N_("the run failed at step {step}: {reason}"), step=result.failure.step,
            reason=result.failure.reason), details)
    if s.status == "stopped":
        return Check(section, name, "skipped", said(
            N_("not run (stopped) after {done} of {steps} steps"), done=s.steps_done,
            steps=spec.steps), {**details, "stopped": True})
    problems: list[Said] = []  # each one fails the line
    warnings: list[Said] = []  # each one makes it a warn
    notes: list[Said] = []
    if s.final_loss is None or not math.isfinite(s.final_loss):
        problems.append(said(N_("the loss is {loss} after {steps} steps, not a finite number"),
                             loss=str(s.final_loss), steps=s.steps_done))
    else:
        notes.append(said(N_("loss {loss:.3g} after {steps} steps"), loss=s.final_loss,
                          steps=s.steps_done))
    started = next((e for e in events if isinstance(e, RunStarted)), None)
    if started is not None and result.model is not None:  # None: let go of (not here)
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
        notes.append(said(N_("{replicas} replicas ({distribution})"), replicas=s.replicas,
                          distribution=s.distribution))
    xla_text, xla_warn = xla_finding(s, result.model, xla_asked)
    (warnings if xla_warn else notes).append(xla_text)
    details["xla_note"] = english(getattr(s, "xla_note", ""))
    status: Status = "fail" if problems else "warn" if warnings else "pass"
    return Check(section, name, status, clauses(*problems, *warnings, *notes), details)


def dtype_findings(model: ModelSummary, model_policy: str, policy: str,
                   ) -> tuple[list[Said], Said, dict[str, int]]:
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
        problems.append(said(N_("the model was built under {model_policy}, not the run's "
                                "{policy}"), model_policy=model_policy, policy=policy))
    body, head = (layers[:-1], layers[-1:]) if policy != "float32" else (layers, ())
    wrong = [li for li in body if li.compute_dtype != expected]
    if wrong:
        listed = items(said(N_("{layer} ({kind}) in {dtype}"), layer=li.name, kind=li.kind,
                            dtype=li.compute_dtype) for li in wrong[:3])
        more = (said(N_("{listed} and {more} more"), listed=listed, more=len(wrong) - 3)
                if len(wrong) > 3 else listed)
        problems.append(said(N_("{count} layer(s) do not compute in {dtype} under {policy}: "
                                "{listed}"), count=len(wrong), dtype=expected, policy=policy,
                             listed=more))
    if head and head[0].compute_dtype != "float32":
        problems.append(said(N_("the output layer {layer} computes in {dtype}: end the model "
                                "with a float32 softmax"), layer=head[0].name,
                             dtype=head[0].compute_dtype))
    half_variables = [li.name for li in layers if li.variable_dtype != "float32"]
    if half_variables:
        problems.append(said(N_("variables not float32 in {layers}"),
                             layers=items(half_variables[:3])))
    if policy == "float32":
        fact = said(N_("all {count} layers float32"), count=len(layers))
    else:
        fact = said(N_("layers as built: {right} of {count} in {dtype}, output head {head}, "
                       "variables float32"), right=len(body) - len(wrong), count=len(body),
                    dtype=expected, head=head[0].compute_dtype if head else "?")
    return problems, fact, counts


def loss_scale_finding(scale_min: float | None, scale_max: float | None, overflows: int,
                       initial: float, steps: int, changes: int) -> tuple[bool, Said]:
    """Whether the dynamic loss scale moved, and how, in words."""
    up = scale_max is not None and scale_max > initial
    down = scale_min is not None and scale_min < initial
    if not (up or down or changes):
        return False, said(N_("the loss scale stayed at {initial:,.0f} for {steps} steps "
                              "although it doubles every {growth} finite steps: dynamic loss "
                              "scaling is not working (attach this report to a bug report)"),
                           initial=initial, steps=steps, growth=GROWTH_STEPS)
    halved = (said(N_("halved to {scale:,.0f} on {overflows} overflow step(s)"),
                   scale=scale_min, overflows=overflows) if down else None)
    doubled = said(N_("doubled up to {scale:,.0f}"), scale=scale_max) if up else None
    if halved and doubled:
        how = said(N_("{halved}, then {doubled}"), halved=halved, doubled=doubled)
    else:
        how = halved or doubled or said(N_("changed"))
    return True, said(N_("loss scale moved from {initial:,.0f}: {how}"), initial=initial,
                      how=how)


def xla_finding(summary, model, asked: bool) -> tuple[Said, bool]:
    """The XLA decision as taken, in the runner's words, and whether it is worth a
    warning: XLA was asked for and turned off (Keras does that for layers XLA cannot
    compile, such as the cuDNN LSTM on a GPU). The runner's note is quoted as it
    is (in its words, which the runner translates if it does)."""
    note = summary.xla_note
    text = english(note)  # what the decisions below read
    taken = bool(summary.xla) and getattr(model, "jit_compile", True) is not False
    if asked and not taken:
        if text.startswith("off: ") or text.startswith("Keras turned XLA off: ") or not text:
            why = text.removeprefix("off: ").removeprefix("Keras turned XLA off: ")
            note = why or said(N_("Keras turned it off (a layer XLA cannot compile, such as "
                                  "a cuDNN LSTM)"))
        return said(N_("XLA was asked for and turned off: {why}"), why=note), True
    if text:  # e.g. "off: xla = auto keeps it off on a CPU"
        auto_off = _AUTO_OFF.fullmatch(text)
        if auto_off:  # the runner's usual note, in words that translate
            return said(N_("XLA off: xla = auto keeps it off on a {device}"),
                        device=auto_off.group(1)), False
        if text.startswith(("on", "off")):
            return said(N_("XLA {note}"), note=note), False
        state = N_("XLA on: {note}") if taken else N_("XLA off: {note}")
        return said(state, note=note), False
    return said(N_("XLA on") if taken else N_("XLA off")), False
