"""How right the payoff prediction is, on data it was not fitted on.

GPUs (the default): every measured pair in benchmarks/gpu_calibration/ (the H200's
templates; published single-GPU runs of standard networks on V100, A100, Turing, Ampere
and Pascal cards, TensorFlow), predicted by the engine's step model from each network's
layers as Keras builds it. Each pair is predicted three ways: with the shipped
constants (fitted on every pair), with constants refitted without its network (leave
one network out) and without its GPU (leave one GPU out). Printed per pair: measured and
predicted float32 examples/s, speedup, whether the range shown to users covers the
measurement, and whether the call (gain / no real gain / slower) is right; then the mean
relative errors, by source and GPU, and how often the range covers.

    python benchmarks/prediction_accuracy.py               # everything (about 30 minutes)
    python benchmarks/prediction_accuracy.py --no-refit    # the shipped constants only
    python benchmarks/prediction_accuracy.py --fit         # refit on every pair, print them
    python benchmarks/prediction_accuracy.py cpu           # this CPU: see cpu --help

The CPU: `mpstudio predict --measure` (a few timed steps of each precision) and
`mpstudio compare` (a real comparison) on the same model and batch, and the model's
prediction beside both: the measurement and the comparison should agree within 15%,
the prediction within 30%.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "gpu_calibration"))

from fit import fit, gpu_family, network_family, predict_pair
from measured_steps import MeasuredPair, h200_pairs, published_pairs

from mpstudio.engine.prediction.calibration import GPU_CALIBRATION, Calibration
from mpstudio.engine.prediction.predict import NO_GAIN


@dataclass
class Row:
    pair: MeasuredPair
    base: float  # predicted float32 examples/s, shipped constants
    speedup: float
    held_network: float | None = None  # predicted speedup, its network left out
    held_gpu: float | None = None  # predicted speedup, its GPU left out

    @property
    def honest(self) -> float:
        """The prediction made without this pair's network, else without its GPU."""
        for value in (self.held_network, self.held_gpu, self.speedup):
            if value is not None:
                return value
        return self.speedup


def call(speedup: float) -> str:
    low, high = NO_GAIN
    return "gain" if speedup >= high else "none" if speedup > low else "slower"


def source_of(pair: MeasuredPair) -> str:
    if pair.framework == "keras-jax":
        return "H200 templates"
    return "NVIDIA DLE" if "DeepLearningExamples" in pair.source else "Lambda"


def _held_out(pairs: Sequence[MeasuredPair], group: Callable[[MeasuredPair], str],
              start: Calibration, iterations: int) -> dict[str, float]:
    """Each pair's speedup predicted by constants fitted without its group."""
    out: dict[str, float] = {}
    groups = sorted({group(p) for p in pairs})
    for i, name in enumerate(groups, 1):
        train = [p for p in pairs if group(p) != name]
        test = [p for p in pairs if group(p) == name]
        if not train:
            continue
        refit = fit(train, start, iterations)
        for pair in test:
            base, mixed = predict_pair(pair, refit)
            out[pair.key] = mixed / base
        print(f"  left out {name} ({i}/{len(groups)}, {len(test)} pairs)", flush=True)
    return out


def _mre(values: Sequence[tuple[float, float]]) -> float:
    return statistics.fmean(abs(p / m - 1) for p, m in values) if values else float("nan")


def report(rows: Sequence[Row], spread: float) -> None:
    print(f"\n{'network':24} {'GPU':16} {'batch':>9}  {'float32 ex/s':>12} {'pred':>8} "
          f"{'err':>5}  {'speedup':>7} {'fit':>5} {'-net':>5} {'-gpu':>5} {'err':>5} "
          f"{'cover':>5} {'call':>5}")
    for r in rows:
        p = r.pair
        covered = abs(r.honest / p.speedup - 1) <= spread
        right = call(r.honest) == call(p.speedup)
        print(f"{p.network[:24]:24} {p.gpu[:16]:16} {p.base.batch:>4}/{p.mixed.batch:<4} "
              f"{p.base.examples_per_s:12,.0f} {r.base:8,.0f} "
              f"{r.base / p.base.examples_per_s - 1:+5.0%}"
              f"  {p.speedup:7.2f} {r.speedup:5.2f} {_opt(r.held_network)} {_opt(r.held_gpu)} "
              f"{r.honest / p.speedup - 1:+5.0%} {'yes' if covered else 'NO':>5} "
              f"{'yes' if right else 'NO':>5}")
    print("\nerr: the prediction made without the pair's network (else its GPU) against "
          "the measurement")
    groups: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        family = gpu_family(r.pair)
        shown = family if family in ("A100", "V100", "H200") else "other GPUs"
        groups[f"{source_of(r.pair)}, {shown}"].append(r)
        groups["all"].append(r)
    print(f"\n{'':28} {'pairs':>5} {'speedup MRE':>11} {'(fitted)':>8} {'float32 MRE':>11} "
          f"{'covered':>8} {'call right':>10} {'|err| <= 0.25':>13}")
    for name in sorted(groups, key=lambda g: (g == "all", g)):
        rs = groups[name]
        print(f"{name:28} {len(rs):5d} {_mre([(r.honest, r.pair.speedup) for r in rs]):11.1%} "
              f"{_mre([(r.speedup, r.pair.speedup) for r in rs]):8.1%} "
              f"{_mre([(r.base, r.pair.base.examples_per_s) for r in rs]):11.1%} "
              f"{statistics.fmean(abs(r.honest / r.pair.speedup - 1) <= spread for r in rs):8.0%} "
              f"{statistics.fmean(call(r.honest) == call(r.pair.speedup) for r in rs):10.0%} "
              f"{sum(abs(r.honest - r.pair.speedup) <= 0.25 for r in rs):7d} of {len(rs)}")
    misses = [r for r in rows if r.pair.speedup >= 1.5 and call(r.honest) != "gain"]
    print(f"\n'no gain' or 'slower' said where the measured gain is 1.5x or more: {len(misses)}")
    errors = sorted(abs(r.honest / r.pair.speedup - 1) for r in rows)
    wanted = errors[int(0.8 * (len(errors) - 1))] if errors else 0.0
    print(f"the range shown (speedup +-{spread:.0%}) covers "
          f"{statistics.fmean(e <= spread for e in errors):.0%} of the measurements; "
          f"+-{wanted:.0%} would cover 80%")


def _opt(value: float | None) -> str:
    return f"{value:5.2f}" if value is not None else "    -"


def gpu_main(args: argparse.Namespace) -> int:
    pairs = h200_pairs() + published_pairs()
    print(f"{len(pairs)} measured pairs: {sum(p.framework == 'keras-jax' for p in pairs)} "
          f"from the H200, the rest published (gpu_calibration/published_sources.md)",
          flush=True)
    if args.fit:
        fitted = fit(pairs, GPU_CALIBRATION, args.iterations, say=print)
        print(fitted)
        return 0
    rows = []
    for pair in pairs:
        base, mixed = predict_pair(pair, GPU_CALIBRATION)
        rows.append(Row(pair, base, mixed / base))
    if not args.no_refit:
        print("refitting without each network, then without each GPU:", flush=True)
        by_network = _held_out(pairs, network_family, GPU_CALIBRATION, args.loo_iterations)
        by_gpu = _held_out(pairs, gpu_family, GPU_CALIBRATION, args.loo_iterations)
        for row in rows:
            row.held_network = by_network.get(row.pair.key)
            row.held_gpu = by_gpu.get(row.pair.key)
    report(rows, GPU_CALIBRATION.spread)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit", action="store_true",
                        help="refit the free constants on every pair and print them")
    parser.add_argument("--no-refit", action="store_true",
                        help="the shipped constants only (no leave-one-out refits)")
    parser.add_argument("--iterations", type=int, default=600)
    parser.add_argument("--loo-iterations", type=int, default=120)
    sub = parser.add_subparsers(dest="where")
    cpu = sub.add_parser("cpu", help="this CPU: --measure, compare and the prediction")
    from cpu_prediction import add_cpu_arguments, cpu_main

    add_cpu_arguments(cpu)
    args = parser.parse_args()
    return cpu_main(args) if args.where == "cpu" else gpu_main(args)


if __name__ == "__main__":
    sys.exit(main())
