"""TPU detection that cannot hang.

``TPUClusterResolver`` with a TPU name but no project/zone asks the GCE metadata
server with no timeout. So: probe only where a TPU is plausible (TPU environment
variables, or a TPU device node on a TPU VM), and probe in a child process that
is killed after ``timeout`` seconds.
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

TPU_ENV_VARS = ("TPU_NAME", "COLAB_TPU_ADDR", "TPU_ACCELERATOR_TYPE", "TPU_WORKER_HOSTNAMES",
                "KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS", "TPU_IP_ADDRESS")
# TPU VMs expose v2-v4 chips as /dev/accel*; newer ones are PCI devices of Google's
# vendor id under VFIO (a bare /dev/vfio is common on GPU-passthrough hosts too).
TPU_DEVICE_GLOB = "/dev/accel[0-9]*"
GOOGLE_PCI_VENDOR = "0x1ae0"

_PROBE = r"""
import json, os
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf
name = os.environ.get("TPU_NAME") or (None if os.environ.get("COLAB_TPU_ADDR") else "local")
resolver = tf.distribute.cluster_resolver.TPUClusterResolver(tpu=name)
cores = resolver.num_accelerators().get("TPU", 0)
print(json.dumps({"cores": int(cores)}))
"""


def google_pci_devices(root: Path = Path("/sys/bus/pci/devices")) -> list[str]:
    """PCI devices made by Google (TPU chips), from sysfs; none where it is missing."""
    found = []
    for vendor in sorted(root.glob("*/vendor")):
        with contextlib.suppress(OSError):
            if vendor.read_text().strip().lower() == GOOGLE_PCI_VENDOR:
                found.append(f"Google PCI device {vendor.parent.name}")
    return found


def tpu_hints(environ: Mapping[str, str], device_glob: Callable[[str], list[str]] = glob,
              pci_devices: Callable[[], list[str]] = google_pci_devices) -> list[str]:
    """Why a TPU may be here: the variables and devices seen (empty: none)."""
    hints = [name for name in TPU_ENV_VARS if environ.get(name)]
    hints.extend(sorted(device_glob(TPU_DEVICE_GLOB))[:1])
    return hints + pci_devices()[:1]


def detect_tpu(
    environ: Mapping[str, str] | None = None,
    device_glob: Callable[[str], list[str]] = glob,
    probe_command: list[str] | None = None,
    timeout: float = 30.0,
    pci_devices: Callable[[], list[str]] = google_pci_devices,
) -> TpuInfo:
    environ = os.environ if environ is None else environ
    hints = tpu_hints(environ, device_glob, pci_devices)
    if not hints:
        return TpuInfo(False, note="no TPU environment variables or TPU devices: not probed")
    accelerator_type = environ.get("TPU_ACCELERATOR_TYPE") or None
    command = probe_command or [sys.executable, "-c", _PROBE]
    seen = ", ".join(hints)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              env=dict(environ), check=False)
    except subprocess.TimeoutExpired:
        return TpuInfo(False, accelerator_type, note=(
            f"TPU hinted ({seen}) but the probe gave no answer in {timeout:g} s (a TPU name "
            "without project/zone waits on the GCE metadata server): stopped it"))
    except OSError as exc:
        return TpuInfo(False, accelerator_type, note=f"TPU probe could not start: {exc}")
    try:
        cores = int(json.loads(done.stdout.strip().splitlines()[-1])["cores"])
    except (IndexError, ValueError, KeyError, TypeError):
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return TpuInfo(False, accelerator_type,
                       note=f"TPU hinted ({seen}) but the resolver failed: {last[:200]}")
    if cores <= 0:
        return TpuInfo(False, accelerator_type, note=f"TPU hinted ({seen}), no TPU cores found")
    return TpuInfo(True, accelerator_type, cores, note=f"found through {seen}")
