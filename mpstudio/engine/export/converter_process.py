"""A TFLite conversion in a process of its own, for the one conversion known to crash.

TF 2.21's converter segfaults calibrating a recurrent model's static-batch loop for
full-integer int8. In its own process the crash costs that one format: the export
reports it as failed, with the signal, and goes on with the others; the engine (and
the window, or the ``mpstudio export`` command) stays up.

    python -m mpstudio.engine.export.converter_process SAVED_MODEL VARIANT EXAMPLES.npy OUT
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from mpstudio.engine.child_process import last_words, signal_name
from mpstudio.engine.export.results import ExportError
from mpstudio.engine.i18n import _

TIMEOUT_SECONDS = 900.0


def convert_in_own_process(saved: Path, variant: str, examples: np.ndarray | None,
                           scratch: Path, what: str) -> bytes:
    """The converter's output; ExportError saying how the converter process ended when
    it did not finish (``what``: the model, for the message)."""
    data_file = scratch / f"calibration-{variant}.npy"
    out_file = scratch / f"converted-{variant}.tflite"
    args = [sys.executable, "-m", __name__, str(saved), variant, "-", str(out_file)]
    if examples is not None:
        np.save(data_file, examples)
        args[-2] = str(data_file)
    try:
        proc = subprocess.run(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, errors="replace",
                              timeout=TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        raise ExportError(_("the TFLite converter did not finish {what} in {seconds} s "
                            "and was ended").format(what=what,
                                                    seconds=f"{TIMEOUT_SECONDS:.0f}")) from None
    name = signal_name(proc.returncode)
    if name is not None:
        raise ExportError(_("the TFLite converter crashed ({signal}) {what}; export "
                            "dynamic-range int8 instead (it needs no calibration)").format(
                                signal=name, what=what))
    if proc.returncode != 0 or not out_file.is_file():
        reason = last_words(proc.stderr.splitlines(), 1) or _("exit code {code}").format(
            code=proc.returncode)
        raise ExportError(_("the TFLite converter failed: {reason}").format(reason=reason))
    return out_file.read_bytes()


def main(argv: list[str]) -> int:
    saved, variant, examples_file, out = argv
    from mpstudio.engine.quiet_stderr import tensorflow_logs_hidden

    with tensorflow_logs_hidden():
        from mpstudio.engine.export.tflite_options import tflite_converter

        examples = None if examples_file == "-" else np.load(examples_file)
        data = tflite_converter(Path(saved), variant, examples, "").convert()
    Path(out).write_bytes(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
