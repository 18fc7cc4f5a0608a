"""float8 runs: Keras 3 quantize("float8") on the Dense layers of a mixed_bfloat16 model,
offered where the GPU has float8 matmuls (8.9+), simulated on the CPU only when asked."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap

import pytest

from mpstudio.engine.float8 import SIMULATE_ENV, device_problem
from mpstudio.engine.hardware.advisor import advise
from mpstudio.engine.hardware.detect import detect_hardware
from mpstudio.engine.hardware.verdict_rules import Verdict
from mpstudio.engine.trainer.compare import baseline_spec

from support.machines import A100, H100, RTX_4090, machine

L4 = ("NVIDIA L4", (8, 9), 24)


@pytest.mark.parametrize(("gpu", "verdict"), [
    (H100, Verdict.MEASURE), (RTX_4090, Verdict.MEASURE), (L4, Verdict.MEASURE),
    (A100, Verdict.UNSUPPORTED)])
def test_the_advisor_offers_float8_from_compute_capability_8_9(gpu, verdict):
    advice = advise(detect_hardware(machine(gpu)))
    float8 = advice.device("GPU:0").verdict("float8")
    assert float8.verdict is verdict
    if verdict is Verdict.UNSUPPORTED:
        assert "compute capability 8.9 or newer" in float8.reason and "8.0" in float8.reason
    else:
        assert "hidden size 1024" in float8.reason
    assert advice.run_policy != "float8"  # never a device's default


def test_the_cpu_has_no_float8():
    advice = advise(detect_hardware(machine()))
    float8 = advice.device("CPU").verdict("float8")
    assert float8.verdict is Verdict.UNSUPPORTED
    assert float8.reason.startswith("float8 matmuls need a GPU of compute capability 8.9")
    assert "float8" in {v["policy"] for v in advice.to_dict()["devices"][0]["verdicts"]}


def test_a_run_refuses_other_devices_unless_simulation_is_asked_for():
    assert device_problem("GPU", [(9, 0)], "GPU:0 H100", {}) is None
    assert "8.9 or newer" in device_problem("GPU", [(8, 0)], "GPU:0 A100", {})
    assert SIMULATE_ENV in device_problem("CPU", [], "CPU (x86_64, 2 cores)", {})
    assert device_problem("CPU", [], "CPU", {SIMULATE_ENV: "1"}) is None


def test_float8_is_compared_with_mixed_bfloat16(tiny_spec):
    base = baseline_spec(tiny_spec.replace(precision="float8"))
    assert base.precision == "mixed_bfloat16" and base.loss_scaling_mode == "off"
    assert baseline_spec(tiny_spec.replace(precision="mixed_float16")).precision == "float32"


def test_a_float8_run_trains_on_the_cpu_and_is_stored_as_float8(tiny_spec, monkeypatch):
    monkeypatch.setenv(SIMULATE_ENV, "1")
    from mpstudio.engine.events import CollectingReporter, RunStarted
    from mpstudio.engine.run_session import train_session

    spec = tiny_spec.replace(precision="float8", steps=3, validation_split=0.0)
    reporter = CollectingReporter()
    session = train_session(spec, reporter)
    result = session.results[0]
    assert result.ok
    dense = [layer for layer in result.model.layers if type(layer).__name__ == "Dense"]
    assert dense and all(layer.quantization_mode == "float8" for layer in dense)
    assert all(layer.dtype_policy.name == "float8_from_mixed_bfloat16" for layer in dense)
    assert all(layer.compute_dtype == "bfloat16" for layer in dense)
    assert math.isfinite(result.summary.final_loss)
    started = reporter.of_type(RunStarted)[0]
    assert started.label == "float8"
    assert any(w.startswith("float8 layers (2)") for w in result.warnings)
    assert any("unlikely to be faster" in w for w in result.warnings)  # 1024 wide
    float8_rows = [li.name for li in started.model.layers if li.quantized == "float8"]
    assert float8_rows == [layer.name for layer in dense]
    stored = session.stored[0]
    assert (stored.row.precision, stored.row.label) == ("float8", "float8")
    assert stored.spec["precision"] == "float8"


def test_a_float8_run_refuses_the_cpu_with_the_reason(tiny_spec, monkeypatch):
    monkeypatch.delenv(SIMULATE_ENV, raising=False)
    from mpstudio.engine.events import CollectingReporter
    from mpstudio.engine.trainer.runner import RunSetupError, run

    with pytest.raises(RunSetupError, match=r"compute capability 8\.9 or newer"):
        run(tiny_spec.replace(precision="float8", steps=1), CollectingReporter())


def test_the_cli_refuses_float8_on_the_cpu_with_the_reason(monkeypatch):
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != SIMULATE_ENV}
    proc = subprocess.run(
        [sys.executable, "-m", "mpstudio", "train", "--dataset", "digits", "--template",
         "mlp", "--precision", "float8", "--steps", "1"],
        capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode != 0
    assert "float8 matmuls need a GPU of compute capability 8.9 or newer" in proc.stderr


def test_the_window_greys_float8_out_where_it_is_not_supported(qtbot):
    from mpstudio.ui.setup.setup_panel import SetupPanel
    from mpstudio.ui.setup.verdict_marks import verdict_marks

    panel = SetupPanel()
    qtbot.addWidget(panel)
    index = panel.precision.findData("float8")
    item = panel.precision.model().item(index)
    panel.set_verdicts(verdict_marks(advise(detect_hardware(machine())), "CPU"), "CPU")
    assert not item.isEnabled()
    assert "compute capability 8.9" in panel.precision.itemData(index, 3)  # ToolTipRole
    panel.set_verdicts(verdict_marks(advise(detect_hardware(machine(H100))), "GPU:0"), "GPU:0")
    assert item.isEnabled()
    panel.precision.setCurrentIndex(index)
    assert panel.baseline.text() == "Compare with mixed_bfloat16"
    assert panel.loss_scaling.explanation.text().startswith("Not needed under float8")
    # TF32 is float32's math: a float8 comparison's baseline (mixed_bfloat16) ignores it
    panel.baseline_math.setCurrentIndex(panel.baseline_math.findData("tf32"))
    assert not panel.baseline_math.isEnabled()
    assert panel.compare_options().baseline == "auto"
    panel.precision.setCurrentIndex(panel.precision.findData("mixed_float16"))
    panel.baseline.setChecked(True)
    assert panel.baseline_math.isEnabled() and panel.compare_options().baseline == "tf32"


def test_a_float8_comparison_refuses_a_float32_math_for_its_baseline():
    from mpstudio.engine.spec import RunSpec
    from mpstudio.engine.trainer.compare_options import comparison_problems

    spec = RunSpec(precision="float8")
    assert comparison_problems(spec, 1, "auto") == []
    (problem,) = comparison_problems(spec, 1, "tf32")
    assert "float8 is compared with mixed_bfloat16: leave it auto" in problem


FLOAT8_MIRRORED = textwrap.dedent("""
    import json, os
    os.environ["MPSTUDIO_SIMULATE_FLOAT8"] = "1"
    from mpstudio.engine.distribute.placement import split_cpu
    split_cpu(2)
    import numpy as np
    from mpstudio.engine.events import CollectingReporter
    from mpstudio.engine.spec import Distribution, RunSpec
    from mpstudio.engine.trainer import runner
    out = []
    for loop in ("fit", "custom"):
        spec = RunSpec(precision="float8", loop=loop, steps=4, batch_size=16,
                       log_every_steps=1, validation_split=0.0,
                       distribute=Distribution(strategy="mirrored"))
        result = runner.run(spec, CollectingReporter())
        differ, float8 = [], []
        for weight in result.model.weights:
            copies = [c.numpy() for c in weight.value.values]
            if weight.overwrite_with_gradient:
                float8.append(weight.path)
            if not all(np.array_equal(copies[0], c) for c in copies[1:]):
                differ.append(weight.path)
        out.append({"loop": loop, "status": result.summary.status,
                    "replicas": result.summary.replicas, "steps": result.summary.steps_done,
                    "float8": float8, "differ": differ})
    print(json.dumps(out))
""")


def test_float8_scales_and_histories_stay_identical_on_every_replica():
    """Issue 34: float8's scale and amax-history variables are assigned per replica
    (aggregation NONE, overwritten in replica context), so under a mirrored strategy
    their copies drifted apart within 4 steps in both loops, and a save kept replica
    0's. Two logical CPU devices, float8 simulated: after 4 steps every copy of every
    weight is identical on both replicas."""
    done = subprocess.run([sys.executable, "-c", FLOAT8_MIRRORED], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    runs = json.loads(done.stdout.strip().splitlines()[-1])
    assert [run["loop"] for run in runs] == ["fit", "custom"]
    for run in runs:
        assert (run["status"], run["replicas"], run["steps"]) == ("finished", 2, 4), run
        # 6 per float8 layer: the inputs', the kernel's and the output gradient's
        assert len(run["float8"]) == 12 and any("amax_history" in p for p in run["float8"])
        assert run["differ"] == [], run["loop"]
