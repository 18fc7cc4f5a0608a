"""``detect_hardware()``: the whole report, from sources a test can replace."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from mpstudio.engine.hardware.detect_cpu import detect_cpu
from mpstudio.engine.hardware.detect_gpu import (
    NvmlScan,
    TfGpu,
    merge_gpus,
    nvml_scan,
    tensorflow_build,
    tensorflow_gpus,
)
from mpstudio.engine.hardware.detect_tpu import detect_tpu
from mpstudio.engine.hardware.report import CpuInfo, HardwareReport, TfBuild, TpuInfo


@dataclass(frozen=True)
class HardwareSources:
    """Where each part of the report comes from. The defaults read this machine;
    tests pass functions that describe a V100 server, a TPU VM or an AMX CPU."""

    build: Callable[[], TfBuild] = tensorflow_build
    tf_gpus: Callable[[], list[TfGpu]] = tensorflow_gpus
    nvml: Callable[[], NvmlScan] = nvml_scan
    tpu: Callable[[], TpuInfo] = detect_tpu
    cpu: Callable[[], CpuInfo] = detect_cpu
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))


def detect_hardware(sources: HardwareSources | None = None) -> HardwareReport:
    sources = sources or HardwareSources()
    build = sources.build()
    scan = sources.nvml()
    return HardwareReport(
        build=build,
        gpus=merge_gpus(sources.tf_gpus(), scan, build, sources.environ),
        tpu=sources.tpu(),
        cpu=sources.cpu(),
        nvml_note=scan.note,
    )
