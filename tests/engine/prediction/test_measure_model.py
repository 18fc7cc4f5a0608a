"""Predictions a user can act on (issue 43): the user's model measured where its device
is present, through the run path a comparison takes, and the verdicts following the
measurement; a .keras model predicted on its own input where no data fits it."""

from __future__ import annotations

import pytest

from mpstudio.engine.prediction.measure_model import measure_model
from mpstudio.engine.prediction.measurement import (
    ModelMeasurement,
    PrecisionMeasurement,
    measured_payoff,
    with_speedups,
)
from mpstudio.engine.spec import RunSpec

from support.crafted_model_files import small_classifier

HALVES = ("mixed_float16", "mixed_bfloat16")
DIGITS = ((8, 8, 1), 10)


def test_the_models_speed_is_measured_under_each_precision():
    said = []
    measured = measure_model(RunSpec(template="mlp", batch_size=32), *DIGITS, seconds=0.2,
                             progress=lambda done, total, what: said.append((done, total, what)))
    assert said == [(0, 3, "mlp float32"), (1, 3, "mlp mixed_float16"),
                    (2, 3, "mlp mixed_bfloat16"), (3, 3, "done")]
    assert (measured.device, measured.batch_size, measured.stopped) == ("CPU", 32, False)
    assert [p.precision for p in measured.precisions] == ["float32", *HALVES]
    for p in measured.precisions:
        assert p.ok and p.examples_per_s > 0 and p.steps > 0 and p.windows >= 2
        assert p.low <= p.examples_per_s <= p.high and 0 <= p.spread < 2
    base = measured.get("float32")
    assert base.speedup is None
    for name in HALVES:
        p = measured.get(name)
        assert p.speedup == pytest.approx(p.examples_per_s / base.examples_per_s)
        assert p.speedup_low <= p.speedup <= p.speedup_high
    row = measured.to_dict()["precisions"]["mixed_float16"]
    assert row["speedup"] > 0 and row["steps"] > 0 and "spread" in row


def test_the_measurement_trains_through_the_comparisons_run_path(monkeypatch):
    """Each precision is a run of runner.run, on the very spec a comparison trains (its
    data, split and optimizer; float32 its baseline), or where the data is not used, on
    the spec its speed pair times (synthetic data of the model's shape), but for the step
    budget: replace the runner's attempt and the measurement goes through it."""
    from mpstudio.engine.comparison.sizing import ComparisonSize
    from mpstudio.engine.trainer import runner
    from mpstudio.engine.trainer.compare import baseline_spec
    from mpstudio.engine.trainer.speed_pair import speed_spec

    attempted = []
    real = runner._attempt

    def attempt(spec, reporter, request):
        attempted.append(spec)
        return real(spec, reporter, request)

    monkeypatch.setattr(runner, "_attempt", attempt)
    spec = RunSpec(template="mlp", batch_size=32, precision="mixed_float16")
    measured = measure_model(spec, *DIGITS, ("mixed_float16",), seconds=0.1, on_data=True)
    assert measured.data == "digits" and all(p.ok for p in measured.precisions)
    base, mixed = attempted
    assert base.replace(steps=0) == baseline_spec(spec).replace(steps=0)
    assert mixed.replace(steps=0) == spec.replace(steps=0)
    attempted.clear()
    measured = measure_model(spec, *DIGITS, ("mixed_float16",), seconds=0.1)
    assert measured.data == "" and [s.precision for s in attempted] == ["float32",
                                                                         "mixed_float16"]
    pair = speed_spec(spec, ComparisonSize(100, 32, batch_beyond_data=32, speed_steps=100),
                      *DIGITS)
    assert attempted[1].replace(steps=0) == pair.replace(steps=0, sized_from={})
    assert attempted[1].dataset == "synthetic" and attempted[1].validation_split == 0.0


def test_a_failing_precision_says_why_and_a_stop_ends_it():
    """float8 cannot run on a CPU: its row says so, float32 is still timed; a Stop after
    the first precision leaves the rest untimed."""
    spec = RunSpec(template="mlp", batch_size=32)
    measured = measure_model(spec, *DIGITS, ("float8",), seconds=0.1)
    base, float8 = measured.precisions
    assert base.ok and not float8.ok and "float8" in float8.failure
    assert measured.to_dict()["precisions"]["float8"] == {"failed": float8.failure}
    asked = []
    stopped = measure_model(spec, *DIGITS, seconds=0.1,
                            progress=lambda *args: asked.append(args),
                            should_stop=lambda: len(asked) > 1)
    assert stopped.stopped and [p.precision for p in stopped.precisions] == [
        "float32", "mixed_float16"]


def _measured_cpu(f16: float, bf16: float) -> ModelMeasurement:
    rows = [PrecisionMeasurement("float32", 1000.0, 950.0, 1050.0, 400, 2.0, 20)] + [
        PrecisionMeasurement(name, 1000.0 * x, 950.0 * x, 1050.0 * x, 400, 2.0, 20)
        for name, x in zip(HALVES, (f16, bf16), strict=True)]
    return ModelMeasurement("CPU", "CPU (x86_64, 2 cores)", "mlp", 128, (8, 8, 1), 10,
                            with_speedups(rows), 2, 2.0)


def test_the_verdicts_follow_the_measured_model_until_it_is_dropped():
    from mpstudio.engine.hardware.check import run_hardware_check
    from mpstudio.engine.hardware.verdict_rules import Verdict

    from support.machines import SAPPHIRE_RAPIDS, cpu_from, machine

    timed = _measured_cpu(0.5, 1.6)
    check = run_hardware_check(sources=machine(cpu=cpu_from(SAPPHIRE_RAPIDS)))
    from mpstudio.engine.hardware.advisor import advise

    measured = type(check)(check.report, advise(check.report, model=timed), (),
                           check.memory, model_measurement=timed)
    cpu = measured.advice.device("CPU")
    f16, bf16 = cpu.verdict("mixed_float16"), cpu.verdict("mixed_bfloat16")
    assert (f16.verdict, bf16.verdict) == (Verdict.SLOWER, Verdict.RECOMMENDED)
    assert f16.reason.startswith("measured for mlp at batch 128: 0.50x float32 here")
    assert bf16.measured == pytest.approx(1.6)
    assert "mixed_bfloat16 measured 1.60x faster" in cpu.verdict("float32").reason
    assert measured.to_dict()["model_measurement"]["precisions"]["mixed_bfloat16"][
        "speedup"] == pytest.approx(1.6)
    dropped = measured.without_model_measurement()
    assert dropped.model_measurement is None
    assert dropped.advice.device("CPU").verdict("mixed_float16").reason == \
        check.advice.device("CPU").verdict("mixed_float16").reason
    assert "0.50x float32" in measured_payoff(timed, "mixed_float16")
    assert measured_payoff(timed, "float32").startswith("mixed_bfloat16 measured on CPU")


# ----------------------------------------------------------- a model file's own input


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    return str(small_classifier(tmp_path_factory.mktemp("own") / "m.keras"))


def test_a_model_file_the_data_does_not_fit_is_predicted_on_its_own_input(model_file):
    """The window's workload and its setup preview: digits (8x8x1, 10 classes) do not
    fit a 16x16x3 five-class model, so both take the file's own input, and say so."""
    from mpstudio.engine.prediction.for_hardware import Workload
    from mpstudio.engine.service.job_requests import ModelPreviewRequest
    from mpstudio.engine.service.job_table import EngineMemory, model_preview

    spec = RunSpec(template=model_file, batch_size=64)
    workload = Workload.of_spec(spec)
    assert (workload.input_shape, workload.classes, workload.own_inputs) == ((16, 16, 3), 5,
                                                                             True)
    assert workload.input_scale == pytest.approx(1 / 255)
    assert workload.inputs_text() == "for its own input 16x16x3, 5 classes"
    fits = Workload.of_spec(spec.replace(dataset="synthetic", dataset_options={
        "shape": [16, 16, 3], "classes": 5}))
    assert not fits.own_inputs and fits.input_scale is None

    class Quiet:
        def emit(self, event): ...
        def should_stop(self): return False
        def progress(self, done, total, text): ...

    summary = model_preview(Quiet(), EngineMemory(), ModelPreviewRequest(
        model_file, (8, 8, 1), 10, "mixed_float16", 1 / 16, 64, run_spec=spec))
    assert "takes inputs of shape 16x16x3, but the data's examples are 8x8x1" in \
        summary.inputs_note
    assert "at batch 64 (for its own input 16x16x3, 5 classes)" in summary.payoff
