"""Hardware detection: the architecture facts, GPUs joined across TensorFlow and
NVML, TPU probing that cannot hang, CPU flags, and real detection on this machine."""

from __future__ import annotations

import functools
import os
import sys
import time

import pytest
import tensorflow as tf

from mpstudio.engine.hardware.detect import detect_hardware
from mpstudio.engine.hardware.detect_cpu import detect_cpu, onednn_enabled, parse_cpuinfo
from mpstudio.engine.hardware.detect_gpu import NvmlScan, TfGpu, merge_gpus, nvml_scan
from mpstudio.engine.hardware.detect_tpu import (
    detect_tpu,
    forget_tpu_answers,
    tpu_hints,
    tpu_pci_devices,
)
from mpstudio.engine.hardware.gpu_architecture import architecture, kernel_support

from support.machines import (
    A100,
    CPU_ONLY_BUILD,
    CUDA_BUILD,
    GIB,
    GRAVITON3,
    GTX_970,
    GTX_1080,
    GTX_1660,
    H100,
    RTX_4090,
    RTX_5090,
    SAPPHIRE_RAPIDS,
    T4,
    V100,
    FakeNvml,
    NvmlDevice,
    cpu_from,
    machine,
    nvml_of,
)


@pytest.fixture(autouse=True)
def _fresh_tpu_probe():
    """detect_tpu keeps the probe's answer for the process: each test starts afresh."""
    forget_tpu_answers()
    yield
    forget_tpu_answers()


@pytest.mark.parametrize(
    ("gpu", "family", "generation", "bf16", "fp8"),
    [
        (V100, "Volta", 1, False, False),
        (T4, "Turing", 2, False, False),
        (A100, "Ampere", 3, True, False),
        (RTX_4090, "Ada Lovelace", 4, True, True),
        (H100, "Hopper", 4, True, True),
        (GTX_1080, "Pascal", 0, False, False),
        (GTX_1660, "Turing", 0, False, False),  # Turing without Tensor Cores
        (RTX_5090, "Blackwell", 5, True, True),
    ],
)
def test_architecture_from_compute_capability_and_name(gpu, family, generation, bf16, fp8):
    name, cc, _ = gpu
    arch = architecture(cc, name)
    assert (arch.family, arch.tensor_core_generation) == (family, generation)
    assert arch.float16_tensor_cores == (generation > 0)
    assert (arch.bfloat16_tensor_cores, arch.fp8_tensor_cores) == (bf16, fp8)
    if fp8:
        assert "FP8" in arch.note


def test_tensor_core_labels():
    assert architecture((7, 0)).tensor_cores_label == "1st gen"
    assert architecture((9, 0)).tensor_cores_label == "4th gen"
    assert architecture((6, 1)).tensor_cores_label == "none"
    assert "1/64" in architecture((6, 1), "GeForce GTX 1080").note


def test_compiled_kernels_decide_whether_tensorflow_runs_on_a_gpu():
    compiled = list(CUDA_BUILD.compiled_capabilities)
    assert kernel_support((8, 6), compiled) == (True, "")  # sm_80 code runs on 8.6
    assert kernel_support((7, 5), compiled) == (True, "")
    ok, note = kernel_support((12, 0), compiled)  # only the compute_90 PTX fits
    assert ok and "PTX (9.0)" in note
    ok, note = kernel_support((5, 2), compiled)
    assert not ok and "6.0 and newer" in note


def test_gpus_are_matched_by_name_when_tensorflow_and_nvml_order_differ():
    scan = nvml_of(T4, A100)  # NVML: PCI order
    tf_gpus = [TfGpu(A100[0], A100[1]), TfGpu(T4[0], T4[1])]  # CUDA: fastest first
    gpus = merge_gpus(tf_gpus, scan, CUDA_BUILD, environ={})
    assert [(g.label, g.name, g.memory_total) for g in gpus] == [
        ("GPU:0", A100[0], 40 * 2**30), ("GPU:1", T4[0], 15 * 2**30)]
    assert all(g.driver_version == "580.82.07" for g in gpus)


def test_gpus_tensorflow_cannot_use_are_listed_with_the_reason():
    # NVML sees an RTX 3090-class card, TensorFlow (no CUDA libraries) sees nothing.
    report = detect_hardware(machine(A100, tf_sees=False))
    (gpu,) = report.gpus
    assert not gpu.visible_to_tensorflow and gpu.label == "GPU (unused)"
    assert "mpstudio[cuda]" in gpu.not_visible_reason
    report = detect_hardware(machine(A100, tf_sees=False, build=CPU_ONLY_BUILD))
    assert "built without CUDA" in report.gpus[0].not_visible_reason
    # TensorFlow ignores a Maxwell card: no kernels for 5.2.
    report = detect_hardware(machine(A100, GTX_970))
    assert [g.visible_to_tensorflow for g in report.gpus] == [True, False]
    assert "no kernels for compute capability 5.2" in report.gpus[1].not_visible_reason


def test_cuda_visible_devices_with_pci_order_or_uuids_is_exact():
    scan = nvml_of(H100, H100)
    pci = {"CUDA_VISIBLE_DEVICES": "1", "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}
    gpus = merge_gpus([TfGpu(*H100[:2])], scan, CUDA_BUILD, environ=pci)
    assert [(g.label, g.not_visible_reason) for g in gpus] == [
        ("GPU:0", ""), ("GPU (unused)", "hidden by CUDA_VISIBLE_DEVICES")]
    assert gpus[0].memory_used == scan.gpus[1].memory_used  # NVML's second is TF's GPU:0
    by_uuid = merge_gpus([], scan, CUDA_BUILD, environ={"CUDA_VISIBLE_DEVICES": "GPU-0001"})
    assert [g.not_visible_reason.startswith("hidden") for g in by_uuid] == [True, False]


def test_cuda_visible_devices_in_cuda_order_is_matched_by_name():
    """CUDA's default order puts the fastest GPU first, so "0" is the A100 here even
    though NVML (PCI order) lists the GTX 1080 first."""
    scan = nvml_of(GTX_1080, A100)
    gpus = merge_gpus([TfGpu(*A100[:2])], scan, CUDA_BUILD,
                      environ={"CUDA_VISIBLE_DEVICES": "0"})
    assert [(g.label, g.name) for g in gpus] == [("GPU:0", A100[0]), ("GPU (unused)", GTX_1080[0])]
    assert gpus[0].memory_used == scan.gpus[1].memory_used
    assert "CUDA_VISIBLE_DEVICES=0" in gpus[1].not_visible_reason


def test_mig_slices_and_renamed_gpus_are_not_listed_twice():
    """NVML without the slices (a driver that could not list them): the slice is matched
    to its GPU, not listed twice, and gets no memory figure rather than the GPU's."""
    scan = nvml_of(A100, V100)
    mig = TfGpu(f"{A100[0]} MIG 1g.5gb", A100[1])
    renamed = TfGpu("Tesla V100 (renamed by a driver)", V100[1])
    gpus = merge_gpus([mig, renamed], scan, CUDA_BUILD,
                      environ={"CUDA_VISIBLE_DEVICES": "MIG-4f3e-aaaa,1"})
    assert len(gpus) == 2 and all(g.visible_to_tensorflow for g in gpus)
    assert [g.memory_used for g in gpus] == [None, scan.gpus[1].memory_used]


def a100_in_mig_mode(**slots: NvmlDevice | None) -> NvmlDevice:
    return NvmlDevice(A100[0], "GPU-a100", 40 * GIB, 9 * GIB, A100[1], mig={
        int(slot[1:]): dev for slot, dev in slots.items() if dev})


MIG_1G = NvmlDevice(f"{A100[0]} MIG 1g.5gb", "MIG-1111", 5 * GIB, 1 * GIB)
MIG_3G = NvmlDevice("MIG 3g.20gb", "MIG-3333", 20 * GIB, 2 * GIB)  # NVML naming the profile only


def mig_machine() -> FakeNvml:
    """An A100 split into a 1g.5gb slice (slot 0) and a 3g.20gb one (slot 2; slot 1 is
    unused: NotFound), beside a V100, which has no MIG (NotSupported)."""
    v100 = NvmlDevice(V100[0], "GPU-v100", 16 * GIB, 3 * GIB, V100[1], mig_capable=False)
    return FakeNvml(a100_in_mig_mode(s0=MIG_1G, s2=MIG_3G), v100)


def test_the_fake_nvml_calls_what_pynvml_has():
    pynvml = pytest.importorskip("pynvml")
    assert all(callable(getattr(pynvml, name)) for name in FakeNvml.CALLED)
    assert (pynvml.NVML_ERROR_NOT_SUPPORTED, pynvml.NVML_ERROR_NOT_FOUND) == (3, 6)
    assert issubclass(pynvml.NVMLError_NotFound, pynvml.NVMLError)
    assert pynvml.NVML_DEVICE_MIG_ENABLE == FakeNvml.NVML_DEVICE_MIG_ENABLE


def test_nvml_lists_mig_slices_with_their_own_memory():
    scan = nvml_scan(mig_machine())
    assert scan.note == "" and scan.driver_version == "580.82.07"
    assert [(g.name, g.index, g.mig_index, g.mig_mode) for g in scan.gpus] == [
        (A100[0], 0, None, True),
        (f"{A100[0]} MIG 1g.5gb", 0, 0, False),
        (f"{A100[0]} MIG 3g.20gb", 0, 2, False),
        (V100[0], 1, None, False),
    ]
    gpu, small, large, _ = scan.gpus
    assert (small.uuid, small.memory_total, small.memory_free) == ("MIG-1111", 5 * GIB, 4 * GIB)
    assert (large.uuid, large.memory_total) == ("MIG-3333", 20 * GIB)
    # NVML gives no compute capability for a slice: it is its GPU's
    assert small.compute_capability == large.compute_capability == gpu.compute_capability


def test_a_tensorflow_mig_device_gets_its_slices_memory():
    scan = nvml_scan(mig_machine())
    tf_gpus = [TfGpu(f"{A100[0]} MIG 1g.5gb", (8, 0)), TfGpu(*V100[:2])]
    gpus = merge_gpus(tf_gpus, scan, CUDA_BUILD, environ={})
    assert [(g.label, g.name, g.memory_total) for g in gpus] == [
        ("GPU:0", f"{A100[0]} MIG 1g.5gb", 5 * GIB), ("GPU:1", V100[0], 16 * GIB),
        ("GPU (unused)", f"{A100[0]} MIG 3g.20gb", 20 * GIB)]  # the A100 itself: not "unused"
    assert gpus[0].memory_used == 1 * GIB
    assert gpus[2].not_visible_reason == (
        "TensorFlow uses one MIG slice per process: to train on this one, set "
        "CUDA_VISIBLE_DEVICES=MIG-3333")


def test_cuda_visible_devices_names_a_mig_slice_by_its_uuid():
    scan = nvml_scan(mig_machine())
    tf_gpus = [TfGpu(f"{A100[0]} MIG 3g.20gb", (8, 0))]
    gpus = merge_gpus(tf_gpus, scan, CUDA_BUILD, environ={"CUDA_VISIBLE_DEVICES": "MIG-3333"})
    assert [(g.label, g.memory_total, g.not_visible_reason) for g in gpus] == [
        ("GPU:0", 20 * GIB, ""),
        ("GPU (unused)", 5 * GIB, "hidden by CUDA_VISIBLE_DEVICES"),
        ("GPU (unused)", 16 * GIB, "hidden by CUDA_VISIBLE_DEVICES")]
    # The GPU's index with PCI order: CUDA shows one of its slices
    by_index = merge_gpus(tf_gpus, scan, CUDA_BUILD, environ={
        "CUDA_VISIBLE_DEVICES": "0", "CUDA_DEVICE_ORDER": "PCI_BUS_ID"})
    assert by_index[0].memory_total == 20 * GIB
    assert [g.not_visible_reason for g in by_index[1:]] == [
        "TensorFlow uses one MIG slice per process: to train on this one, set "
        "CUDA_VISIBLE_DEVICES=MIG-1111", "hidden by CUDA_VISIBLE_DEVICES"]


def test_a_gpu_in_mig_mode_without_slices_says_what_to_do():
    scan = nvml_scan(FakeNvml(a100_in_mig_mode()))
    assert [(g.mig_mode, g.mig_index) for g in scan.gpus] == [(True, None)]
    (gpu,) = merge_gpus([], scan, CUDA_BUILD, environ={})
    assert not gpu.visible_to_tensorflow
    assert gpu.not_visible_reason.startswith("MIG mode is on and NVML lists no MIG slice")
    assert "nvidia-smi -i 0 -mig 0" in gpu.not_visible_reason


def test_native_windows_is_told_about_wsl2():
    gpus = merge_gpus([], nvml_of(RTX_4090), CUDA_BUILD, environ={}, system="Windows")
    assert "WSL2" in gpus[0].not_visible_reason


def test_without_nvml_gpus_still_come_from_tensorflow():
    gpus = merge_gpus([TfGpu(*T4[:2])], NvmlScan(note="no driver"), CUDA_BUILD, environ={})
    assert gpus[0].memory_total is None and gpus[0].capability_text == "7.5"


def test_nvml_on_this_machine_degrades_to_a_note():
    scan = nvml_scan()
    if scan.gpus:
        assert scan.driver_version
    else:
        assert scan.note  # says why, never raises


def test_cpu_flags_from_proc_cpuinfo():
    model, flags = parse_cpuinfo(SAPPHIRE_RAPIDS)
    assert model == "Intel(R) Xeon(R) Platinum 8480+"
    assert {"amx_bf16", "avx512_bf16", "avx512_fp16", "avx512f", "f16c"} <= flags
    arm = cpu_from(GRAVITON3, architecture="aarch64")
    assert {"asimdhp", "bf16", "sve"} <= arm.flags


def test_onednn_follows_tensorflow_defaults_and_the_environment():
    assert onednn_enabled({}, "x86_64", "Linux")
    assert not onednn_enabled({}, "AMD64", "Windows")
    assert not onednn_enabled({"TF_ENABLE_ONEDNN_OPTS": "0"}, "x86_64", "Linux")
    assert onednn_enabled({"TF_ENABLE_ONEDNN_OPTS": "1"}, "AMD64", "Windows")


def test_tpu_is_not_probed_without_a_hint():
    info = detect_tpu(environ={}, device_glob=lambda pattern: [], pci_devices=lambda: [])
    assert not info.found and "not probed" in info.note


def test_tpu_found_through_the_probe():
    probe = [sys.executable, "-c", "print('log line'); print('{\"cores\": 8}')"]
    info = detect_tpu(environ={"TPU_NAME": "my-tpu", "TPU_ACCELERATOR_TYPE": "v4-8"},
                      device_glob=lambda pattern: [], probe_command=probe)
    assert (info.found, info.accelerator_type, info.cores, info.generation) == (
        True, "v4-8", 8, "v4")
    local = detect_tpu(environ={}, probe_command=probe,
                       device_glob=lambda p: ["/dev/accel0"] if "accel" in p else [])
    assert local.found and "/dev/accel0" in local.note


def pci_bus(root, devices: dict[str, tuple[str, str]]):
    """A sysfs PCI tree: <root>/<address>/vendor and /device, as the kernel writes them."""
    for address, (vendor, device) in devices.items():
        (root / address).mkdir(parents=True)
        (root / address / "vendor").write_text(f"{vendor}\n")
        (root / address / "device").write_text(f"{device}\n")
    return functools.partial(tpu_pci_devices, root)


GVNIC = ("0x1ae0", "0x0042")  # GCP's network card: Google's vendor id, on every GPU VM
A100_PCI = ("0x10de", "0x20b0")


def counting_probe(marker) -> list[str]:
    """A probe that answers 8 cores and appends the CUDA_VISIBLE_DEVICES it was given
    to ``marker``: one line per child started."""
    code = ("import json, os\n"
            f"with open({str(marker)!r}, 'a') as fh:\n"
            "    fh.write(repr(os.environ.get('CUDA_VISIBLE_DEVICES')) + '\\n')\n"
            "print(json.dumps({'cores': 8}))\n")
    return [sys.executable, "-c", code]


def test_a_gcp_gpu_vm_with_gvnic_is_not_probed_for_a_tpu(tmp_path):
    marker = tmp_path / "probed"
    pci = pci_bus(tmp_path / "sys", {"0000:00:04.0": A100_PCI, "0000:00:05.0": GVNIC})
    assert pci() == []
    info = detect_tpu(environ={}, device_glob=lambda p: [], pci_devices=pci,
                      probe_command=counting_probe(marker))
    assert not info.found and "not probed" in info.note
    assert not marker.exists()  # no child, no TensorFlow import, no GPU set up
    assert tpu_pci_devices(tmp_path / "absent") == []
    assert tpu_hints({}, device_glob=lambda p: [], pci_devices=lambda: []) == []


def test_tpu_chips_are_found_by_their_pci_device_id(tmp_path):
    pci = pci_bus(tmp_path / "sys", {"0000:00:04.0": ("0x1ae0", "0x005e"),
                                     "0000:00:05.0": GVNIC, "0000:00:06.0": ("0x1ae0", "0x0076"),
                                     "0000:00:07.0": ("0x1ae0", "0x0063")})
    assert pci() == ["TPU v4 PCI device 0000:00:04.0", "TPU7x PCI device 0000:00:06.0",
                     "TPU v5e PCI device 0000:00:07.0"]
    marker = tmp_path / "probed"
    info = detect_tpu(environ={"CUDA_VISIBLE_DEVICES": "0"}, device_glob=lambda p: [],
                      pci_devices=pci, probe_command=counting_probe(marker))
    assert info.found and info.cores == 8
    assert info.note == "found through TPU v4 PCI device 0000:00:04.0"
    # The child never sets up GPUs, whatever the parent's CUDA_VISIBLE_DEVICES says.
    assert marker.read_text().splitlines() == ["''"]


def test_the_tpu_probe_runs_once_per_process_for_the_same_hints(tmp_path):
    marker = tmp_path / "probed"
    pci = pci_bus(tmp_path / "sys", {"0000:00:04.0": ("0x1ae0", "0x0062")})
    probe = counting_probe(marker)
    first = detect_tpu(environ={}, device_glob=lambda p: [], pci_devices=pci, probe_command=probe)
    again = detect_tpu(environ={}, device_glob=lambda p: [], pci_devices=pci, probe_command=probe)
    assert first == again and first.found and len(marker.read_text().splitlines()) == 1
    # Other hints are another question; forgetting the answers asks again.
    detect_tpu(environ={"TPU_NAME": "t"}, device_glob=lambda p: [], pci_devices=pci,
               probe_command=probe)
    assert len(marker.read_text().splitlines()) == 2
    forget_tpu_answers()
    detect_tpu(environ={}, device_glob=lambda p: [], pci_devices=pci, probe_command=probe)
    assert len(marker.read_text().splitlines()) == 3


def test_tpu_probe_that_hangs_is_stopped_at_the_timeout():
    hang = [sys.executable, "-c", "import time; time.sleep(60)"]
    start = time.monotonic()
    info = detect_tpu(environ={"TPU_NAME": "far-away"}, device_glob=lambda p: [],
                      probe_command=hang, timeout=1.0)
    assert time.monotonic() - start < 10
    assert not info.found and "no answer in 1 s" in info.note


def test_tpu_probe_failure_is_a_note():
    fail = [sys.executable, "-c", "import sys; sys.exit('ValueError: Please provide a TPU Name')"]
    info = detect_tpu(environ={"COLAB_TPU_ADDR": "10.0.0.2:8470"}, device_glob=lambda p: [],
                      probe_command=fail)
    assert not info.found and "Please provide a TPU Name" in info.note


def test_real_detection_on_this_machine():
    report = detect_hardware()
    assert report.build.tensorflow == tf.__version__
    assert len(report.usable_gpus) == len(tf.config.list_physical_devices("GPU"))
    assert report.cpu.logical_cores == os.cpu_count()
    assert report.cpu.memory_total and report.cpu.memory_total > 2**30
    if sys.platform == "linux":
        with open("/proc/cpuinfo") as fh:
            assert ("f16c" in fh.read().split()) == report.cpu.has("f16c")
    hinted = any(os.environ.get(v) for v in ("TPU_NAME", "COLAB_TPU_ADDR"))
    assert report.tpu.found or hinted or "not probed" in report.tpu.note
    data = report.to_dict()
    assert data["cpu"]["logical_cores"] == os.cpu_count()
    assert isinstance(data["cpu"]["flags"], list)


def test_detecting_leaves_gpu_memory_settings_possible():
    """Listing devices must not initialize the runtime: the CPU's logical devices can
    still be configured after detection (a fresh process: this one has run ops)."""
    import subprocess

    code = (
        "import tensorflow as tf\n"
        "from mpstudio.engine.hardware.detect import detect_hardware\n"
        "detect_hardware()\n"
        "cpu = tf.config.list_physical_devices('CPU')[0]\n"
        "tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()]"
        " * 2)\n"
        "print(len(tf.config.list_logical_devices('CPU')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, check=True)
    assert out.stdout.strip().splitlines()[-1] == "2"


def test_detect_cpu_reads_a_given_file(tmp_path):
    path = tmp_path / "cpuinfo"
    path.write_text(SAPPHIRE_RAPIDS)
    cpu = detect_cpu(path)
    assert cpu.model.startswith("Intel(R) Xeon") and cpu.has("amx_bf16") and cpu.flags_known
    missing = detect_cpu(tmp_path / "absent")
    assert not missing.flags_known and missing.model
