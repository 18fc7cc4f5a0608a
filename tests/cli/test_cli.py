"""The mpstudio command: train/compare, JSON output, configs, clean errors."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from mpstudio.cli import main
from mpstudio.engine.hardware.detect_cpu import onednn_enabled
from mpstudio.engine.spec import RunSpec
from mpstudio.engine.spec_checks import load_spec

from support.commands import TENSORFLOW_NOISE, mpstudio


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["train", "--dataset", "imagenet"], "unknown dataset 'imagenet'; choose one of digits"),
        (["train", "--template", "vgg"], "unknown template 'vgg'; choose from: mlp, mlp_bn"),
        (["compare", "--precision", "fp16"], "unknown precision 'fp16'; choose from: float32"),
        (["train", "--batch-size", "0"], "batch size must be a positive integer, got 0"),
        (["train", "--epochs", "two"], "argument --epochs: invalid int value: 'two'"),
        (["train", "--loss-scaling", "fixed", "--scale-factor", "-1"],
         "fixed loss scale factor must be a positive number no larger than float32's "
         "maximum (3.4e38), got -1.0"),
        (["train", "--synthetic-shape", "a,b"], "synthetic shape must look like 32,32,3"),
        (["compare", "--precision", "float32"], "compare needs a mixed precision"),
        (["train", "--config", "/nonexistent/run.toml"], "does not exist"),
        (["fly"], "invalid choice: 'fly'"),
        (["train", "--seed", "4294967296"], "seed must be an integer from 0 to 4294967295"),
        (["train", "--initial-scale", "0"], "initial loss scale must be a positive number"),
        (["train", "--save-config", "/nonexistent/dir/run.toml"], "cannot write"),
        (["train", "--dataset", "synthetic", "--synthetic-samples", "10"],
         "synthetic samples (10) are fewer than one batch of 128"),
    ],
)
def test_bad_arguments_print_one_line_and_exit_2(capsys, args, expected):
    with pytest.raises(SystemExit) as exit_info:
        code = main(args)
        raise SystemExit(code)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_train_json_in_a_real_process(tmp_path):
    config = tmp_path / "run.toml"
    proc = mpstudio("train", "--dataset", "digits", "--template", "mlp", "--precision",
                    "float32", "--epochs", "2", "--batch-size", "64", "--json",
                    "--save-config", str(config))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert [n for n in TENSORFLOW_NOISE if n in proc.stderr] == [], proc.stderr
    payload = json.loads(proc.stdout)
    summary = payload["summary"]
    assert summary["status"] == "finished" and summary["epochs_done"] == 2
    assert summary["steady_examples_per_sec"] > 0 and 0 < summary["final_val_accuracy"] <= 1
    assert len(payload["epochs"]) == 2 and payload["failure"] is None
    assert load_spec(config) == RunSpec.from_dict(payload["spec"])


@pytest.mark.parametrize("log_level", ["3", "2", "0"])
def test_tensorflow_logs_show_only_when_asked_for(log_level):
    """TensorFlow prints its start-up lines whatever the level: a user's level 3 must not
    let them through; 0 (as `mpstudio --help` says) does. mpstudio's own warnings show at
    every level (loss scaling under mixed_bfloat16 always warns, on any device)."""
    proc = mpstudio("train", "--steps", "2", "--batch-size", "64", "--epochs", "1",
                    "--precision", "mixed_bfloat16", "--loss-scaling", "dynamic",
                    log_level=log_level, env_extra={"CUDA_VISIBLE_DEVICES": ""})
    assert proc.returncode == 0, proc.stderr
    assert "warning: loss scaling has no benefit under mixed_bfloat16" in proc.stderr
    assert "mixed_bfloat16: finished" in proc.stdout  # the results: stdout
    shown = [line for line in TENSORFLOW_NOISE if line in proc.stderr]
    if log_level != "0":
        assert shown == [], proc.stderr
    elif onednn_enabled(os.environ, platform.machine(), platform.system()):
        # TensorFlow announces its oneDNN kernels through absl before absl is set up
        assert "absl::InitializeLog" in shown, proc.stderr


def test_config_file_with_overrides(tmp_path, capsys):
    config = tmp_path / "run.toml"
    RunSpec(template="mlp_bn", precision="float32", batch_size=64, epochs=3).save(config)
    assert main(["train", "--config", str(config), "--epochs", "1", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["spec"]["template"] == "mlp_bn" and payload["spec"]["epochs"] == 1
    assert payload["summary"]["epochs_done"] == 1


def test_compare_prints_the_side_by_side_table(capsys):
    code = main(["compare", "--dataset", "digits", "--template", "mlp", "--epochs", "1",
                 "--batch-size", "64"])
    assert code == 0
    out = capsys.readouterr().out
    for row in ("steady examples/s", "time to first step", "final val accuracy",
                "overflow (skipped) steps", "peak device memory", "loss-curve gap", " pp"):
        assert row in out
    assert "float32 baseline" in out and "mixed_float16" in out
    verdicts = ("Worth it", "Not worth it", "Slower on this hardware", "No real speed gain",
                "Too short to time", "Faster, but the accuracy cost can't be told")
    assert sum(v in out for v in verdicts) == 1


def test_compare_json(capsys):
    assert main(["compare", "--precision", "mixed_bfloat16", "--epochs", "1",
                 "--batch-size", "64", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    base, mixed = payload["runs"]
    assert base["summary"]["precision"] == "float32"
    assert mixed["summary"]["precision"] == "mixed_bfloat16"
    assert mixed["summary"]["loss_scale_mode"] == "off"
    assert payload["speedup"] > 0
    assert payload["speedup"] == payload["card"]["speedup"]["median"]
    assert payload["verdict"] == payload["card"]["verdict"]["sentence"]
    low, high = payload["accuracy_interval_pp"]  # the paired test's 95% interval
    assert low <= payload["card"]["accuracy"]["delta_pp"] <= high
    assert payload["accuracy_outcome"] in ("loss", "same", "no_loss", "unclear")
    # Both runs are in the history under the ids the JSON gives.
    assert main(["runs", "show", str(mixed["id"]), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["summary"]["steady_examples_per_sec"] == mixed["summary"][
        "steady_examples_per_sec"]


def test_a_diverged_run_exits_1_with_the_reason(capsys):
    code = main(["train", "--precision", "mixed_float16", "--loss-scaling", "fixed",
                 "--scale-factor", "1e30", "--epochs", "2", "--batch-size", "64", "--json"])
    assert code == 1
    payload = json.loads(capsys.readouterr().out)  # NaN became null: still valid JSON
    assert payload["summary"]["status"] == "diverged"
    assert "diverged" in payload["failure"]


def test_ctrl_c_handler_is_restored_after_a_run(capsys):
    import signal

    before = signal.getsignal(signal.SIGINT)
    assert main(["train", "--steps", "2", "--batch-size", "64", "--json"]) == 0
    assert signal.getsignal(signal.SIGINT) is before


def test_ctrl_c_stops_cleanly_and_prints_the_summary():
    import signal

    env = dict(os.environ)
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "mpstudio", "train", "--epochs", "500", "--batch-size", "64"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    try:
        for line in proc.stderr:
            if line.startswith("epoch 1/500"):
                break
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    assert "stopping after this step" in err and "mixed_float16: stopped" in out
    assert "epoch 500/500" not in err


@pytest.mark.parametrize("when", ["during the TensorFlow import", "twice during training"])
def test_an_interrupt_that_aborts_prints_one_line_and_exits_130(when, tmp_path):
    """The README promises a second Ctrl-C aborts; it printed a traceback (and so did
    one during the TensorFlow import)."""
    import signal
    import time

    env = dict(os.environ, MPSTUDIO_HISTORY=str(tmp_path / "h.sqlite3"))
    # steps of a few hundred ms, so the second Ctrl-C comes while the first waits for one
    # float32: float16 convolutions on an AVX512-FP16 CPU take TensorFlow's oneDNN 100x
    # longer (a step of minutes, not a few hundred ms). Epochs of 4 steps: "epoch 1/500"
    # is printed as the first epoch ends (the default 8192 examples made that 32 steps,
    # some 40 s of CPU, before the test could begin).
    slow = ["--dataset", "synthetic", "--synthetic-shape", "32,32,3", "--template", "resnet",
            "--batch-size", "256", "--precision", "float32", "--synthetic-samples", "1280"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "mpstudio", "train", "--epochs", "500", *slow],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    try:
        if when == "twice during training":
            for line in proc.stderr:
                if line.startswith("epoch 1/500"):
                    break
            time.sleep(1.0)  # past the first step's tracing
            proc.send_signal(signal.SIGINT)
            for line in proc.stderr:  # the first one is handled: the run is stopping
                if line.startswith("stopping after this step"):
                    break
        else:  # TensorFlow's library is being loaded: the import has begun. (A fixed
            # sleep sent the signal before Python's handler existed on a loaded machine;
            # before the exec, /proc shows the forked copy of this process, TF and all.)
            deadline = time.monotonic() + 60
            proc_dir = Path(f"/proc/{proc.pid}")
            while time.monotonic() < deadline and not (
                    b"mpstudio" in (proc_dir / "cmdline").read_bytes()
                    and "libtensorflow" in (proc_dir / "maps").read_text()):
                time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err, err[-2000:]
    assert err.strip().splitlines()[-1] == "mpstudio train: error: interrupted"


@pytest.mark.parametrize("args, exit_code, words", [
    (["runs", "show", "999999"], 2, "no run #999999"),
    (["train", "--dataset", "/nowhere/d.npz"], 2, "dataset path '/nowhere/d.npz' does not exist"),
    (["runs", "list"], 1, "damaged or not an mpstudio history"),
])
def test_json_failures_still_print_one_json_document(args, exit_code, words, tmp_path, capsys,
                                                      monkeypatch):
    history = tmp_path / "h.sqlite3"
    if args == ["runs", "list"]:
        history.write_bytes(b"not a database" * 100)
    monkeypatch.setenv("MPSTUDIO_HISTORY", str(history))
    assert main([*args, "--json"]) == exit_code
    out = capsys.readouterr().out
    document = json.loads(out)
    assert document["exit_code"] == exit_code and words in document["error"]
    assert document["command"] == " ".join(args[:2]) if args[0] == "runs" else args[0]


def test_train_results_go_to_stdout_and_progress_to_stderr(capsys):
    """`mpstudio train ... > results.txt` must keep the results: the summary table is on
    stdout; epoch lines and warnings stay on stderr."""
    assert main(["train", "--epochs", "1", "--batch-size", "64", "--precision",
                 "float32"]) == 0
    captured = capsys.readouterr()
    assert "steady examples/s" in captured.out and "float32: finished" in captured.out
    assert "epoch 1/1" in captured.err and "steady examples/s" not in captured.err
