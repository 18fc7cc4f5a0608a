"""tf.distribute runs on a CPU-only machine: mirrored over two logical CPU devices and
multi-worker between two real processes on 127.0.0.1, each in a fresh process
(the CPU split and the collectives must come before TensorFlow's first op).
TPU detection is injected."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from mpstudio.engine.distribute.cluster import ClusterError, lost_peer_message, read_cluster
from mpstudio.engine.distribute.lr_plan import LearningRatePlan
from mpstudio.engine.distribute.options import strategy_options
from mpstudio.engine.event_codec import event_to_json
from mpstudio.engine.events import CollectingReporter, EpochMetrics, RunFinished, RunStarted
from mpstudio.engine.hardware.report import TpuInfo
from mpstudio.engine.spec import Distribution, RunSpec, SpecError
from mpstudio.engine.spec_checks import spec_problems

from support.cluster import free_ports, said, tf_config, worker
from support.history_fakes import summary
from support.paths import TESTS


# ------------------------------------------------------------------ spec and plan
def test_the_distribution_spec_round_trips_and_refuses_what_cannot_run():
    spec = RunSpec(warmup_steps=20, distribute=Distribution(
        strategy="mirrored", devices=["GPU:1", "GPU:0"], lr_scaling="none", join_timeout=30.0))
    assert RunSpec.from_toml(spec.to_toml()) == spec
    bad = RunSpec(xla="on", warmup_steps=-1, distribute=Distribution(
        strategy="ring", devices=["GPU0"], lr_scaling="sqrt"))
    problems = " | ".join(spec_problems(bad))
    for part in ("unknown strategy 'ring'", "learning-rate scaling 'sqrt'", "GPU0",
                 "warmup steps"):
        assert part in problems
    xla = spec_problems(RunSpec(xla="on", distribute=Distribution(strategy="mirrored")))
    assert any("xla 'on' does not work under the mirrored" in p for p in xla)
    warnings = RunSpec(precision="mixed_float16", distribute=Distribution(strategy="tpu"))
    assert any("mixed_bfloat16 is the natural policy" in w for w in warnings.warnings())


def test_the_learning_rate_plan_is_what_the_optimizer_uses():
    import keras

    from mpstudio.engine.precision import make_optimizer

    plan = LearningRatePlan(0.001, 4, "linear", warmup_steps=8)
    assert plan.target == pytest.approx(0.004)
    assert "0.001 -> 0.004" in plan.describe() and "8 steps" in plan.describe()
    optimizer = make_optimizer(RunSpec(precision="mixed_float16"), plan)
    assert isinstance(optimizer, keras.optimizers.LossScaleOptimizer)
    config = optimizer.inner_optimizer.get_config()["learning_rate"]
    schedule = keras.optimizers.schedules.deserialize(config)  # what a saved model reloads
    assert [float(schedule(s)) for s in (0, 2, 4, 8, 100)] == pytest.approx(
        [plan.rate_at(s) for s in (0, 2, 4, 8, 100)])
    assert [plan.rate_at(s) for s in (0, 4, 8)] == pytest.approx([0, 0.002, 0.004])
    assert "not scaled" in LearningRatePlan(0.001, 2, "none", 0).describe()


def test_warmup_changes_the_learning_rate_of_a_real_run(tiny_spec):
    from mpstudio.engine.trainer import runner

    spec = tiny_spec.replace(warmup_steps=10, steps=4, learning_rate=0.01)
    result = runner.run(spec, CollectingReporter())
    optimizer = result.model.optimizer
    assert int(optimizer.iterations.numpy()) == 4
    assert float(optimizer.learning_rate) == pytest.approx(0.01 * 4 / 10)  # stated: 0 -> 0.01


# --------------------------------------------------------- options and detection
H100 = ("NVIDIA H100 80GB HBM3", (9, 0), 80)


def hardware_report(*gpus, tpu: TpuInfo | None = None):
    from mpstudio.engine.hardware.detect import detect_hardware

    from support.machines import machine

    return detect_hardware(machine(*gpus, tpu=tpu))


def test_strategies_are_offered_only_where_they_can_run():
    two = strategy_options(hardware_report(H100, H100), {})
    by_name = {o.name: o for o in two}
    assert by_name["mirrored"].available and by_name["mirrored"].replicas == 2
    assert by_name["mirrored"].devices == ("GPU:0", "GPU:1")
    assert "TF_CONFIG is not set" in by_name["multiworker"].reason
    assert "no TPU found" in by_name["tpu"].reason
    one = {o.name: o for o in strategy_options(hardware_report(H100), {})}
    assert "one GPU only" in one["mirrored"].reason
    env = {"TF_CONFIG": tf_config([1111, 2222], 1)}
    cpu = {o.name: o for o in strategy_options(hardware_report(), env)}
    assert "no GPU" in cpu["mirrored"].reason
    assert cpu["multiworker"].available and cpu["multiworker"].replicas == 2
    assert {o.name: o for o in strategy_options(None, env)}["multiworker"].reason


def test_tpu_is_offered_when_detected_and_detection_never_blocks():
    from mpstudio.engine.hardware.detect import HardwareSources, detect_hardware
    from mpstudio.engine.hardware.detect_tpu import detect_tpu

    found = TpuInfo(True, "v4-8", 4, note="found through TPU_NAME")
    tpu = {o.name: o for o in strategy_options(hardware_report(tpu=found), {})}["tpu"]
    assert tpu.available and tpu.replicas == 4 and "TPU v4-8" in tpu.devices[0]
    # A TPU name without project/zone makes the real resolver wait forever on the GCE
    # metadata server: the probe is a child process killed at the timeout.
    hang = [sys.executable, "-c", "import time; time.sleep(60)"]
    started = time.monotonic()
    report = detect_hardware(HardwareSources(tpu=lambda: detect_tpu(
        {"TPU_NAME": "my-tpu"}, probe_command=hang, timeout=1.0)))
    assert time.monotonic() - started < 20
    tpu = {o.name: o for o in strategy_options(report, {})}["tpu"]
    assert not tpu.available and "no answer in 1 s" in tpu.reason


def test_tf_config_problems_are_named_and_the_chief_is_tensorflows():
    with pytest.raises(ClusterError, match="not set"):
        read_cluster({})
    with pytest.raises(ClusterError, match="not valid JSON"):
        read_cluster({"TF_CONFIG": "{cluster"})
    with pytest.raises(ClusterError, match="index 2 is not one of the 2 worker"):
        read_cluster({"TF_CONFIG": tf_config([1, 2], 2)})
    assert read_cluster({"TF_CONFIG": tf_config([1, 2], 0)}).is_chief
    assert not read_cluster({"TF_CONFIG": tf_config([1, 2], 1)}).is_chief
    with_chief = json.dumps({"cluster": {"chief": ["h0:1"], "worker": ["h1:1"]},
                             "task": {"type": "worker", "index": 0}})
    assert not read_cluster({"TF_CONFIG": with_chief}).is_chief
    cluster = read_cluster({"TF_CONFIG": tf_config([5000, 5001], 0)})
    text = lost_peer_message("UNAVAILABLE: tasks are unhealthy: /job:worker/replica:0/task:1",
                             cluster, 12)
    assert text and "step 12" in text and "worker 1 (127.0.0.1:5001)" in text
    assert lost_peer_message("some shape error", cluster, 3) is None


def test_multiworker_without_tf_config_is_refused_at_once(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    done = subprocess.run([sys.executable, "-m", "mpstudio", "train", "--strategy",
                           "multiworker"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "TF_CONFIG is not set" in done.stderr and "Traceback" not in done.stderr


# ------------------------------------------------------------------- mirrored
MIRRORED = textwrap.dedent("""
    import json, sys
    from mpstudio.engine.distribute.placement import split_cpu
    split_cpu(2)
    from mpstudio.engine.events import CollectingReporter, LossScaleChanged, StepMetrics
    from mpstudio.engine.spec import Distribution, LossScaling, RunSpec
    from mpstudio.engine.trainer import runner
    out = []
    for precision, loop in (("float32", "fit"), ("mixed_float16", "fit"),
                            ("mixed_float16", "custom"), ("mixed_bfloat16", "fit")):
        spec = RunSpec(precision=precision, loop=loop, batch_size=32, epochs=2,
                       log_every_steps=2, learning_rate=0.002,
                       loss_scaling=LossScaling(growth_steps=5),
                       distribute=Distribution(strategy="mirrored"))
        reporter = CollectingReporter()
        result = runner.run(spec, reporter)
        s = result.summary
        out.append({"precision": precision, "loop": loop, "status": s.status,
                    "replicas": s.replicas, "global_batch": s.global_batch_size,
                    "strategy": s.strategy, "distribution": s.distribution,
                    "epoch_losses": [e.loss for e in result.epochs],
                    "scale_events": len(reporter.of_type(LossScaleChanged)),
                    "scales": [e.loss_scale for e in reporter.of_type(StepMetrics)],
                    "lr": float(result.model.optimizer.learning_rate.numpy()),
                    "speed": s.steady_examples_per_sec,
                    "per_replica": s.examples_per_sec_per_replica,
                    "variable": str(type(result.model.trainable_variables[0].value))})
    print(json.dumps(out))
""")


def test_mirrored_over_two_cpu_devices_with_every_policy():
    done = subprocess.run([sys.executable, "-c", MIRRORED], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, said(done.stderr)[-2000:]
    runs = json.loads(done.stdout.strip().splitlines()[-1])
    for run in runs:
        where = f"{run['precision']} {run['loop']}"
        assert run["status"] == "finished", where
        assert run["strategy"] == "mirrored" and run["replicas"] == 2, where
        assert run["global_batch"] == 64, where
        assert "Mirrored over 2 replicas (CPU:0, CPU:1)" in run["distribution"]
        assert run["lr"] == pytest.approx(0.004), where  # 0.002 x 2 replicas
        assert run["epoch_losses"][-1] < 0.8 * run["epoch_losses"][0], where
        assert run["per_replica"] == pytest.approx(run["speed"] / 2), where
    float16 = [r for r in runs if r["precision"] == "mixed_float16"]
    for run in float16:  # dynamic scaling doubled every 5 finite steps, in every replica
        assert run["scale_events"] >= 3, run["loop"]
        assert max(run["scales"]) > 2**15
    for run in runs:
        if run["precision"] != "mixed_float16":
            assert run["scale_events"] == 0 and set(run["scales"]) == {None}


MIRRORED_SEQUENCE = textwrap.dedent("""
    import json
    from mpstudio.engine.distribute.placement import split_cpu
    split_cpu(3)
    from mpstudio.engine.events import CollectingReporter, RunFailed
    from mpstudio.engine.spec import Distribution, RunSpec
    from mpstudio.engine.trainer import runner
    out = []
    for devices in (["CPU:0", "CPU:1"], ["CPU:0", "CPU:1", "CPU:2"], ["CPU:0", "CPU:1"]):
        spec = RunSpec(dataset="digits", batch_size=16, steps=2, epochs=1,
                       log_every_steps=1, validation_split=0.0,
                       distribute=Distribution(strategy="mirrored", devices=devices))
        reporter = CollectingReporter()
        s = runner.run(spec, reporter).summary
        out.append({"status": s.status, "replicas": s.replicas, "steps": s.steps_done,
                    "failure": [e.reason[-300:] for e in reporter.of_type(RunFailed)]})
    print(json.dumps(out))
""")


def test_mirrored_runs_over_other_device_sets_in_one_process():
    """The window's engine process lives long: mirrored over two devices, then over three,
    then over the first two again. Every MirroredStrategy numbered its collective groups
    from the same key, so the run over three joined the two-device group ("a group with
    size 3, but that group has size 2") and the aborted collectives failed every later
    mirrored run in the process: finished, failed, failed."""
    done = subprocess.run([sys.executable, "-c", MIRRORED_SEQUENCE], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, said(done.stderr)[-2000:]
    runs = json.loads(done.stdout.strip().splitlines()[-1])
    assert [r["status"] for r in runs] == ["finished"] * 3, runs
    assert [r["replicas"] for r in runs] == [2, 3, 2]
    assert [r["steps"] for r in runs] == [2, 2, 2]


# ---------------------------------------------------------------- multi-worker
WORKER_ARGS = ("--precision", "mixed_float16", "--batch-size", "32", "--log-every", "2",
               "--growth-steps", "10")


def test_two_workers_train_together_and_the_chief_records_the_run(monkeypatch):
    """Worker 0 goes through the GUI's path (run_worker_process: a child process
    relaying its events); worker 1 is a plain `mpstudio train` on the same cluster.
    An HTTP proxy is set, as on many company machines: gRPC would route the workers'
    channels through it (a silent hang at start-up) unless they bypass it."""
    monkeypatch.setenv("https_proxy", "http://127.0.0.1:9")  # a closed port
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("no_grpc_proxy", raising=False)
    from mpstudio.engine.distribute.worker_process import run_worker_process
    from mpstudio.engine.history.store import RunStore

    ports = free_ports(2)
    spec = RunSpec(precision="mixed_float16", batch_size=32, epochs=2, log_every_steps=2,
                   distribute=Distribution(strategy="multiworker", join_timeout=120))
    spec.loss_scaling.growth_steps = 10
    other = worker(ports, 1, *WORKER_ARGS, "--epochs", "2", "--json")
    reporter = CollectingReporter()
    try:
        result, run_id = run_worker_process(
            spec, reporter, dict(os.environ, TF_CONFIG=tf_config(ports, 0)))
    finally:
        out, err = other.finish(timeout=120)
    assert other.returncode == 0, said(err)[-2000:]
    theirs = json.loads(out)
    assert result.ok and result.summary.status == "finished"
    ours = [e.loss for e in reporter.of_type(EpochMetrics)]
    assert ours == pytest.approx([e["loss"] for e in theirs["epochs"]], rel=1e-6)
    assert ours[-1] < ours[0]
    assert result.summary.replicas == 2 and result.summary.loop == "custom"
    assert "custom training loop" in result.summary.distribution
    started = reporter.of_type(RunStarted)[0]
    assert started.distribution.startswith("Multi-worker over 2 workers")
    assert "this process is worker 0 (the chief)" in started.distribution
    assert result.summary.loss_scale_max > 2**15  # scale events came through the relay
    assert theirs["id"] is None and theirs["summary"]["replicas"] == 2
    with RunStore() as store:
        rows = store.runs()
        assert [r.id for r in rows] == [run_id]  # only the chief recorded it
        assert store.run(run_id).summary.strategy == "multiworker"
    assert result.model is not None  # the chief's kept model, loaded back for export
    assert "mixed_float16" in {layer.dtype_policy.name for layer in result.model.layers}


def test_workers_keep_their_channels_off_an_http_proxy():
    from mpstudio.engine.distribute.cluster import direct_to_peers

    cluster = read_cluster({"TF_CONFIG": json.dumps({
        "cluster": {"worker": ["10.0.0.5:2222", "gpu-b.lan:2222"], "chief": ["[::1]:2223"]},
        "task": {"type": "chief", "index": 0}})})
    quiet = {"no_proxy": "example.com"}
    assert direct_to_peers(cluster, quiet) == [] and "no_grpc_proxy" not in quiet
    env = {"https_proxy": "http://proxy:3128", "no_proxy": "example.com, .corp"}
    assert direct_to_peers(cluster, env) == ["10.0.0.5", "::1", "gpu-b.lan"]
    assert env["no_grpc_proxy"] == "example.com,.corp,10.0.0.5,::1,gpu-b.lan"
    assert direct_to_peers(cluster, env) == []  # already there: nothing added twice


def test_a_killed_worker_fails_the_other_in_bounded_time():
    ports = free_ports(2)
    args = (*WORKER_ARGS, "--epochs", "50", "--events")
    chief, doomed = worker(ports, 0, *args), worker(ports, 1, *args, stream=True)
    try:
        assert doomed.stdout is not None
        for line in doomed.stdout:  # wait until they train together
            if '"event": "StepMetrics"' in line and json.loads(line)["step"] >= 6:
                break
        doomed.process.send_signal(signal.SIGKILL)
        killed = time.monotonic()
    finally:
        doomed.finish(timeout=30)
        out, err = chief.finish(timeout=120)
    took = time.monotonic() - killed
    assert chief.returncode == 1, said(err)[-2000:]
    assert took < 60, f"the chief took {took:.0f} s to notice"
    done = json.loads(out.strip().splitlines()[-1])
    assert "worker 1 (127.0.0.1:" in done["failure"] and "stopped answering" in done["failure"]
    assert done["summary"]["status"] == "failed" and done["summary"]["steps_done"] >= 6


def test_a_worker_alone_gives_up_after_the_join_timeout():
    ports = free_ports(2)
    lone = worker(ports, 0, "--join-timeout", "3", "--epochs", "1")
    _, err = lone.finish(timeout=120)
    assert lone.returncode == -signal.SIGKILL
    assert "waited 3 s for the other workers" in said(err)
    assert f"127.0.0.1:{ports[1]}" in said(err)


def test_the_worker_process_reports_a_spec_problem_in_words(monkeypatch):
    from mpstudio.engine.distribute.worker_process import run_worker_process

    spec = RunSpec(distribute=Distribution(strategy="multiworker"))
    env = {k: v for k, v in os.environ.items() if k != "TF_CONFIG"}
    with pytest.raises(SpecError, match="TF_CONFIG is not set"):
        run_worker_process(spec, CollectingReporter(), env)


def test_the_relay_ends_with_the_worker_even_if_a_grandchild_holds_its_output(monkeypatch):
    """A process the worker started (the join watchdog, a library's helper) may outlive it
    with the output pipe open: the relay must end with the worker, not with the pipe."""
    from mpstudio.engine.distribute import worker_process
    from mpstudio.engine.trainer import runner  # noqa: F401  its import is not the relay's time

    script = textwrap.dedent(f"""
        import json, subprocess, sys
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        print({json.dumps(json.dumps(event_to_json(RunFinished(summary()))))}, flush=True)
        print(json.dumps({{"event": "Done", "id": None, "warnings": []}}), flush=True)
    """)
    monkeypatch.setattr(worker_process, "worker_command",
                        lambda config: [sys.executable, "-c", script])
    spec = RunSpec(distribute=Distribution(strategy="multiworker"))
    started = time.monotonic()
    result, run_id = worker_process.run_worker_process(
        spec, CollectingReporter(), dict(os.environ, TF_CONFIG=tf_config(free_ports(2), 1)))
    assert time.monotonic() - started < 2.0 + 3.5  # EXIT_DRAIN, then a python's start
    assert run_id is None and result.model is None
    assert result.summary.status == "finished" and result.ok


def test_a_worker_done_without_its_runs_end_is_a_setup_error_not_a_result(monkeypatch):
    """Done with no RunFinished/RunFailed before it (one the relay could not read): a
    RunResult would have no summary (mypy found it), so the worker's own words say
    what happened instead."""
    from mpstudio.engine.distribute import worker_process
    from mpstudio.engine.trainer.runner import RunSetupError

    script = textwrap.dedent("""
        import json, sys
        print(json.dumps({"event": "Done", "id": None, "warnings": []}), flush=True)
        print("the worker lost its run's end", file=sys.stderr, flush=True)
    """)
    monkeypatch.setattr(worker_process, "worker_command",
                        lambda config: [sys.executable, "-c", script])
    spec = RunSpec(distribute=Distribution(strategy="multiworker"))
    with pytest.raises(RunSetupError, match="the worker lost its run's end"):
        worker_process.run_worker_process(
            spec, CollectingReporter(), dict(os.environ, TF_CONFIG=tf_config(free_ports(2), 1)))


# ------------------------------------------- an overflow on one replica of several
OVERFLOW = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, sys.argv[1])
    from mpstudio.engine.distribute.placement import split_cpu
    split_cpu(2)
    import numpy as np
    from support.crafted_layers import crafted_templates
    from mpstudio.engine.events import CollectingReporter
    from mpstudio.engine.spec import Distribution, RunSpec
    from mpstudio.engine.templates.registry import register_template
    from mpstudio.engine.trainer import runner
    for entry in crafted_templates():
        register_template(entry)
    out = []
    for template in ("overflow_on_replica_1", "overflow_on_replica_0", "no_overflow"):
        for loop in ("fit", "custom"):
            spec = RunSpec(template=template, precision="mixed_float16", loop=loop, steps=2,
                           batch_size=16, log_every_steps=1, validation_split=0.2,
                           distribute=Distribution(strategy="mirrored"))
            result = runner.run(spec, CollectingReporter())
            after = result.model.get_weights()
            s = result.summary
            out.append({
                "template": template, "loop": loop, "status": s.status,
                "finite": bool(all(np.isfinite(w).all() for w in after)),
                "unchanged": bool(all(np.array_equal(a, b)
                                      for a, b in zip(after, result.initial_weights))),
                "applied": int(result.model.optimizer.iterations.numpy()),
                "scale": s.loss_scale_final, "overflow_steps": s.overflow_steps})
    print(json.dumps(out))
""")


def test_an_overflow_on_any_replica_skips_the_step_on_every_replica():
    """Keras decides "finite?" per replica before the cross-replica sum and keeps replica
    0's answer: an inf gradient on replica 1 was summed into the weights (w = -inf), the
    scale stayed and the step counted. Two logical CPU devices, a layer whose gradient
    overflows on one replica only, both loops: the step is skipped everywhere."""
    done = subprocess.run([sys.executable, "-c", OVERFLOW, str(TESTS)], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, said(done.stderr)[-2000:]
    runs = json.loads(done.stdout.strip().splitlines()[-1])
    for run in runs:
        where = f"{run['template']} ({run['loop']})"
        assert run["status"] == "finished", where
        assert run["finite"], where
        if run["template"] == "no_overflow":  # the control: both steps applied
            assert run["applied"] == 2 and not run["unchanged"], where
            assert run["overflow_steps"] == 0 and run["scale"] == 2.0**15, where
            continue
        assert run["unchanged"], where  # both steps skipped on both replicas
        assert run["applied"] == 0, where
        assert run["overflow_steps"] == 2, where
        assert run["scale"] == 2.0**15 / 4, where  # halved once per skipped step


# ------------------------------------ NaN weights on one replica behind a finite loss
NAN_ON_REPLICA = textwrap.dedent("""
    import json, math, sys
    sys.path.insert(0, sys.argv[1])
    from mpstudio.engine.distribute.placement import split_cpu
    split_cpu(2)
    import numpy as np
    from support.crafted_layers import NaNKernelAt, nan_hiding_template
    from mpstudio.engine.events import CollectingReporter, EpochMetrics, StepMetrics
    from mpstudio.engine.spec import Distribution, RunSpec
    from mpstudio.engine.templates.registry import register_template
    from mpstudio.engine.trainer import runner
    register_template(nan_hiding_template())
    out = []
    for loop in ("fit", "custom"):
        spec = RunSpec(template="nan_hiding_mlp", precision="mixed_bfloat16", loop=loop,
                       steps=4, batch_size=16,
                       log_every_steps=1, validation_split=0.0,
                       distribute=Distribution(strategy="mirrored"))
        reporter = CollectingReporter()
        poison = NaNKernelAt(step=2, layer="dense_1024", replica=1)
        result = runner.run(spec, reporter, callbacks=lambda _spec: [poison])
        copies = result.model.get_layer("dense_1024").kernel.value.values
        losses = [e.loss for e in reporter.of_type(StepMetrics)]
        losses += [e.loss for e in reporter.of_type(EpochMetrics)]
        out.append({"loop": loop, "poisoned": poison.done, "status": result.summary.status,
                    "kind": result.failure.kind if result.failure else None,
                    "reason": str(result.failure.reason) if result.failure else "",
                    "layer": result.diagnosis.layer if result.diagnosis else None,
                    "losses_finite": all(math.isfinite(x) for x in losses),
                    "nan_copies": [bool(np.isnan(c.numpy()).all()) for c in copies],
                    "saved_copy_finite": bool(np.isfinite(result.model.get_weights()[0]).all())})
    print(json.dumps(out))
""")


def test_nan_weights_on_one_replica_behind_a_finite_loss_end_the_run_as_diverged():
    """Issue 34: a mixed_bfloat16 run with a NaN on one replica ended "finished". Two
    logical CPU devices; at step 2 replica 1's copy of the hidden Dense(relu) kernel
    turns NaN. The layer after it hides the NaN from the loss and its gradient (as some
    CPUs' fused kernels do; support.crafted_layers makes it so on any CPU), so replica
    0's copy trains on, the loss stays finite and a save keeps replica 0's finite copy:
    only a check of every replica's copy sees it. Both loops."""
    done = subprocess.run([sys.executable, "-c", NAN_ON_REPLICA, str(TESTS)], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, said(done.stderr)[-2000:]
    runs = json.loads(done.stdout.strip().splitlines()[-1])
    assert [run["loop"] for run in runs] == ["fit", "custom"]
    for run in runs:
        where = run["loop"]
        assert run["poisoned"] and run["losses_finite"], where  # the loss never showed it
        assert run["nan_copies"] == [False, True] and run["saved_copy_finite"], where
        assert (run["status"], run["kind"], run["layer"]) == (
            "diverged", "diverged", "dense_1024"), where
        assert ("layer 'dense_1024' (Dense, computing in bfloat16) has non-finite weights "
                "(dense_1024/kernel, on 1 of 2 replicas) at the end of epoch 1 (step 4)"
                in run["reason"]), run["reason"]
