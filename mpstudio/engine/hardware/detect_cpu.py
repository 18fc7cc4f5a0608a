"""The CPU: model, cores, memory (psutil) and the flags that decide whether
float16/bfloat16 math is native. Flags come from /proc/cpuinfo on Linux, which
names exactly what the kernel enabled (AMX needs kernel support, not just silicon)."""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path

import psutil

from mpstudio.engine.hardware.report import CPU_FLAGS, CpuInfo
from mpstudio.engine.i18n import N_
from mpstudio.engine.said import said


def parse_cpuinfo(text: str) -> tuple[str, frozenset[str]]:
    """Model name and flags from /proc/cpuinfo text (x86 ``flags``, Arm ``Features``)."""
    model, flags = "", frozenset[str]()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key = key.strip().lower()
        if key in ("model name", "hardware", "cpu model") and not model:
            model = value.strip()
        elif key in ("flags", "features") and not flags:
            flags = frozenset(value.split())
    return model, flags


def _macos_model() -> str:
    try:
        out = subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"],
                             capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return out.stdout.strip()


def onednn_enabled(environ: dict[str, str] | os._Environ, machine: str, system: str) -> bool:
    """TensorFlow turns its oneDNN kernels on by default on x86 Linux; elsewhere (or
    with TF_ENABLE_ONEDNN_OPTS=0) AMX and AVX-512 BF16 go unused."""
    setting = environ.get("TF_ENABLE_ONEDNN_OPTS")
    if setting is not None:
        return setting.strip().lower() not in ("0", "false", "off", "no")
    return system == "Linux" and machine.lower() in ("x86_64", "amd64")


def detect_cpu(cpuinfo_path: Path = Path("/proc/cpuinfo")) -> CpuInfo:
    model, flags, known = "", frozenset[str](), False
    try:
        model, flags = parse_cpuinfo(cpuinfo_path.read_text(errors="replace"))
        known = bool(flags)
    except OSError:
        pass
    system, machine = platform.system(), platform.machine()
    if not model and system == "Darwin":
        model = _macos_model()
    memory = psutil.virtual_memory().total
    return CpuInfo(
        model=model or platform.processor() or machine or said(N_("unknown CPU")),
        architecture=machine,
        logical_cores=psutil.cpu_count(logical=True) or os.cpu_count() or 1,
        physical_cores=psutil.cpu_count(logical=False),
        memory_total=int(memory) if memory else None,
        flags=frozenset(f for f in flags if f in CPU_FLAGS),
        flags_known=known,
        onednn=onednn_enabled(os.environ, machine, system),
    )
