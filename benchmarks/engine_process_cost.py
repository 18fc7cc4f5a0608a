"""What moving training into the window's engine process costs: the steady examples/s
of one spec trained through the engine process (every event pickled over its pipe, as
the window runs it) over the same spec trained in this process (as before the engine
process, and as the CLI runs it).

One engine process serves every round, as in the app; this process trains its side
with the same runner. Sides alternate which goes first; nothing runs concurrently
(this process only waits on the pipe while the engine trains). TensorFlow keeps its
default thread pools on both sides (the engine process is started as the window
starts it).

    python benchmarks/engine_process_cost.py            # 7 rounds, about 3 minutes on 2 cores
    python benchmarks/engine_process_cost.py --quick    # smoke run
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from mpstudio.engine.events import RunSummary
from mpstudio.engine.service import protocol as p
from mpstudio.engine.service.framing import FrameWriter, read_frame
from mpstudio.engine.service.job_requests import TrainRequest
from mpstudio.engine.spec import RunSpec
from mpstudio.engine.spec_checks import validate_spec


class Engine:
    """The engine process, driven over its pipe the way the window's link does."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "mpstudio.engine.service"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.writer = FrameWriter(self.proc.stdin)
        self.reader = self.proc.stdout
        self.jobs = 0
        self.writer.send(p.hello())
        welcome = read_frame(self.reader)
        if not isinstance(welcome, p.Welcome):
            raise SystemExit(f"the engine did not answer: {welcome}")
        ready = read_frame(self.reader)
        if not isinstance(ready, p.EngineReady):
            raise SystemExit(f"the engine did not start: {ready}")

    def train(self, spec: RunSpec) -> tuple[float, int]:
        """(steady examples/s, events received) of one run."""
        self.jobs += 1
        self.writer.send(p.Submit(self.jobs, TrainRequest(spec)))
        events = 0
        while True:
            message = read_frame(self.reader)
            if isinstance(message, p.Numbered):
                message = message.message
            if isinstance(message, p.JobEvent):
                events += 1
            elif isinstance(message, p.JobResult):
                run = message.value.last
                if run is None or not run.ok:
                    raise SystemExit(f"the engine's run failed: {run}")
                return _steady(run.summary), events
            elif isinstance(message, p.JobFailed):
                raise SystemExit(f"the engine's run failed: {message.message}")

    def close(self) -> None:
        self.writer.send(p.Shutdown())
        self.proc.wait(60)


def in_process(spec: RunSpec) -> float:
    import gc

    from mpstudio.engine.quiet_stderr import tensorflow_logs_hidden

    with tensorflow_logs_hidden():
        import keras

        from mpstudio.engine.events import CollectingReporter
        from mpstudio.engine.trainer.runner import run

    keras.backend.clear_session()
    gc.collect()
    result = run(spec, CollectingReporter())
    if not result.ok:
        raise SystemExit(f"the in-process run failed: {result.failure}")
    return _steady(result.summary)


def _steady(summary: RunSummary) -> float:
    if summary.steady_examples_per_sec is None:
        raise SystemExit("the run had too few steps after its warm-up to time")
    return summary.steady_examples_per_sec


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--steps", type=int, default=600, help="steps per run")
    parser.add_argument("--template", default="mlp")
    parser.add_argument("--precision", default="mixed_float16")
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--log-every", type=int, default=0, help="0 = automatic sampling")
    parser.add_argument("--quick", action="store_true", help="2 rounds of 60 steps")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.steps = 2, 60
    spec = RunSpec(dataset="synthetic", template=args.template, precision=args.precision,
                   batch_size=args.batch_size, epochs=1, validation_split=0.0,
                   log_every_steps=args.log_every,
                   dataset_options={"shape": [28, 28, 1], "classes": 10,
                                    "samples": args.steps * args.batch_size})
    validate_spec(spec)
    print(f"engine process cost: {spec.template} {spec.precision} on synthetic 28x28x1, "
          f"batch {spec.batch_size}, {args.steps} steps a run, {args.rounds} rounds, "
          f"log every {args.log_every or 'auto'}", flush=True)
    started = time.perf_counter()
    engine = Engine()
    print(f"engine process ready in {time.perf_counter() - started:.1f} s", flush=True)
    in_process(spec)  # both sides warm: TensorFlow loaded, the data cached
    engine.train(spec)
    ratios = []
    try:
        for round_no in range(1, args.rounds + 1):
            if round_no % 2:
                here = in_process(spec)
                there, events = engine.train(spec)
            else:
                there, events = engine.train(spec)
                here = in_process(spec)
            ratios.append(there / here)
            print(f"round {round_no}: in process {here:,.0f} ex/s   engine process "
                  f"{there:,.0f} ex/s ({there / here:.3f}, {events} events over the pipe)",
                  flush=True)
    finally:
        engine.close()
    print(f"engine process/in process steady ratio: {statistics.median(ratios):.3f} "
          f"(rounds {min(ratios):.3f}..{max(ratios):.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
