"""The window's first comparison, per template, as a new user meets it: digits at the
window's defaults (batch 128, 5 epochs), the given half precision against float32,
sized for timing (on by default). Prints each template's wall time, the training
length sizing chose, the verdict and the speed's interval, so that "a timed verdict
within 90 s" is measured, not assumed.

    python benchmarks/first_comparison.py [--precision mixed_bfloat16] [--templates mlp,cnn]
"""

from __future__ import annotations

import argparse
import re
import time

from mpstudio.engine.events import CollectingReporter
from mpstudio.engine.run_session import train_session
from mpstudio.engine.spec import RunSpec
from mpstudio.engine.templates.registry import template_names
from mpstudio.engine.trainer.compare_options import CompareOptions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--precision", default="mixed_bfloat16")
    parser.add_argument("--templates", default=",".join(
        t for t in template_names() if t != "mlp_bn"))
    parser.add_argument("--no-sizing", action="store_true")
    args = parser.parse_args()
    print(f"{'template':<12} {'seconds':>7} {'steps':>6} {'steady s':>8} {'verdict':<10} "
          f"{'speedup':>7}  interval")
    for template in args.templates.split(","):
        spec = RunSpec(template=template, precision=args.precision)
        started = time.perf_counter()
        session = train_session(spec, CollectingReporter(),
                                CompareOptions(size=not args.no_sizing), record=True)
        seconds = time.perf_counter() - started
        card = session.card
        assert card is not None  # a comparison's session has one
        found = re.search(r"interval (\d+\.\d+)-(\d+\.\d+)x", card.verdict.sentence)
        interval = f"{found[1]}-{found[2]}x" if found else "-"
        speedup = f"{card.speedup.median:.2f}x" if card.speedup.median else "-"
        steps = session.results[0].spec.steps or session.results[0].summary.steps_done
        print(f"{template:<12} {seconds:7.1f} {steps:6d} "
              f"{card.baseline.steady_seconds:8.1f} {card.verdict.kind:<10} "
              f"{speedup:>7}  {interval}", flush=True)


if __name__ == "__main__":
    main()
