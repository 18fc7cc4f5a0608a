"""What the wire codec costs against the pickle it replaced, per message.

Three real payloads of the engine process's pipe, each encoded and decoded as a frame
is (``wire_codec.encode`` + ``decode``; ``pickle.dumps`` + ``loads`` at the highest
protocol, as framing.py did):

- an event: ``JobEvent`` with a ``StepMetrics`` from a real run (the hot path: a run
  sends about 25 an epoch, more with a small ``log_every_steps``);
- ``JobResult`` with this machine's ``HardwareCheck`` (its report, advice and the
  predictions for a cnn workload, no measurement);
- ``JobResult`` with the ``TrainingOutcome`` of a real float32-vs-mixed comparison of
  the digits mlp, 5 epochs a side with every step sampled (its runs, their history
  records with the 225 steps of each, the card), trained here into a throwaway history.

Codec and pickle alternate within each round (the order swapping round to round), each
side timed over enough messages to take about 0.1 s; medians over the rounds, min-max
as the spread, and the frame's bytes. The TensorFlow import and the training take
about 25 s on 2 cores.

    python benchmarks/wire_codec.py               # 7 rounds
    python benchmarks/wire_codec.py --rounds 15 --epochs 5
"""

from __future__ import annotations

import argparse
import os
import pickle
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from mpstudio.engine.events import CollectingReporter, StepMetrics
from mpstudio.engine.hardware.check import HardwareCheck, run_hardware_check
from mpstudio.engine.prediction.for_hardware import Workload
from mpstudio.engine.run_session import TrainingOutcome, train_session
from mpstudio.engine.service import protocol as p
from mpstudio.engine.service.wire_codec import decode, encode
from mpstudio.engine.spec import RunSpec
from mpstudio.engine.trainer.compare_options import CompareOptions

ROUND_SECONDS = 0.1
THROWAWAY = (("MPSTUDIO_CONFIG_DIR", "config"), ("MPSTUDIO_DATA_DIR", "data"),
             ("MPSTUDIO_LOG_DIR", "log"), ("MPSTUDIO_HISTORY", "history.sqlite3"),
             ("KERAS_HOME", "keras"))


def comparison(epochs: int) -> tuple[TrainingOutcome, StepMetrics]:
    """A real comparison's outcome and one of its steady step events."""
    spec = RunSpec(dataset="digits", template="mlp", precision="mixed_float16",
                   epochs=epochs, batch_size=32, log_every_steps=1)  # every step sampled
    reporter = CollectingReporter()
    session = train_session(spec, reporter, CompareOptions())
    steps = [e for e in reporter.of_type(StepMetrics) if not e.warmup]
    return session.outcome(), steps[len(steps) // 2]


def hardware_check() -> HardwareCheck:
    return run_hardware_check(workload=Workload("cnn", 256, (32, 32, 3), 10, 1 / 255))


def codec_trip(message: Any) -> Any:
    return decode(encode(message))


def pickle_trip(message: Any) -> Any:
    return pickle.loads(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))


def per_message(trip: Callable[[Any], Any], message: Any, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        trip(message)
    return (time.perf_counter() - start) / n


def compare_sides(name: str, message: Any, rounds: int) -> None:
    back = codec_trip(message)
    assert type(back) is type(message), "the codec changed the message's class"
    once = per_message(pickle_trip, message, 3)
    n = max(3, int(ROUND_SECONDS / once))
    sides: dict[str, list[float]] = {"codec": [], "pickle": []}
    trips = {"codec": codec_trip, "pickle": pickle_trip}
    for r in range(rounds):
        order = ["codec", "pickle"] if r % 2 == 0 else ["pickle", "codec"]
        for side in order:
            sides[side].append(per_message(trips[side], message, n))
    codec_bytes = len(encode(message))
    pickle_bytes = len(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL))
    print(f"{name} ({n} messages a round, {rounds} rounds):")
    for side, size in (("codec", codec_bytes), ("pickle", pickle_bytes)):
        times = sides[side]
        print(f"  {side:6s} {_us(statistics.median(times)):>10s} a message "
              f"(min-max {_us(min(times))}-{_us(max(times))}), {size:,} bytes a frame")
    ratio = statistics.median(sides["codec"]) / statistics.median(sides["pickle"])
    print(f"  codec / pickle: {ratio:.2f}x the time, {codec_bytes / pickle_bytes:.2f}x the bytes")


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:,.1f} us"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--epochs", type=int, default=5,
                        help="of each side of the comparison (45 sampled steps an epoch)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="mpstudio-wire-bench-") as home:
        for name, sub in THROWAWAY:  # never the user's history or settings
            os.environ[name] = os.path.join(home, sub)
        outcome, step = comparison(args.epochs)
        check = hardware_check()
    samples = sum(len(r.steps) for r in outcome.stored)
    print(f"python {sys.version.split()[0]}; the comparison: {len(outcome.results)} runs, "
          f"{samples} sampled steps in their history records")
    compare_sides("JobEvent(StepMetrics)", p.JobEvent(7, step), args.rounds)
    compare_sides("JobResult(HardwareCheck)", p.JobResult(7, check), args.rounds)
    compare_sides("JobResult(TrainingOutcome)", p.JobResult(7, outcome), args.rounds)
    per_step = len(encode(p.JobResult(7, outcome))) / max(1, samples)
    print(f"TrainingOutcome: {per_step:,.0f} bytes a frame per sampled step (all included)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
