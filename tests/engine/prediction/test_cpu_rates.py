"""A CPU's measured rates (engine/prediction/cpu_rates.py): measured once, kept in the
cache folder for this CPU and TensorFlow, read back by every later run. The suite seeds
each test's cache folder with one session's measurement (conftest.measured_cpu_rates),
so this is where the measuring and keeping themselves are tested."""

from __future__ import annotations

import json

from mpstudio.engine.prediction.cpu_rates import _cache_path, cached_cpu_rates

DTYPES = {"float32", "float16", "bfloat16"}


def test_the_rates_are_measured_once_kept_and_read_back():
    _cache_path().unlink()  # the seeded rates: this test measures its own
    assert cached_cpu_rates(measure=False) is None  # nothing kept, nothing measured

    measured = cached_cpu_rates()
    assert measured is not None and measured.kind == "CPU"
    assert set(measured.tflops) == DTYPES and set(measured.conv_tflops) == DTYPES
    assert all(v > 0 for v in (*measured.tflops.values(), *measured.conv_tflops.values()))
    kept = json.loads(_cache_path().read_text())
    assert kept["matmul"] == measured.tflops and kept["conv"] == measured.conv_tflops

    again = cached_cpu_rates(measure=False)  # read back, not measured again
    assert again is not None
    assert (again.tflops, again.conv_tflops) == (measured.tflops, measured.conv_tflops)


def test_rates_kept_for_another_tensorflow_or_cpu_are_measured_again():
    kept = json.loads(_cache_path().read_text())  # the session's, as a user's cache holds
    assert cached_cpu_rates(measure=False) is not None
    _cache_path().write_text(json.dumps(dict(kept, key="2.0.0|64|3")))
    assert cached_cpu_rates(measure=False) is None
    _cache_path().write_text("{not json")
    assert cached_cpu_rates(measure=False) is None


def test_every_test_starts_with_the_sessions_rates(measured_cpu_rates):
    """What makes runs in the suite cheap: the seeded file is the one a run reads."""
    assert _cache_path().read_bytes() == measured_cpu_rates.read_bytes()
    assert cached_cpu_rates(measure=False) is not None
