"""``mpstudio train --estimate-only`` (and ``compare``): the device memory a run would
hold, per precision, without training: the model is built under each policy and
counted (engine/memory_estimate.py); nothing is trained or recorded."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from mpstudio.cli.support import EXIT_OK, ended_early
from mpstudio.engine.i18n import _
from mpstudio.engine.json_values import json_ready
from mpstudio.engine.quiet_stderr import tensorflow_logs_hidden
from mpstudio.engine.said import english

if TYPE_CHECKING:
    from mpstudio.engine.memory_estimate import MemoryEstimate
    from mpstudio.engine.spec import RunSpec


def add_estimate_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--estimate-only", action="store_true",
        help=_("print the device memory the run would need under its precision and under "
               "float32 (weights, optimizer, gradients, activations), then stop without "
               "training"))


def estimate_lines(estimates: tuple[MemoryEstimate, ...]) -> list[str]:
    """One line per precision, the assumptions last."""
    from mpstudio.engine.memory_estimate import assumptions, estimate_line

    lines = [_("{policy}: memory estimate: {estimate}").format(
        policy=e.policy, estimate=estimate_line(e)) for e in estimates]
    lines.append(_("per device at batch {batch}; {assumptions}").format(
        batch=estimates[0].batch_size, assumptions=assumptions()))
    return lines


def estimates_json(estimates: tuple[MemoryEstimate, ...]) -> dict[str, Any]:
    from mpstudio.engine.memory_estimate import assumptions

    return json_ready({"estimates": [e.to_dict() for e in estimates],
                       "assumptions": english(assumptions())})


def run_estimate_only(args: argparse.Namespace, spec: RunSpec) -> int:
    """Print the estimates (``--json``: the breakdown in bytes); the exit code."""
    with tensorflow_logs_hidden():
        from mpstudio.engine.memory_estimate import spec_estimates

        try:
            estimates = spec_estimates(spec)
        except (ValueError, OSError) as exc:  # data that cannot be read, a template misfit
            return ended_early(args.command, exc)
    if args.json:
        print(json.dumps(estimates_json(estimates), indent=2, allow_nan=False))
    else:
        print("\n".join(estimate_lines(estimates)))
    return EXIT_OK
