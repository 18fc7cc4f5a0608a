"""The payoff prediction: layer costs counted by hand, the device table, the regimes
(dispatch-bound, compute-bound), and the H200's measured speedups within 0.25."""

from __future__ import annotations

import json

import keras
import pytest

from mpstudio.engine.precision import policy_scope
from mpstudio.engine.prediction.device_rates import gpu_rates, without_tf32
from mpstudio.engine.prediction.devices import UnknownDevice, resolve_device
from mpstudio.engine.prediction.layer_costs import model_costs
from mpstudio.engine.prediction.predict import (
    FLOAT8,
    FLOAT16,
    FLOAT32,
    NO_GAIN,
    CostedModel,
    costed_models,
    larger_batch,
    predict,
    predict_costed,
)
from mpstudio.engine.prediction.prediction_text import precision_line

from support.paths import ROOT

CALIBRATION = ROOT / "benchmarks" / "gpu_calibration"
IMAGES = ((32, 32, 3), 10, 1 / 255)


def test_dense_and_attention_flops_by_hand():
    with policy_scope("mixed_float16"):
        inputs = keras.Input((16, 32))
        x = keras.layers.Dense(64, name="wide")(inputs)
        x = keras.layers.MultiHeadAttention(4, 8, name="attention")(x, x)
        out = keras.layers.Activation("softmax", dtype="float32", name="head")(x)
        model = keras.Model(inputs, out)
    costs = {c.name: c for c in model_costs(model)}
    assert costs["wide"].flops == 2 * 16 * 32 * 64  # 16 rows of 32 -> 64
    # q, k, v (64 -> 4x8) and the output (4x8 -> 64) over 16 tokens, then the scores and
    # the weighted values: 4 heads x 16 x 16 x 8 each
    projections = 4 * 2 * 16 * 64 * 32
    assert costs["attention"].flops == projections + 2 * 4 * 16 * 16 * (8 + 8)
    assert costs["wide"].dtype == "float16" and costs["head"].dtype == "float32"
    assert costs["wide"].tensor_core_sizes


def test_unaligned_and_pinned_layers_lower_the_half_share():
    h200 = gpu_rates("NVIDIA H200")
    aligned = predict("mlp", (784,), 10, 256, h200).predictions[FLOAT16]
    # 10 classes: the logits layer (1024 -> 10) cannot use Tensor Cores; a pinned layer
    # computes in float32: each lowers the share of half-type arithmetic
    pinned = predict("mlp", (784,), 10, 256, h200,
                     float32_layers=["dense_1024"]).predictions[FLOAT16]
    assert 0.95 < aligned.half_share < 1.0
    assert pinned.half_share < 0.05
    assert pinned.speedup < aligned.speedup + 1e-9


def test_a_short_step_is_dispatch_bound_and_gains_nothing():
    """The mlp at batch 64 on an H200: launches, not arithmetic, make the step."""
    prediction = predict("mlp", *IMAGES[:2], 64, gpu_rates("H200"), IMAGES[2])
    for name in ("mixed_float16", "mixed_bfloat16"):
        p = prediction.predictions[name]
        assert p.bound == "dispatch"
        assert p.speedup < NO_GAIN[1]
        assert "dispatch-bound" in precision_line(prediction, name)


def test_a_convolution_at_a_large_batch_gains_and_a_larger_batch_is_suggested():
    h200 = gpu_rates("H200")
    models = costed_models("cnn", *IMAGES[:2], h200, IMAGES[2])
    small = predict_costed(models, "cnn", 128, h200)
    large = larger_batch(models, small, h200)
    assert large is not None and large.batch_size > 128
    assert large.best_half().speedup > 1.5 > small.best_half().speedup
    assert large.best_half().bound != "dispatch"


def test_float8_only_where_the_device_has_it_and_tf32_is_the_baseline_from_ampere():
    a100 = predict("mlp", (64,), 10, 512, gpu_rates("NVIDIA A100-SXM4-80GB"))
    assert FLOAT8 not in a100.predictions and a100.baseline == "TF32"
    v100 = predict("cnn", *IMAGES[:2], 2048, gpu_rates("Tesla V100-SXM2-16GB"), IMAGES[2])
    assert v100.baseline == "float32" and "mixed_bfloat16" in v100.predictions
    # no bfloat16 Tensor Cores before Ampere: where compute bounds the step, float16 wins
    assert v100.predictions["mixed_bfloat16"].speedup < v100.predictions[FLOAT16].speedup
    assert FLOAT8 in predict("mlp", (64,), 10, 512, gpu_rates("L40S")).predictions


def test_true_float32_makes_the_gain_larger_than_against_tf32():
    h200 = gpu_rates("H200")
    tf32 = predict("cnn", *IMAGES[:2], 2048, h200, IMAGES[2])
    plain = predict("cnn", *IMAGES[:2], 2048, without_tf32(h200), IMAGES[2])
    assert plain.baseline == "float32"
    assert plain.predictions[FLOAT16].speedup > tf32.predictions[FLOAT16].speedup


def test_unknown_device_names_the_known_ones():
    with pytest.raises(UnknownDevice, match="H200"):
        resolve_device("Voodoo 5")
    assert resolve_device("nvidia h100 pcie").name == "H100 PCIe"
    assert resolve_device("NVIDIA H100 80GB HBM3").name == "H100 SXM"
    assert resolve_device("NVIDIA GeForce RTX 4090").fp8


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (CALIBRATION / name).read_text().splitlines()
            if '"template"' in line and '"ms_per_step"' in line]


def _wide_mlp(precision: str) -> CostedModel:
    """The reference's Dense 8192 x 2 model (float8's width claim), built as it was."""
    from mpstudio.engine.float8 import keras_policy, quantize_float8
    from mpstudio.engine.templates.model_input import input_scaling, model_input

    with policy_scope(keras_policy(precision)), input_scaling(IMAGES[2]):
        inputs, x = model_input(IMAGES[0])
        x = keras.layers.Flatten()(x)
        x = keras.layers.Dense(8192, activation="relu")(x)
        x = keras.layers.Dense(8192, activation="relu")(x)
        x = keras.layers.Dense(IMAGES[1])(x)
        model = keras.Model(inputs, keras.layers.Activation("softmax", dtype="float32")(x))
    if precision == FLOAT8:
        quantize_float8(model)
    return CostedModel(precision, tuple(model_costs(model)), lambda batch: 0)


@pytest.mark.slow
def test_the_h200s_measured_speedups_within_a_quarter():
    """Every speedup over TF32 measured on a real H200 (mpstudio's own templates, Keras on
    XLA), predicted from the table and the layers: the shared reference's figures
    (batch 2048) within 0.25 each, and the figures measured since (batch 256 and 1024,
    float8) within 0.2 on average."""
    reference = _rows("h200_reference_2048.jsonl")
    since = _rows("h200_2026-11-27.jsonl")
    h200 = gpu_rates("NVIDIA H200")
    ms = {(r["template"], r["precision"], r["batch"]): r["ms_per_step"]
          for r in reference + since}
    errors: dict[tuple[str, str, int], float] = {}
    for template in sorted({t for t, _, _ in ms}):
        if template == "wide_mlp":
            models = [_wide_mlp(p) for p in (FLOAT32, "mixed_bfloat16", FLOAT8)]
        else:
            models = costed_models(template, *IMAGES[:2], h200, IMAGES[2])
        for (t, precision, batch), step_ms in ms.items():
            base = ms.get((t, FLOAT32, batch))
            if t != template or precision in (FLOAT32, "float32_highest") or base is None:
                continue
            predicted = predict_costed(models, t, batch, h200).predictions[precision]
            errors[(t, precision, batch)] = predicted.speedup - base / step_ms
    shared = {(r["template"], r["precision"], r["batch"]) for r in reference}
    assert len(shared & errors.keys()) == 9
    assert all(abs(errors[k]) <= 0.25 for k in shared & errors.keys()), errors
    mean = sum(abs(e) for e in errors.values()) / len(errors)
    assert mean <= 0.2, (mean, errors)


def test_the_advisor_promises_only_what_the_users_model_can_keep():
    """An H100 (injected: what TensorFlow and NVML would report): without a model the
    rule quotes the table's peak ratio, never "several times"; with the digits mlp at
    batch 128 the prediction says no gain (dispatch-bound); with the cnn on 32x32 images
    at 2048 it recommends mixed precision, with the predicted figure."""
    from mpstudio.engine.hardware.check import run_hardware_check
    from mpstudio.engine.hardware.verdict_rules import Verdict
    from mpstudio.engine.prediction.for_hardware import Workload

    from support.machines import H100, machine

    bare = run_hardware_check(sources=machine(H100)).advice.device("GPU:0")
    reason = bare.verdict("mixed_float16").reason
    assert "several times" not in reason and "2.0x TF32" in reason
    small = run_hardware_check(sources=machine(H100), workload=Workload())
    gpu = small.advice.device("GPU:0")
    assert small.predictions[0].prediction.device == "H100 SXM"
    for policy in ("mixed_float16", "mixed_bfloat16"):
        verdict = gpu.verdict(policy)
        assert verdict.verdict in (Verdict.NO_GAIN, Verdict.SLOWER), verdict
        assert "dispatch-bound" in verdict.reason and "batch 128" in verdict.reason
    # 64 inputs, 1024 units: too small for an H100 at any batch
    assert small.predictions[0].larger is None
    large = run_hardware_check(sources=machine(H100), workload=Workload(
        "cnn", 2048, (32, 32, 3), 10, 1 / 255)).advice.device("GPU:0")
    assert large.verdict("mixed_float16").verdict is Verdict.RECOMMENDED
    assert large.verdict("mixed_float16").measured > 1.4
    assert "predicted for cnn at batch 2048" in large.verdict("mixed_float16").reason
    assert small.to_dict()["predictions"][0]["predictions"]["float8"]["speedup"] > 0


def test_the_command_predicts_a_device_that_is_not_here(run_cli):
    code, out, err = run_cli("predict", "--template", "transformer", "--batch-size", "256",
                             "--input-shape", "32,32,3", "--device", "NVIDIA H200", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert (data["device"], data["template"], data["batch_size"]) == ("H200", "transformer",
                                                                      256)
    assert data["baseline"] == "TF32"
    assert set(data["predictions"]) == {"float32", "mixed_float16", "mixed_bfloat16", "float8"}
    for name, p in data["predictions"].items():
        assert p["examples_per_s"] > 0 and p["peak_bytes"] > 0
        if name != "float32":
            assert p["speedup_low"] < p["speedup"] < p["speedup_high"]
    code, out, err = run_cli("predict", "--template", "cnn", "--batch-size", "128",
                             "--input-shape", "32,32,3", "--device", "A100")
    assert code == 0, err
    assert "Predicted on A100 40GB at batch 128" in " ".join(out.split())
    assert "float8" not in out and "mixed_bfloat16 on A100 40GB at batch 128" in out


@pytest.mark.parametrize(("args", "message"), [
    (("--device", "Voodoo 5"), "no rates for a GPU called 'Voodoo 5'"),
    (("--input-shape", "32,abc,3"), "--input-shape takes positive sizes"),
    (("--input-shape", "32,-1,3"), "--input-shape takes positive sizes"),
    (("--batch-size", "0"), "--batch-size must be a positive whole number"),
    (("--dataset", "digits", "--input-shape", "8,8"), "not both"),
])
def test_bad_arguments_get_one_line_and_exit_2(run_cli, args, message):
    code, out, err = run_cli("predict", *args)
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_template_that_does_not_fit_the_data_is_named(run_cli):
    code, _, err = run_cli("predict", "--template", "cnn", "--input-shape", "64",
                           "--device", "H100")
    assert code == 1 and "template 'cnn' takes" in err and "Traceback" not in err


def test_an_unknown_device_is_said_in_a_real_process():
    """The error is printed after TensorFlow's quiet start, where the terminal sees it."""
    import os
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "mpstudio", "predict", "--device", "Voodoo"],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "MPSTUDIO_LANG": "en"})
    assert done.returncode == 2 and done.stdout == ""
    assert "mpstudio predict: error: no rates for a GPU called 'Voodoo'" in done.stderr


def test_the_windows_check_predicts_the_setups_model(tmp_path):
    """The window sends its setup with the hardware check: the verdicts of a device it
    did not measure come from that model (above), and data it cannot read leaves them
    rule-based rather than failing the check."""
    from mpstudio.engine.prediction.for_hardware import Workload
    from mpstudio.engine.service.job_table import _workload
    from mpstudio.engine.spec import RunSpec

    assert _workload(RunSpec(template="cnn", batch_size=256)) == Workload(
        "cnn", 256, (8, 8, 1), 10, 1 / 16)
    assert _workload(RunSpec(dataset=str(tmp_path / "missing.npz"))) is None
    assert _workload(None) is None
