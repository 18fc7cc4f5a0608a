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
from mpstudio.engine.i18n import N_
from mpstudio.engine.said import clauses, items, said
from mpstudio.engine.spec import Distribution

NAME = said(N_("MirroredStrategy step"))


def mirrored_check(report: HardwareReport, plan: DoctorPlan,
                   should_stop: Callable[[], bool]) -> Check:
    gpus = report.usable_gpus
    if len(gpus) < 2:
        why = (N_("one GPU here: the mirrored step needs two or more GPUs") if gpus
               else N_("no GPU here: the mirrored step needs two or more GPUs"))
        return Check(MIRRORED, NAME, "skipped", said(why), {"gpus": len(gpus)})
    policy = "mixed_float16" if "mixed_float16" in checked_policies(report) else "float32"
    return run_mirrored(plan, [g.label for g in gpus[:2]], policy, should_stop)


def run_mirrored(plan: DoctorPlan, devices: Sequence[str], policy: str,
                 should_stop: Callable[[], bool]) -> Check:
    """A few steps of the MLP under MirroredStrategy over ``devices``, judged like a
    training line, plus: it really ran on ``len(devices)`` replicas."""
    spec = training_spec(plan, "mlp", policy,
                         Distribution(strategy="mirrored", devices=list(devices)))
    name = said(N_("MirroredStrategy step · {policy} over {devices}"), policy=policy,
                devices=items(devices))
    check = run_training_line(spec, should_stop, name=name, section=MIRRORED).check
    replicas = check.details.get("replicas")
    if check.status in ("pass", "warn") and replicas != len(devices):
        return Check(MIRRORED, name, "fail", clauses(said(N_(
            "the step ran on {replicas} replica(s), not {devices}: MirroredStrategy did not "
            "use every device"), replicas=replicas, devices=len(devices)), check.reason),
            check.details)
    return check
