"""``mpstudio hw``: the report, verdicts and measurement as tables and JSON, and the
GPU memory settings it saves."""

from __future__ import annotations

import contextlib
import json
import os

import pytest

from mpstudio.cli import main
from mpstudio.engine.app_settings import GpuMemorySettings, load_settings, settings_path

from support.commands import mpstudio


def test_hw_measure_json_in_a_real_process():
    done = mpstudio("hw", "--measure", "--seconds", "0.05", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["hardware"]["cpu"]["logical_cores"] == os.cpu_count()
    cpu = next(m for m in data["measurements"] if m["device"] == "CPU")
    assert len(cpu["results"]) == 6
    assert all(r["tflops"] > 0 for r in cpu["results"] if r["dtype"] == "float32")
    verdicts = next(d for d in data["advice"]["devices"] if d["device"] == "CPU")["verdicts"]
    f16 = next(v for v in verdicts if v["policy"] == "mixed_float16")
    assert f16["measured_speedup"] == pytest.approx(cpu["speedup"]["float16"])
    assert "x float32 here" in f16["reason"]
    assert data["advice"]["run"]["policy"] in ("float32", "mixed_float16", "mixed_bfloat16")
    assert data["gpu_memory"]["settings_file"] == str(settings_path())
    assert done.stderr == ""  # no TensorFlow start-up chatter, no progress bar with --json


def test_hw_prints_readable_tables(capsys):
    assert main(["hw"]) == 0
    out = capsys.readouterr().out
    for part in ("TensorFlow ", "GPUs", "TPU: none", "CPU: ", "Precision verdicts",
                 "mixed_bfloat16", "Recommended for a run here:", "multiples of 8",
                 "hw --measure` times it"):
        assert part in out


def test_hw_measure_table(capsys):
    assert main(["hw", "--measure", "--seconds", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "Measured: forward + backward, TFLOP/s" in out
    assert "matmul 512x512x512" in out and "conv 3x3 8x32x32x64" in out
    assert "x float32 here" in out


def test_memory_settings_are_saved_and_reported(capsys):
    assert main(["hw", "--memory-growth", "on"]) == 0
    assert "growth on" in capsys.readouterr().out
    assert load_settings().gpu_memory == GpuMemorySettings(growth=True)
    assert main(["hw", "--memory-limit", "6144"]) == 0  # a limit replaces growth
    assert load_settings().gpu_memory == GpuMemorySettings(growth=False, limit_mb=6144)
    assert "limit 6144 MiB per GPU" in capsys.readouterr().out
    assert main(["hw", "--memory-limit", "none"]) == 0
    assert load_settings().gpu_memory == GpuMemorySettings()


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--memory-limit", "8GB"], "--memory-limit takes MiB or 'none', got '8gb'"),
        (["--memory-limit", "16"], "whole number of MiB >= 64"),
        (["--memory-growth", "on", "--memory-limit", "1024"], "not both"),
        (["--seconds", "0"], "--seconds must be between 0.05 and 10"),
        (["--memory-growth", "maybe"], "invalid choice: 'maybe'"),
    ],
)
def test_bad_hw_arguments_exit_2_with_one_line(capsys, args, expected):
    with pytest.raises(SystemExit) if "maybe" in args else contextlib.nullcontext():
        assert main(["hw", *args]) == 2
    assert expected in capsys.readouterr().err
    assert not settings_path().exists()


def test_a_broken_settings_file_is_named_not_replaced(capsys):
    path = settings_path()
    path.parent.mkdir(parents=True)
    path.write_text("gpu_memory = [")
    assert main(["hw", "--memory-growth", "on"]) == 2
    assert str(path) in capsys.readouterr().err
    assert path.read_text() == "gpu_memory = ["


def test_a_run_applies_saved_settings_and_survives_a_broken_file(tmp_path):
    path = settings_path()
    path.parent.mkdir(parents=True)
    path.write_text("[gpu_memory]\ngrowth = 3\n")
    done = mpstudio("train", "--steps", "2", "--batch-size", "32", "--json")
    assert done.returncode == 0, done.stderr
    assert "GPU memory: settings file" in done.stderr and "growth must be true or false" in \
        done.stderr
    assert json.loads(done.stdout)["summary"]["steps_done"] == 2


def test_growth_replaces_a_saved_limit_and_bad_values_can_be_repaired(capsys):
    assert main(["hw", "--memory-limit", "4096"]) == 0
    assert main(["hw", "--memory-growth", "on"]) == 0
    assert load_settings().gpu_memory == GpuMemorySettings(growth=True)
    settings_path().write_text("[gpu_memory]\ngrowth = true\nlimit_mb = 10\n")
    assert main(["hw", "--memory-limit", "none", "--memory-growth", "off"]) == 0
    assert "replacing what was saved" in capsys.readouterr().err
    assert load_settings().gpu_memory == GpuMemorySettings()


def test_a_settings_problem_is_printed_as_written_not_as_markup(capsys):
    """The message quotes the TOML table "[gpu_memory]", which Rich took for markup and
    swallowed."""
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[gpu_memory]\nbogus = 1\n")
    main(["hw"])
    out = " ".join(capsys.readouterr().out.split())
    assert f"settings file {path}: [gpu_memory] takes only growth, limit_mb" in out
