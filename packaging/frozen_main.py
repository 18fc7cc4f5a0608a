"""The standalone app's entry point (the script PyInstaller freezes; build_frozen.py).

Frozen, ``sys.executable`` is this program, not a Python interpreter, yet mpstudio
starts its helper processes as an interpreter's command lines:
``sys.executable -m module ...`` (the window's engine process, the TFLite converter, a
distributed training worker) and ``sys.executable -c code ...`` (the TPU probe, the
start-up watchdog). So this answers those two forms as ``python`` would; anything else
is the ``mpstudio`` command line, and no arguments open the window.
"""

from __future__ import annotations

import multiprocessing
import runpy
import sys


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[0] == "-m":
        sys.argv = [argv[1], *argv[2:]]  # runpy puts the module's file first, as python does
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return 0
    if len(argv) >= 2 and argv[0] == "-c":
        sys.argv = ["-c", *argv[2:]]
        exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})
        return 0
    from mpstudio.cli import main as cli_main

    return cli_main()  # as the `mpstudio` script calls it: sys.argv[1:]


if __name__ == "__main__":
    # Nothing in mpstudio uses multiprocessing, but a library may (a Keras data pipeline
    # with workers); its children re-run this program with --multiprocessing-fork, which
    # this hands to multiprocessing instead of the command line. A no-op otherwise.
    multiprocessing.freeze_support()
    sys.exit(main(sys.argv[1:]))
