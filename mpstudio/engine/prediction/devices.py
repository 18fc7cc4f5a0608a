"""Which device a prediction is for: one named from the GPU table (present or not), or
``this``: the machine's first GPU (found through NVML, without TensorFlow), else its CPU,
measured on the spot."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from mpstudio.engine.i18n import _
from mpstudio.engine.prediction.device_rates import DeviceRates, gpu_names, gpu_rates

if TYPE_CHECKING:
    from mpstudio.engine.hardware.detect_gpu import NvmlScan

THIS = "this"
log = logging.getLogger(__name__)


class UnknownDevice(ValueError):
    """A device the table does not know: the message names the ones it does."""


def known_devices_text() -> str:
    return ", ".join([*gpu_names(), "CPU"])


def gpu_by_name(name: str) -> DeviceRates:
    rates = gpu_rates(name)
    if rates is None:
        raise UnknownDevice(_("no rates for a GPU called {name!r}; known: {known} (or "
                              "'this' for this machine)").format(
            name=name, known=known_devices_text()))
    return rates


def this_machine_gpu(scan: NvmlScan | None = None) -> str | None:
    """The name of this machine's first GPU, or None where NVML finds none."""
    from mpstudio.engine.hardware.detect_gpu import nvml_scan

    found = (scan or nvml_scan()).gpus
    return found[0].name if found else None


def resolve_device(name: str, scan: NvmlScan | None = None) -> DeviceRates:
    """``name`` from the table, ``cpu`` or ``this``: this machine's first GPU, else its
    CPU measured now (a few seconds)."""
    wanted = name.strip()
    if wanted.lower() == THIS:
        gpu = this_machine_gpu(scan)
        if gpu is not None:
            return gpu_by_name(gpu)
        wanted = "cpu"
    if wanted.lower() == "cpu":
        from mpstudio.engine.prediction.cpu_rates import measured_cpu_rates

        return measured_cpu_rates()
    return gpu_by_name(wanted)


def not_measurable_here(name: str, scan: NvmlScan | None = None) -> str | None:
    """Why the device ``name`` cannot be measured on this machine; None where it can:
    ``this``, the CPU, or the GPU this machine has (named as the table names it)."""
    wanted = name.strip()
    if wanted.lower() in (THIS, "cpu"):
        return None
    here = this_machine_gpu(scan)
    if here is not None and _same_gpu(wanted, here):
        return None
    return _("--measure can only time this machine's device ({here}), and {name} is not "
             "here: predict it without --measure, or measure with --device this").format(
                 here=here or "CPU", name=wanted)


def _same_gpu(wanted: str, here: str) -> bool:
    named, found = gpu_rates(wanted), gpu_rates(here)
    if named is not None and found is not None:
        return named.name == found.name
    return wanted.lower() == here.lower()


def compute_on_cpu() -> None:
    """Runs in this process compute on the CPU (``--device cpu --measure`` on a machine
    with a GPU): call before TensorFlow starts its GPUs, which it does at its first op."""
    import tensorflow as tf

    try:
        tf.config.set_visible_devices([], "GPU")
    except RuntimeError:  # already started: the measurement says which device it timed
        log.warning("the GPUs had started: the measurement may not be the CPU's")
