"""Which device a prediction is for: one named from the GPU table (present or not), or
``this``: the machine's first GPU (found through NVML, without TensorFlow), else its CPU,
measured on the spot."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpstudio.engine.i18n import _
from mpstudio.engine.prediction.device_rates import DeviceRates, gpu_names, gpu_rates

if TYPE_CHECKING:
    from mpstudio.engine.hardware.detect_gpu import NvmlScan

THIS = "this"


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
