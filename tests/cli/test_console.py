"""What the CLI shows in a terminal: progress bar, epoch lines, summary tables."""

from __future__ import annotations

import io

from rich.console import Console

from mpstudio.cli.console import ConsoleReporter
from mpstudio.engine.trainer.runner import run


def test_terminal_output_of_a_run(tiny_spec):
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120, color_system=None)
    reporter = ConsoleReporter(console)
    assert reporter.bars  # a terminal gets live progress bars
    run(tiny_spec.replace(precision="mixed_float16", epochs=2), reporter)
    text = out.getvalue()
    assert "mixed_float16 · mlp on digits" in text
    assert "epoch 1/2" in text and "loss " in text and "scale 32768" in text  # the bar
    assert "ex/s" in text  # the last (steady) window; warm-up frames depend on refresh timing
    assert "epoch 2/2  loss" in text and ", val accuracy " in text  # the epoch line
    assert "steady examples/s" in text and "mixed_float16: finished" in text
    from mpstudio.engine.device_info import run_devices
    from mpstudio.engine.trainer.run_setup import device_warnings

    # the warning, where this CPU lacks float16's own instructions (not on an AMX Xeon)
    assert ("on a CPU" in text) == bool(device_warnings(tiny_spec.replace(
        precision="mixed_float16"), run_devices()))


def test_a_log_file_gets_lines_not_bars(tiny_spec):
    out = io.StringIO()
    reporter = ConsoleReporter(Console(file=out, width=120, color_system=None))
    assert not reporter.bars
    run(tiny_spec, reporter)
    text = out.getvalue()
    assert "epoch 1/1  loss" in text and "━" not in text.split("float32: finished")[0]
