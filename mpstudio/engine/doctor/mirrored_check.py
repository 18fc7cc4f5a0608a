"""The doctor's mirrored line: with two or more GPUs, a few MirroredStrategy steps over
the first two, under the GPUs' mixed policy, in this process (its GPUs are set up
already, and a second process would compete with it for their memory).

On a machine without GPUs nothing runs; a test splits the CPU into two devices in a
fresh process and calls ``run_mirrored`` over them, the same code a GPU pair takes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mpstudio.engine.doctor.checks import MIRRORED, Check
from mpstudio.engine.doctor.plan import DoctorPlan, checked_policies
from mpstudio.engine.doctor.training_check import run_training_line, training_spec
from mpstudio.engine.hardware.report import HardwareReport
from mpstudio.engine.spec import Distribution

NAME = "MirroredStrategy step"


def mirrored_check(report: HardwareReport, plan: DoctorPlan,
                   should_stop: Callable[[], bool]) -> Check:
    gpus = report.usable_gpus
    if len(gpus) < 2:
        why = "one GPU" if gpus else "no GPU"
        return Check(MIRRORED, NAME, "skipped", f"{why} here: the mirrored step needs two "
                     "or more GPUs", {"gpus": len(gpus)})
    policy = "mixed_float16" if "mixed_float16" in checked_policies(report) else "float32"
    return run_mirrored(plan, [g.label for g in gpus[:2]], policy, should_stop)


def run_mirrored(plan: DoctorPlan, devices: Sequence[str], policy: str,
                 should_stop: Callable[[], bool]) -> Check:
    """A few steps of the MLP under MirroredStrategy over ``devices``, judged like a
    training line, plus: it really ran on ``len(devices)`` replicas."""
    spec = training_spec(plan, "mlp", policy,
                         Distribution(strategy="mirrored", devices=list(devices)))
    name = f"{NAME} · {policy} over {', '.join(devices)}"
    check = run_training_line(spec, should_stop, name=name, section=MIRRORED).check
    replicas = check.details.get("replicas")
    if check.status in ("pass", "warn") and replicas != len(devices):
        return Check(MIRRORED, name, "fail", f"the step ran on {replicas} replica(s), not "
                     f"{len(devices)}: MirroredStrategy did not use every device; "
                     f"{check.reason}", check.details)
    return check
