"""``run_doctor``: the whole check of the training chain on this machine, in order:
the build against the driver and each GPU, the GPU memory settings, a few real
training steps per template and policy, a float32-vs-mixed timing, TF32, and a
mirrored step with two GPUs. One call for the CLI, the GUI's engine thread and CI.

A stop (``should_stop``) ends it between checks (a training line in progress stops
after its current batch) and marks the rest "not run (stopped)".
"""

from __future__ import annotations

import platform
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from mpstudio import __version__
from mpstudio.engine.doctor import platform_checks as pc
from mpstudio.engine.doctor.checks import (
    MIRRORED,
    TIMING,
    TRAINING,
    Check,
    DoctorReport,
    not_run,
)
from mpstudio.engine.doctor.mirrored_check import NAME as MIRRORED_NAME
from mpstudio.engine.doctor.mirrored_check import mirrored_check
from mpstudio.engine.doctor.plan import (
    DoctorPlan,
    make_plan,
    natural_mixed,
    policy_choices,
    training_device,
)
from mpstudio.engine.doctor.privacy import identity, make_scrubber, scrubbed, scrubbed_text
from mpstudio.engine.doctor.timing_check import run_timing, timing_name
from mpstudio.engine.doctor.training_check import run_training_line, training_spec
from mpstudio.engine.hardware.check import run_hardware_check
from mpstudio.engine.hardware.detect import HardwareSources
from mpstudio.engine.hardware.gpu_memory import GpuConfig
from mpstudio.engine.hardware.report import HardwareReport
from mpstudio.engine.i18n import N_, _
from mpstudio.engine.said import render, said
from mpstudio.engine.spec import Distribution

Progress = Callable[[int, int, str], None]


@dataclass
class _Step:
    section: str
    name: str  # a Said where it reads differently in another language
    run: Callable[[], Check]


def run_doctor(
    quick: bool = False,
    templates: tuple[str, ...] | None = None,
    *,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    on_check: Callable[[Check], None] | None = None,
    plan: DoctorPlan | None = None,
    sources: HardwareSources | None = None,
    gpu_config: GpuConfig | None = None,
) -> DoctorReport:
    """Blocks for seconds (quick, on a CPU) to minutes: call it off the GUI thread.
    ``progress(done, total, text)`` before each check; ``on_check(check)`` after each.
    ``plan``: what to train (default: the quick or full set for this device)."""
    started = time.perf_counter()
    report_progress = progress or (lambda done, total, text: None)
    report_progress(0, 1, _("detecting the hardware"))
    hardware = run_hardware_check(sources=sources, gpu_config=gpu_config)
    report = hardware.report
    device = training_device(report)
    plan = plan or make_plan(quick, device != "CPU", templates)
    scrub = make_scrubber(*identity())
    seen: dict[str, Any] = {}  # what later checks read from earlier ones
    steps = _steps(report, plan, hardware.memory, should_stop, seen)
    checks: list[Check] = []
    stopped = False
    for index, step in enumerate(steps):
        if not stopped and should_stop():
            stopped = True
        if stopped:
            check = not_run(step.section, step.name)
        else:
            report_progress(index, len(steps), _("{section}: {name}").format(
                section=_(step.section), name=render(step.name)))
            began = time.perf_counter()
            check = step.run()
            check = replace(check, seconds=time.perf_counter() - began)
        check = replace(check, reason=scrubbed_text(check.reason, scrub),
                        name=scrubbed_text(check.name, scrub),
                        details=scrubbed(check.details, scrub))
        checks.append(check)
        if on_check is not None:
            on_check(check)
    stopped = stopped or should_stop()
    report_progress(len(steps), len(steps), _("stopped") if stopped else _("done"))
    return DoctorReport(
        checks=tuple(checks),
        versions=scrubbed(versions(report), scrub),
        devices=tuple(scrubbed(devices(report), scrub)),
        plan={**plan.to_dict(), "device": device},
        seconds=time.perf_counter() - started,
        stopped=stopped,
    )


def _steps(report: HardwareReport, plan: DoctorPlan, memory, should_stop: Callable[[], bool],
           seen: dict[str, Any]) -> list[_Step]:
    def ready(check: Check) -> Callable[[], Check]:
        return lambda: check

    steps = [_Step(c.section, c.name, ready(c)) for c in pc.build_checks(report)]
    memory_line = pc.memory_check(memory)
    steps.append(_Step(memory_line.section, memory_line.name, ready(memory_line)))
    choices = policy_choices(report)
    for choice in choices:
        if not choice.checked:
            line = Check(TRAINING, choice.policy, "skipped",
                         said(N_("not checked: {reason}"), reason=choice.reason))
            steps.append(_Step(TRAINING, line.name, ready(line)))
    policies = [c.policy for c in choices if c.checked]
    device = training_device(report)
    distribution = Distribution(strategy="tpu") if device == "TPU" else None
    for template in plan.templates:
        for policy in policies:
            steps.append(_Step(TRAINING, f"{template} · {policy}",
                               _training(plan, template, policy, distribution, should_stop,
                                         seen)))
    steps.append(_timing_step(report, plan, device, distribution, should_stop))
    steps.append(_Step("TF32", "TF32",
                       lambda: pc.tf32_check(report, seen.get("float32_math"))))
    steps.append(_Step(MIRRORED, MIRRORED_NAME,
                       lambda: mirrored_check(report, plan, should_stop)))
    return steps


def _training(plan: DoctorPlan, template: str, policy: str,
              distribution: Distribution | None, should_stop: Callable[[], bool],
              seen: dict[str, Any]) -> Callable[[], Check]:
    def run() -> Check:
        line = run_training_line(training_spec(plan, template, policy, distribution),
                                 should_stop)
        if policy == "float32" and line.started is not None:
            seen.setdefault("float32_math", line.started.hardware.get("float32_math"))
        return line.check

    return run


def _timing_step(report: HardwareReport, plan: DoctorPlan, device: str,
                 distribution: Distribution | None, should_stop: Callable[[], bool]) -> _Step:
    policy = natural_mixed(report)
    if policy is None:
        line = Check(TIMING, said(N_("float32 vs mixed")), "skipped",
                     said(N_("not timed: no mixed policy is checked on this device (see the "
                             "training lines)")))
        return _Step(TIMING, line.name, lambda: line)
    fast_half = device == "TPU" or bool(
        report.usable_gpus and report.usable_gpus[0].arch.float16_tensor_cores)

    def run() -> Check:
        return run_timing(plan, policy, device, fast_half, should_stop, distribution)

    return _Step(TIMING, timing_name(plan, policy), run)


def versions(report: HardwareReport) -> dict[str, str]:
    """What a bug report needs to reproduce: the software, the OS (not the host)."""
    import numpy

    b = report.build
    out = {"mpstudio": __version__, "TensorFlow": b.tensorflow, "Keras": b.keras,
           "Python": platform.python_version(), "NumPy": numpy.__version__,
           "OS": f"{platform.system()} {platform.release()} ({platform.machine()})"}
    if b.cuda_build:
        out["CUDA (build)"] = b.cuda_version or "?"
        out["cuDNN (build)"] = b.cudnn_version or "?"
    drivers = sorted({g.driver_version for g in report.gpus if g.driver_version})
    if drivers:
        out["NVIDIA driver"] = ", ".join(drivers)
    return out


def devices(report: HardwareReport) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for gpu in report.gpus:
        out.append({"device": gpu.label, "name": gpu.name,
                    "compute_capability": gpu.capability_text,
                    "architecture": gpu.arch.family,
                    "memory_gib": round(gpu.memory_total / 2**30, 1)
                    if gpu.memory_total else None,
                    "used_by_tensorflow": gpu.visible_to_tensorflow})
    if report.tpu.found:
        out.append({"device": "TPU", "name": report.tpu.accelerator_type or "TPU",
                    "cores": report.tpu.cores})
    cpu = report.cpu
    out.append({"device": "CPU", "name": cpu.model, "architecture": cpu.architecture,
                "logical_cores": cpu.logical_cores,
                "memory_gib": round(cpu.memory_total / 2**30, 1) if cpu.memory_total else None})
    return out
