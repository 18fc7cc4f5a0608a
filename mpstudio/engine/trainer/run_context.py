"""What a run records about its circumstances, beside its metrics: the hardware
snapshot, with the advisor's word on its precision and what float32 really
computed in (how fast its input pipeline delivers is aids/input_wait.py)."""

from __future__ import annotations

from mpstudio.engine import device_info
from mpstudio.engine.i18n import N_
from mpstudio.engine.said import said


def hardware_snapshot(precision: str, devices: device_info.RunDevices) -> dict[str, str]:
    """device_info's summary of the run's devices (with what float32 computed in) plus
    the advisor's verdict and reason for ``precision`` (cheap: detection only). The
    reason and the advisor's device are sentences (``Said``): the history keeps their
    messages and shows them in its reader's language."""
    info = device_info.hardware_summary(devices)
    from mpstudio.engine.trainer.cpu_float16_fusion import REMAPPING_OFF, fusion_hurts

    if fusion_hurts(precision, devices.kind):  # what a plain script would not do: said
        info["graph_rewrites"] = REMAPPING_OFF
    try:
        from mpstudio.engine.hardware.advisor import advise
        from mpstudio.engine.hardware.detect import detect_hardware

        advice = advise(detect_hardware())
        verdict = advice.device(advice.run_device).verdict(precision)
    except Exception as exc:  # the snapshot is a nicety: never fail a run for it
        info["advisor_reason"] = said(N_("(hardware check failed: {error})"),
                                      error=type(exc).__name__)
        return info
    info["advisor_device"] = advice.run_description
    info["advisor_verdict"] = verdict.verdict.value
    info["advisor_reason"] = verdict.reason
    return info
