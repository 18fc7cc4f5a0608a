"""This CPU (``prediction_accuracy.py cpu``): for each template, ``mpstudio predict
--measure --json`` (the prediction, and a few timed steps of each precision) and
``mpstudio compare --json`` under each half precision (a real comparison: its steady
examples/s and speedup), on the same data and batch, each in a fresh process, the two
commands in alternating order from one round to the next. Printed per template and
precision, the medians over the rounds: the measurement against the comparison (target:
within 15%) and the prediction against the measurement (target: within 30%).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from typing import Any

HALVES = ("mixed_float16", "mixed_bfloat16")


def add_cpu_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--templates", nargs="+", default=["mlp", "cnn", "transformer"])
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="--measure's seconds a precision")
    parser.add_argument("--timeout", type=float, default=900)


def _mpstudio(args: list[str], env: dict[str, str], timeout: float) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "mpstudio", *args], capture_output=True,
                          text=True, env=env, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr else "failed")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _round(template: str, args: argparse.Namespace, env: dict[str, str],
           measure_first: bool) -> dict[str, dict[str, float]]:
    """One round: {precision: {"measured", "compared", "predicted" examples/s and
    speedups}}."""
    common = ["--template", template, "--batch-size", str(args.batch_size)]

    def measure() -> dict[str, Any]:
        return _mpstudio(["predict", *common, "--measure", "--seconds", str(args.seconds),
                          "--json"], env, args.timeout)

    def compare(precision: str) -> dict[str, Any]:
        return _mpstudio(["compare", *common, "--precision", precision, "--json"], env,
                         args.timeout)

    if measure_first:
        predicted = measure()
        cards = {p: compare(p) for p in HALVES}
    else:
        cards = {p: compare(p) for p in HALVES}
        predicted = measure()
    out: dict[str, dict[str, float]] = {}
    base = predicted["predictions"]["float32"]
    for precision in HALVES:
        half = predicted["predictions"][precision]
        card = cards[precision]["card"]
        out[precision] = {
            "predicted_speedup": half["speedup"],
            "measured_speedup": half["measured"]["speedup"],
            "compared_speedup": cards[precision]["speedup"],
            "predicted_base": base["examples_per_s"],
            "measured_base": base["measured"]["examples_per_s"],
            "compared_base": card["baseline"]["examples_per_sec"]["median"],
            "predicted_half": half["examples_per_s"],
            "measured_half": half["measured"]["examples_per_s"],
            "compared_half": card["mixed"]["examples_per_sec"]["median"],
        }
    return out


def cpu_main(args: argparse.Namespace) -> int:
    folder = tempfile.mkdtemp(prefix="mpstudio-cpu-prediction-")
    env = {**os.environ, "MPSTUDIO_LANG": "en",
           "MPSTUDIO_HISTORY": os.path.join(folder, "history.sqlite3")}
    print(f"{'template':12} {'precision':15} {'figure':9} {'predicted':>10} {'measured':>10} "
          f"{'compared':>10} {'measured/compared':>18} {'predicted/measured':>19}",
          flush=True)
    gaps: dict[str, list[float]] = {"measure": [], "predict": []}
    for template in args.templates:
        rounds = []
        for i in range(args.rounds):
            try:
                rounds.append(_round(template, args, env, measure_first=i % 2 == 0))
            except (RuntimeError, subprocess.TimeoutExpired, KeyError) as exc:
                print(f"{template:12} round {i + 1}: {exc}", flush=True)
        if not rounds:
            continue
        for precision in HALVES:
            for figure in ("base", "half", "speedup"):
                values = {side: statistics.median(r[precision][f"{side}_{figure}"]
                                                  for r in rounds)
                          for side in ("predicted", "measured", "compared")}
                m_c = values["measured"] / values["compared"]
                p_m = values["predicted"] / values["measured"]
                gaps["measure"].append(abs(m_c - 1))
                gaps["predict"].append(abs(p_m - 1))
                fmt = ".2f" if figure == "speedup" else ",.0f"
                print(f"{template:12} {precision:15} {figure:9} "
                      f"{values['predicted']:>10{fmt}} {values['measured']:>10{fmt}} "
                      f"{values['compared']:>10{fmt}} {m_c:18.2f} {p_m:19.2f}", flush=True)
    if gaps["measure"]:
        print(f"\nmean |measured/compared - 1|: {statistics.fmean(gaps['measure']):.1%} "
              f"(target 15%); mean |predicted/measured - 1|: "
              f"{statistics.fmean(gaps['predict']):.1%} (target 30%)")
    return 0
