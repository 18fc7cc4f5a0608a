"""The precision advisor on machines described through injected sources, and with
measurements that overrule what the hardware 'should' do."""

from __future__ import annotations

import pytest

from mpstudio.engine.hardware.advisor import advise
from mpstudio.engine.hardware.detect import detect_hardware
from mpstudio.engine.hardware.measurement import DeviceMeasurement, KernelResult
from mpstudio.engine.hardware.report import TpuInfo
from mpstudio.engine.hardware.verdict_rules import Verdict

from support.machines import (
    A100,
    EPYC_ZEN2,
    GRAVITON3,
    GTX_1080,
    GTX_1660,
    H100,
    RTX_4090,
    RTX_5090,
    SAPPHIRE_RAPIDS,
    T4,
    V100,
    cpu_from,
    machine,
)

R, SLOW, MEASURE, NO = (Verdict.RECOMMENDED, Verdict.SLOWER, Verdict.MEASURE,
                        Verdict.UNSUPPORTED)


def verdicts(device_advice) -> tuple[Verdict, Verdict, Verdict]:
    return tuple(device_advice.verdict(p).verdict
                 for p in ("float32", "mixed_float16", "mixed_bfloat16"))


@pytest.mark.parametrize(
    ("gpu", "expected", "default"),
    [
        (V100, (SLOW, R, SLOW), "mixed_float16"),
        (T4, (SLOW, R, SLOW), "mixed_float16"),
        (A100, (SLOW, R, R), "mixed_float16"),
        (RTX_4090, (SLOW, R, R), "mixed_float16"),
        (H100, (SLOW, R, R), "mixed_float16"),
        (GTX_1080, (R, SLOW, SLOW), "float32"),
        (GTX_1660, (R, MEASURE, SLOW), "float32"),
    ],
)
def test_gpu_verdicts(gpu, expected, default):
    advice = advise(detect_hardware(machine(gpu)))
    gpu_advice = advice.device("GPU:0")
    assert verdicts(gpu_advice) == expected
    assert (advice.run_device, advice.run_policy) == ("GPU:0", default)
    for v in gpu_advice.verdicts:
        assert v.reason and "\n" not in v.reason  # one sentence each


def test_gpu_reasons_name_the_hardware_facts():
    v100 = advise(detect_hardware(machine(V100))).device("GPU:0")
    assert "1st gen Tensor Cores (Volta)" in v100.verdict("mixed_float16").reason
    assert "below compute capability 8.0 (this is 7.0)" in v100.verdict("mixed_bfloat16").reason
    assert "TF32" not in v100.verdict("float32").reason
    a100 = advise(detect_hardware(machine(A100))).device("GPU:0")
    assert "TF32" in a100.verdict("float32").reason
    assert "no loss scaling" in a100.verdict("mixed_bfloat16").reason
    gtx = advise(detect_hardware(machine(GTX_1080))).device("GPU:0")
    assert "1/64" in gtx.verdict("mixed_float16").reason
    gtx16 = advise(detect_hardware(machine(GTX_1660))).device("GPU:0")
    assert "no Tensor Cores" in gtx16.verdict("mixed_float16").reason
    blackwell = advise(detect_hardware(machine(RTX_5090))).device("GPU:0")
    assert any("PTX (9.0) at start" in n for n in blackwell.notes)  # newer than the build
    assert not any("PTX" in n for n in a100.notes)
    assert any("FP8" in n for n in advise(detect_hardware(machine(H100))).device("GPU:0").notes)


def test_a_gpu_tensorflow_cannot_use_is_not_supported_and_the_run_goes_to_the_cpu():
    advice = advise(detect_hardware(machine(A100, tf_sees=False)))
    assert verdicts(advice.device("GPU (unused)")) == (NO, NO, NO)
    assert advice.device("GPU (unused)").default == ""
    assert advice.run_device == "CPU" and advice.run_policy == "float32"


def test_tpu_v4_recommends_bfloat16():
    tpu = TpuInfo(True, "v4-8", 8, note="found through TPU_NAME")
    advice = advise(detect_hardware(machine(tpu=tpu)))
    assert verdicts(advice.device("TPU")) == (SLOW, NO, R)
    assert (advice.run_device, advice.run_policy) == ("TPU", "mixed_bfloat16")
    assert "v4-8, 8 cores" in advice.device("TPU").description


def test_amx_cpu_recommends_bfloat16_and_this_kind_of_cpu_float32():
    amx = advise(detect_hardware(machine(cpu=cpu_from(SAPPHIRE_RAPIDS))))
    assert verdicts(amx.device("CPU")) == (SLOW, MEASURE, R)
    assert (amx.run_device, amx.run_policy) == ("CPU", "mixed_bfloat16")
    no_onednn = advise(detect_hardware(machine(cpu=cpu_from(SAPPHIRE_RAPIDS, onednn=False))))
    assert no_onednn.device("CPU").verdict("mixed_bfloat16").verdict is MEASURE
    assert no_onednn.run_policy == "float32"
    zen2 = advise(detect_hardware(machine(cpu=cpu_from(EPYC_ZEN2))))
    assert verdicts(zen2.device("CPU")) == (R, SLOW, SLOW)
    assert "F16C only converts" in zen2.device("CPU").verdict("mixed_float16").reason
    arm = advise(detect_hardware(machine(cpu=cpu_from(GRAVITON3, "aarch64"))))
    assert verdicts(arm.device("CPU")) == (R, MEASURE, MEASURE)


def _measured(device: str, f32: float, f16: float | None, bf16: float | str,
              baseline: str = "float32") -> DeviceMeasurement:
    results = []
    for kernel in ("matmul", "conv"):
        results.append(KernelResult(kernel, "float32", kernel, 1e9, f32, 10))
        results.append(KernelResult(kernel, "float16", kernel, 1e9, f16, 10))
        if isinstance(bf16, str):
            results.append(KernelResult(kernel, "bfloat16", kernel, 1e9, None, error=bf16))
        else:
            results.append(KernelResult(kernel, "bfloat16", kernel, 1e9, bf16, 10))
    return DeviceMeasurement(device, baseline, device != "CPU", tuple(results))


def test_a_measurement_overrules_the_rules_and_cites_the_ratio():
    report = detect_hardware(machine(cpu=cpu_from(EPYC_ZEN2)))
    advice = advise(report, [_measured("CPU", 0.010, 0.020, 0.050)])
    cpu = advice.device("CPU")
    f16 = cpu.verdict("mixed_float16")
    assert f16.verdict is SLOW and f16.measured == pytest.approx(0.5)
    assert "float16 was 0.50x float32 here" in f16.reason and "keep float32" in f16.reason
    assert cpu.verdict("mixed_bfloat16").measured == pytest.approx(0.2)
    assert cpu.verdict("float32").verdict is R and advice.run_policy == "float32"
    # A CPU that the rules doubt, but where bfloat16 measured 2.5x: measured wins.
    arm = detect_hardware(machine(cpu=cpu_from(GRAVITON3, "aarch64")))
    advice = advise(arm, [_measured("CPU", 0.010, 0.0105, 0.004)])
    assert advice.run_policy == "mixed_bfloat16"
    assert advice.device("CPU").verdict("mixed_float16").verdict is Verdict.NO_GAIN
    assert advice.device("CPU").verdict("float32").verdict is SLOW


def test_measured_gpu_cites_the_tf32_baseline_and_failures():
    report = detect_hardware(machine(H100))
    gpu = _measured("GPU:0", 0.003, 0.001, "No registered 'Conv2D' OpKernel for bfloat16",
                    baseline="TF32")
    advice = advise(report, [gpu])
    h100 = advice.device("GPU:0")
    assert h100.verdict("mixed_float16").reason.startswith("float16 was 3.00x TF32 here")
    assert h100.verdict("mixed_bfloat16").verdict is NO
    assert "No registered" in h100.verdict("mixed_bfloat16").reason
    assert advice.run_policy == "mixed_float16"


def test_measurement_never_revives_an_unsupported_policy():
    tpu = TpuInfo(True, "v4-8", 8)
    advice = advise(detect_hardware(machine(tpu=tpu)), [_measured("TPU", 0.01, 0.001, 0.002)])
    assert advice.device("TPU").verdict("mixed_float16").verdict is NO
    assert advice.run_policy == "mixed_bfloat16"


def test_advice_covers_what_users_ask_and_serializes():
    advice = advise(detect_hardware(machine(A100)))
    titles = " | ".join(t for t, _ in advice.tips)
    for topic in ("output layer float32", "multiples of 8", "learning rate", "TF32", "XLA"):
        assert topic.lower() in (titles + " ".join(x for _, x in advice.tips)).lower()
    assert A100[0] in dict(advice.tips)["TF32 is the real float32 baseline on Ampere and newer"]
    data = advice.to_dict()
    assert (data["run"]["device"], data["run"]["policy"]) == ("GPU:0", "mixed_float16")
    assert data["run"]["description"] == f"{A100[0]}, compute capability 8.0"
    assert "Tensor Cores" in data["run"]["reason"]
    assert {v["verdict"] for d in data["devices"] for v in d["verdicts"]} <= {
        v.value for v in Verdict}


def test_a_measurement_stopped_early_keeps_the_rules_for_what_it_missed():
    report = detect_hardware(machine(H100))
    only_float32 = DeviceMeasurement("GPU:0", "TF32", True, (
        KernelResult("matmul", "float32", "matmul", 1e12, 0.01, 5),))
    h100 = advise(report, [only_float32]).device("GPU:0")
    assert verdicts(h100) == (SLOW, R, R) and h100.default == "mixed_float16"
    assert h100.verdict("mixed_float16").measured is None
    nothing = DeviceMeasurement("CPU", "float32", False, (), stopped=True)
    amx = advise(detect_hardware(machine(cpu=cpu_from(SAPPHIRE_RAPIDS))), [nothing])
    assert amx.run_policy == "mixed_bfloat16"
    assert "measured" not in amx.device("CPU").verdict("float32").reason


def test_a_half_type_that_fails_on_one_kernel_is_not_recommended():
    results = (
        KernelResult("matmul", "float32", "m", 1e9, 0.010, 5),
        KernelResult("matmul", "bfloat16", "m", 1e9, 0.004, 5),
        KernelResult("conv", "float32", "c", 1e9, 0.010, 5),
        KernelResult("conv", "bfloat16", "c", 1e9, None, error="no bfloat16 Conv2D kernel"),
    )
    arm = detect_hardware(machine(cpu=cpu_from(GRAVITON3, "aarch64")))
    cpu = advise(arm, [DeviceMeasurement("CPU", "float32", False, results)]).device("CPU")
    bf16 = cpu.verdict("mixed_bfloat16")
    assert bf16.verdict is NO
    assert bf16.reason == ("bfloat16 failed here: conv: no bfloat16 Conv2D kernel "
                           "(matmul 2.50x ran)")
    assert cpu.default == "float32"


@pytest.mark.parametrize(("f16", "bf16", "default"), [
    (0.0050, 0.0049, "mixed_float16"),  # 2.00x vs 2.04x: noise, the GPU's preference wins
    (0.0050, 0.0040, "mixed_bfloat16"),  # 2.00x vs 2.50x: bfloat16 really is faster
])
def test_close_measurements_do_not_flip_the_default(f16, bf16, default):
    report = detect_hardware(machine(A100))
    advice = advise(report, [_measured("GPU:0", 0.010, f16, bf16, baseline="TF32")])
    assert advice.run_policy == default


def test_a_first_comparison_sets_the_best_half_precision_against_float32():
    """A fresh install's first Run compares a half precision with float32 whatever is
    recommended: the recommended one where it is half, else the best verdict's."""
    from mpstudio.engine.hardware.advisor import (
        Advice,
        DeviceAdvice,
        PolicyVerdict,
        best_half_policy,
    )
    from mpstudio.engine.hardware.verdict_rules import Verdict

    def advice(run_policy: str, *verdicts: PolicyVerdict) -> Advice:
        device = DeviceAdvice("CPU", "a CPU", verdicts, run_policy, "")
        return Advice((device,), "CPU", "a CPU", run_policy, "", ())

    f16_slower = PolicyVerdict("mixed_float16", Verdict.SLOWER, "", 0.2)
    bf16_no_gain = PolicyVerdict("mixed_bfloat16", Verdict.NO_GAIN, "", 0.98)
    bf16_slower = PolicyVerdict("mixed_bfloat16", Verdict.SLOWER, "", 0.6)
    assert best_half_policy(advice("float32", f16_slower, bf16_no_gain)) == "mixed_bfloat16"
    assert best_half_policy(advice("float32", f16_slower, bf16_slower)) == "mixed_bfloat16"
    assert best_half_policy(advice("mixed_float16", f16_slower)) == "mixed_float16"
    unsupported = PolicyVerdict("mixed_float16", Verdict.UNSUPPORTED, "")
    assert best_half_policy(advice("float32", unsupported)) == ""
