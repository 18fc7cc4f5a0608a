"""TPU detection that cannot hang, and that runs TensorFlow only where a TPU is likely.

``TPUClusterResolver`` with a TPU name but no project/zone asks the GCE metadata
server with no timeout. So: probe only where a TPU is plausible (TPU environment
variables, a TPU device node, or a TPU chip on the PCI bus), in a child process that
is killed after ``timeout`` seconds, and only once per process for the same hints.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from glob import glob
from pathlib import Path

from mpstudio.engine.hardware.report import TpuInfo
from mpstudio.engine.i18n import N_
from mpstudio.engine.said import said

TPU_ENV_VARS = ("TPU_NAME", "COLAB_TPU_ADDR", "TPU_ACCELERATOR_TYPE", "TPU_WORKER_HOSTNAMES",
                "KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS", "TPU_IP_ADDRESS")
# TPU VMs expose v2-v4 chips as /dev/accel*; newer ones are PCI devices of Google's
# vendor id under VFIO (a bare /dev/vfio is common on GPU-passthrough hosts too).
TPU_DEVICE_GLOB = "/dev/accel[0-9]*"
PCI_DEVICES = Path("/sys/bus/pci/devices")
GOOGLE_PCI_VENDOR = "0x1ae0"
# Google's vendor id alone is no TPU: GCP's gVNIC network card (device 0x0042, on
# every A2/A3/G2 GPU VM) has it too. TPU chips by PCI device id, as JAX's
# jax/_src/hardware_utils.py lists them (0x0056 has no public name).
TPU_PCI_DEVICE_IDS = {
    "0x0027": "TPU v2/v3", "0x0056": "TPU", "0x005e": "TPU v4", "0x0062": "TPU v5p",
    "0x0063": "TPU v5e", "0x006f": "TPU v6e", "0x0076": "TPU7x",
}

_PROBE = r"""
import json, os
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf
name = os.environ.get("TPU_NAME") or (None if os.environ.get("COLAB_TPU_ADDR") else "local")
resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu=name)
cores = resolver.num_accelerators().get("TPU", 0)
print(json.dumps({"cores": int(cores)}))
"""


def tpu_pci_devices(root: Path = PCI_DEVICES) -> list[str]:
    """TPU chips on the PCI bus, from sysfs ("TPU v4 PCI device 0000:00:04.0"); none
    where sysfs is missing."""
    found = []
    for vendor in sorted(root.glob("*/vendor")):
        with contextlib.suppress(OSError):
            if vendor.read_text().strip().lower() != GOOGLE_PCI_VENDOR:
                continue
            product = TPU_PCI_DEVICE_IDS.get((vendor.parent / "device").read_text().strip().lower())
            if product:
                found.append(f"{product} PCI device {vendor.parent.name}")
    return found


def tpu_hints(environ: Mapping[str, str], device_glob: Callable[[str], list[str]] = glob,
              pci_devices: Callable[[], list[str]] = tpu_pci_devices) -> list[str]:
    """Why a TPU may be here: the variables and devices seen (empty: none)."""
    hints = [name for name in TPU_ENV_VARS if environ.get(name)]
    hints.extend(sorted(device_glob(TPU_DEVICE_GLOB))[:1])
    return hints + pci_devices()[:1]


_answers: dict[tuple, TpuInfo] = {}  # the probe's answers in this process, by what was asked


def forget_tpu_answers() -> None:
    """Probe again on the next call (tests; a TPU attached while the app runs)."""
    _answers.clear()


def detect_tpu(
    environ: Mapping[str, str] | None = None,
    device_glob: Callable[[str], list[str]] = glob,
    probe_command: list[str] | None = None,
    timeout: float = 30.0,
    pci_devices: Callable[[], list[str]] = tpu_pci_devices,
) -> TpuInfo:
    """The TPU, if the hints lead to one. The hardware check runs at every run start,
    so a probe's answer is kept for the process: the same hints, variables and command
    get it again without a second child (a timed-out probe costs ``timeout`` seconds)."""
    environ = os.environ if environ is None else environ
    hints = tpu_hints(environ, device_glob, pci_devices)
    if not hints:
        return TpuInfo(False, note=said(N_(
            "no TPU environment variables or TPU devices: not probed")))
    command = probe_command or [sys.executable, "-c", _PROBE]
    key = (tuple(hints), tuple(environ.get(name) for name in TPU_ENV_VARS), tuple(command),
           timeout)
    if key not in _answers:
        _answers[key] = _probe(environ, hints, command, timeout)
    return _answers[key]


def _probe(environ: Mapping[str, str], hints: list[str], command: list[str],
           timeout: float) -> TpuInfo:
    accelerator_type = environ.get("TPU_ACCELERATOR_TYPE") or None
    seen = ", ".join(hints)
    # The child imports TensorFlow, which would set up (and take memory on) every GPU.
    env = {**environ, "CUDA_VISIBLE_DEVICES": ""}
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              env=env, check=False)
    except subprocess.TimeoutExpired:
        return TpuInfo(False, accelerator_type, note=said(N_(
            "TPU hinted ({seen}) but the probe gave no answer in {timeout:g} s (a TPU name "
            "without project/zone waits on the GCE metadata server): stopped it"),
            seen=seen, timeout=timeout))
    except OSError as exc:
        return TpuInfo(False, accelerator_type, note=said(
            N_("TPU probe could not start: {error}"), error=str(exc)))
    try:
        cores = int(json.loads(done.stdout.strip().splitlines()[-1])["cores"])
    except (IndexError, ValueError, KeyError, TypeError):
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return TpuInfo(False, accelerator_type, note=said(
            N_("TPU hinted ({seen}) but the resolver failed: {error}"), seen=seen,
            error=last[:200]))
    if cores <= 0:
        return TpuInfo(False, accelerator_type, note=said(
            N_("TPU hinted ({seen}), no TPU cores found"), seen=seen))
    return TpuInfo(True, accelerator_type, cores,
                   note=said(N_("found through {seen}"), seen=seen))
