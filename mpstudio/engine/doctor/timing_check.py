"""The doctor's timing line: a short synthetic float32-vs-mixed comparison (the
comparison the CLI and the GUI run: same seed and weights, trials alternating),
judged by what the device is expected to do."""

from __future__ import annotations

import statistics
from collections.abc import Callable

from mpstudio.engine.datasets.errors import DataLoadStopped
from mpstudio.engine.doctor.checks import TIMING, Check, Status, not_run
from mpstudio.engine.doctor.plan import DoctorPlan
from mpstudio.engine.doctor.training_check import DoctorReporter
from mpstudio.engine.i18n import N_
from mpstudio.engine.said import Said, said
from mpstudio.engine.spec import Distribution, RunSpec, SpecError, TrainingAids
from mpstudio.engine.trainer.compare import ComparisonResult, compare
from mpstudio.engine.trainer.runner import RunSetupError

FASTER = 1.15  # the advisor's band: above this mixed precision is clearly faster


def timing_spec(plan: DoctorPlan, policy: str,
                distribution: Distribution | None = None) -> RunSpec:
    return RunSpec(
        dataset="synthetic", template=plan.timing_template, precision=policy,
        batch_size=plan.timing_batch_size, steps=plan.timing_steps, epochs=1,
        validation_split=0.0, learning_rate=plan.learning_rate, seed=0, xla="auto",
        log_every_steps=max(1, plan.timing_steps // 6),
        distribute=distribution or Distribution(), aids=TrainingAids(oom_retry=False),
        dataset_options={"shape": list(plan.timing_shape), "classes": plan.classes,
                         "samples": plan.timing_batch_size * plan.timing_steps},
    )


def timing_name(plan: DoctorPlan, policy: str) -> Said:
    return said(N_("{template} float32 vs {policy}"), template=plan.timing_template,
                policy=policy)


def run_timing(plan: DoctorPlan, policy: str, device: str, fast_half: bool,
               should_stop: Callable[[], bool],
               distribution: Distribution | None = None) -> Check:
    """Time float32 against ``policy`` on ``device`` ("GPU", "TPU", "CPU"); ``fast_half``:
    the device has units that make ``policy`` faster (Tensor Cores, a TPU)."""
    name = timing_name(plan, policy)
    reporter = DoctorReporter(should_stop)
    try:
        result = compare(timing_spec(plan, policy, distribution), reporter,
                         repeats=plan.timing_repeats)
    except DataLoadStopped:
        return not_run(TIMING, name)
    except (SpecError, RunSetupError) as exc:
        return Check(TIMING, name, "fail", said(N_("the timing could not start: {error}"),
                                                error=str(exc)))
    except Exception as exc:  # reported, and the doctor goes on
        return Check(TIMING, name, "fail", said(N_("the timing crashed: {kind}: {error}"),
                                                kind=type(exc).__name__, error=str(exc)))
    return judge_timing(name, result, policy, device, fast_half)


def _median(values: list[float | None]) -> float | None:
    seen = [v for v in values if v]
    return statistics.median(seen) if seen else None


def judge_timing(name: str, result: ComparisonResult, policy: str, device: str,
                 fast_half: bool) -> Check:
    runs = result.results
    failed = next(((r.summary, r.failure) for r in runs if r.failure is not None), None)
    if failed is not None:
        summary, failure = failed
        return Check(TIMING, name, "fail", said(N_("the {label} run failed: {reason}"),
                                                label=summary.label, reason=failure.reason))
    if any(r.summary.status == "stopped" for r in runs) or not result.mixeds:
        return not_run(TIMING, name)
    base = _median([r.summary.steady_examples_per_sec for r in result.baselines])
    mixed = _median([r.summary.steady_examples_per_sec for r in result.mixeds])
    ratio = result.speedup
    base_label = result.baseline.summary.label.split(" · ")[0].removesuffix(" baseline")
    details = {"baseline": base_label, "policy": policy, "ratio": ratio,
               "baseline_examples_per_sec": base, "mixed_examples_per_sec": mixed,
               "trials": len(result.mixeds), "device": result.baseline.summary.device}
    if ratio is None or base is None or mixed is None:
        return Check(TIMING, name, "warn", said(N_(
            "too few steps after the warm-up to time: run the full check (without --quick)")),
            details)
    speeds = said(N_("{policy} ran at {ratio:.2f}x {baseline} ({mixed:,.0f} vs {base:,.0f} "
                     "examples/s)"), policy=policy, ratio=ratio, baseline=base_label,
                  mixed=mixed, base=base)

    def judged(status: Status, why: str, **args: object) -> Check:
        return Check(TIMING, name, status, said(N_("{speeds}: {why}"), speeds=speeds,
                                                why=said(why, **args)), details)

    if device == "CPU":
        return judged("pass", N_("CPUs without native half-precision math run mixed "
                                 "precision slower; expected") if ratio < 1
                      else N_("mixed precision is not slower on this CPU"))
    if ratio >= FASTER:
        return judged("pass", N_("mixed precision pays off here"))
    if ratio >= 1 or not fast_half:
        return judged("pass", N_("little gain on this small synthetic model; bigger models "
                                 "and batches gain more (mpstudio compare with your own "
                                 "model tells)"))
    if device == "GPU":
        return judged("warn", N_("slower despite Tensor Cores, most likely because the "
                                 "model is too small to fill the GPU (the time goes to "
                                 "launching kernels and casts, not to math); time your own "
                                 "model with mpstudio compare before you conclude"))
    return judged("warn", N_("slower despite the TPU's matrix units, most likely because "
                             "the model is too small to fill the {device} (the time goes to "
                             "launching kernels and casts, not to math); time your own "
                             "model with mpstudio compare before you conclude"),
                  device=device)
