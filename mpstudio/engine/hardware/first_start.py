"""The first start on a GPU TensorFlow has no machine code for (Hopper, Blackwell).

TensorFlow 2.21's wheel carries machine code for sm_60/70/80/89 and only PTX for 9.0:
on an H100, H200, B200 or RTX 50xx the CUDA driver compiles TensorFlow's kernels from
that PTX when CUDA sets them up, which TensorFlow warns can take 30 minutes. The driver
keeps what it compiled in its JIT cache (``~/.nv/ComputeCache``, or CUDA_CACHE_PATH), but
only up to CUDA_CACHE_MAXSIZE bytes (256 MiB by default), too little for TensorFlow's
kernels: every start would compile them again. So, before TensorFlow is imported (the
driver reads the variable when CUDA starts), such a process gets CUDA's largest cache,
4 GiB, unless the user set a size, and the user is told why the wait is long.

``plan_first_start`` decides from plain values (a test gives it any machine);
``prepare_first_start`` reads this machine without TensorFlow (the GPUs from NVML, the
compiled list from TensorFlow's ``build_info.py``, read as text) and sets the variable.
The window's engine process and the command line call it before TensorFlow loads.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.metadata
import importlib.util
import logging
import os
import sys
from collections.abc import Callable, Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mpstudio.engine.hardware.detect_gpu import NvmlScan, cuda_visible, nvml_scan
from mpstudio.engine.hardware.gpu_architecture import Capability, kernel_support
from mpstudio.engine.i18n import N_
from mpstudio.engine.said import Said, english, items, said

log = logging.getLogger(__name__)

CACHE_SIZE = "CUDA_CACHE_MAXSIZE"  # bytes the driver may keep in its JIT cache
CACHE_OFF = "CUDA_CACHE_DISABLE"  # "1": the driver keeps nothing
CACHE_BYTES = 4 * 2**30  # the largest size CUDA allows (its default is 256 MiB)
# The compiled list of TensorFlow releases, where their build_info.py cannot be read
# (tf.sysconfig.get_build_info()["cuda_compute_capabilities"] of the Linux wheels).
KNOWN_BUILDS = {
    "2.20": ("sm_60", "sm_70", "sm_80", "sm_89", "compute_90"),
    "2.21": ("sm_60", "sm_70", "sm_80", "sm_89", "compute_90"),
}

Gpu = tuple[str, Capability | None]  # a GPU's name and compute capability


@dataclass(frozen=True)
class FirstStart:
    env: dict[str, str] = field(default_factory=dict)  # to set before CUDA starts
    message: Said | None = None  # what the user is told while the driver compiles

    @property
    def compiles(self) -> bool:
        """The driver compiles TensorFlow's kernels when CUDA sets up the GPUs."""
        return self.message is not None


def _dotted(capability: Capability) -> str:
    return f"{capability[0]}.{capability[1]}"


def plan_first_start(gpus: Iterable[Gpu], compiled: Sequence[str],
                     environ: Mapping[str, str]) -> FirstStart:
    """What a process that loads TensorFlow needs on these GPUs (the ones CUDA shows it)
    with this build's compiled list (``["sm_80", "compute_90"]``): nothing where the
    build has machine code for each; else a JIT cache of ``CACHE_BYTES`` (a size the
    user set in ``environ`` stays) and the sentence that says why the start is slow."""
    names: list[str] = []
    capabilities: list[str] = []
    for name, capability in gpus:
        if capability is None:
            continue
        runs, why = kernel_support(capability, list(compiled))
        if runs and why:  # it runs on PTX the driver compiles (not: no kernels at all)
            if name not in names:
                names.append(name)
            if _dotted(capability) not in capabilities:
                capabilities.append(_dotted(capability))
    if not names:
        return FirstStart()
    if environ.get(CACHE_OFF, "").strip() == "1":
        return FirstStart({}, said(N_(
            "starting on {gpus}: the driver compiles TensorFlow's kernels for compute "
            "capability {capability}, which can take many minutes, and at every start: "
            "CUDA_CACHE_DISABLE=1 keeps it from saving them"),
            gpus=items(names), capability=items(capabilities)))
    env = {} if environ.get(CACHE_SIZE, "").strip() else {CACHE_SIZE: str(CACHE_BYTES)}
    return FirstStart(env, said(N_(
        "starting on {gpus}: the first time, the driver compiles TensorFlow's kernels for "
        "compute capability {capability}, which can take many minutes; later starts reuse "
        "them"), gpus=items(names), capability=items(capabilities)))


def cuda_gpus(scan: NvmlScan, environ: Mapping[str, str]) -> list[Gpu]:
    """The GPUs NVML reports that CUDA shows a process with ``environ``."""
    setting = environ.get("CUDA_VISIBLE_DEVICES")
    if setting is not None and setting.split(",")[0].strip().startswith("-"):
        return []  # "-1": CUDA stops at the first invalid entry, so it shows no GPU
    return [(gpu.name, gpu.compute_capability) for gpu in cuda_visible(scan, environ)]


def compiled_capabilities() -> tuple[str, ...]:
    """``tf.sysconfig.get_build_info()["cuda_compute_capabilities"]`` without importing
    TensorFlow: that module is a literal written at build time, read here as text (in a
    process that has imported TensorFlow already, asked of it). () for a build without
    CUDA or where TensorFlow is not installed."""
    tf = sys.modules.get("tensorflow")
    sysconfig = getattr(tf, "sysconfig", None)
    if sysconfig is not None:
        with contextlib.suppress(Exception):
            return tuple(sysconfig.get_build_info().get("cuda_compute_capabilities") or ())
    info = _build_info()
    if info is not None:
        return tuple(info.get("cuda_compute_capabilities") or ())
    try:
        version = importlib.metadata.version("tensorflow")
    except importlib.metadata.PackageNotFoundError:
        return ()
    return KNOWN_BUILDS.get(".".join(version.split(".")[:2]), ())


def _build_info() -> dict | None:
    """tensorflow/python/platform/build_info.py's ``build_info`` (a dict, or an
    ``OrderedDict([...])`` of literals), parsed; None where it cannot be read."""
    try:
        spec = importlib.util.find_spec("tensorflow")
        if spec is None or not spec.submodule_search_locations:
            return None
        path = Path(next(iter(spec.submodule_search_locations)), "python", "platform",
                    "build_info.py")
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, SyntaxError, ImportError):
        return None
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id == "build_info"):
            value = node.value
            if isinstance(value, ast.Call) and len(value.args) == 1:
                value = value.args[0]  # collections.OrderedDict([(key, value), ...])
            try:
                return dict(ast.literal_eval(value))
            except (ValueError, TypeError, SyntaxError):
                return None
    return None


def prepare_first_start(environ: MutableMapping[str, str] | None = None,
                        scan: Callable[[], NvmlScan] = nvml_scan,
                        compiled: Callable[[], Sequence[str]] = compiled_capabilities,
                        ) -> FirstStart:
    """Decide for this machine and set ``plan.env`` in ``environ`` (default: this
    process's, which the processes it starts inherit). Call before TensorFlow is
    imported: the CUDA driver reads the cache size once, when it starts."""
    environ = os.environ if environ is None else environ
    built = compiled()
    if not built:  # a build without CUDA: no GPU to ask NVML about
        return FirstStart()
    plan = plan_first_start(cuda_gpus(scan(), environ), built, environ)
    environ.update(plan.env)
    if plan.message:
        log.info("%s; %s=%s, %s=%s", english(plan.message), CACHE_SIZE,
                 environ.get(CACHE_SIZE, "(CUDA's default)"), "CUDA_CACHE_PATH",
                 environ.get("CUDA_CACHE_PATH", "(CUDA's default, ~/.nv/ComputeCache)"))
    return plan
