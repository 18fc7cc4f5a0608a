"""``mpstudio tensorboard RUN_ID``: TensorBoard on a run's logs (runs/<id>/tensorboard)
until Ctrl-C; ``--print-scalars`` prints the last value of each scalar instead,
without a server (that needs only TensorFlow, not the tensorboard package)."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from pathlib import Path
from typing import Any

from mpstudio.cli.support import EXIT_FAILED, EXIT_OK, error_line, make_console, usage_error
from mpstudio.engine.i18n import _

COMMAND = "tensorboard"


def add_tensorboard_command(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        COMMAND, help=_("open a run's TensorBoard logs (or print their last values)"),
        description=_("Start TensorBoard on 127.0.0.1 for the logs of a run trained with "
                      "--tensorboard ([aids] tensorboard = true) and wait until Ctrl-C. "
                      "TensorBoard is an optional extra: pip install "
                      "\"mpstudio[tensorboard]\"."))
    parser.add_argument("run_id", type=int, metavar=_("RUN_ID"),
                        help=_("a run id from `mpstudio runs list`"))
    parser.add_argument("--print-scalars", action="store_true",
                        help=_("print the last value of every scalar and exit (no server)"))
    parser.add_argument("--json", action="store_true",
                        help=_("with --print-scalars: JSON on stdout"))
    parser.add_argument("--timeout", type=float, default=60.0, metavar="S",
                        help=_("seconds to wait for TensorBoard to answer (60)"))


_STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP")
                      if hasattr(signal, name))


class _Terminated(Exception):
    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def logs_of(run_id: int) -> tuple[Path | None, str]:
    """The run's logs folder, or None and why not (a usage problem)."""
    from mpstudio.engine.history.run_models import run_folder
    from mpstudio.engine.history.store import HistoryError, RunStore
    from mpstudio.engine.tensorboard_launch import NO_LOGS_HINT, has_logs
    from mpstudio.engine.tensorboard_log import LOGS_FOLDER

    try:
        with RunStore() as store:
            store.run(run_id, metrics=False)
    except HistoryError as exc:
        return None, str(exc)
    folder = run_folder(run_id)
    if folder is None or not has_logs(folder / LOGS_FOLDER):
        return None, _("run #{id} has no TensorBoard logs: {hint}").format(
            id=run_id, hint=_(NO_LOGS_HINT))
    return folder / LOGS_FOLDER, ""


def run_tensorboard_command(args: argparse.Namespace) -> int:
    logdir, problem = logs_of(args.run_id)
    if logdir is None:
        return usage_error(COMMAND, [problem])
    if args.print_scalars:
        return _print_scalars(logdir, args)
    from mpstudio.engine.tensorboard_launch import (
        INSTALL_HINT,
        start_tensorboard,
        tensorboard_available,
    )

    if not tensorboard_available():
        return usage_error(COMMAND, [_("TensorBoard is not installed here: {hint}").format(
            hint=INSTALL_HINT)])
    print(_("starting TensorBoard on {logdir}…").format(logdir=logdir), file=sys.stderr)
    try:
        server = start_tensorboard(logdir, timeout=args.timeout, tied=True)
    except (RuntimeError, OSError) as exc:
        print(error_line(COMMAND, exc), file=sys.stderr)
        return EXIT_FAILED
    def terminated(signum: int, frame: object) -> None:
        raise _Terminated(signum)

    # SIGTERM (a service manager, `kill`) and SIGHUP (the terminal closed) stop the
    # server as Ctrl-C does; without this the process died and left it listening.
    previous = {sig: signal.signal(sig, terminated) for sig in _STOP_SIGNALS}
    try:
        print(_("TensorBoard at {url} (logs: {logdir}); Ctrl-C stops it").format(
            url=server.url.rstrip("/"), logdir=logdir), flush=True)
        while server.running:
            time.sleep(0.5)
        print(error_line(COMMAND, _("TensorBoard ended:")) + "\n" + server.output(12),
              file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("\n" + _("stopping TensorBoard"), file=sys.stderr)
        return EXIT_OK
    except _Terminated as exc:
        print(_("{signal}: stopping TensorBoard").format(
            signal=signal.Signals(exc.signum).name), file=sys.stderr)
        return 128 + exc.signum
    finally:
        server.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _print_scalars(logdir: Path, args: argparse.Namespace) -> int:
    from mpstudio.engine.quiet_stderr import tensorflow_logs_hidden

    with tensorflow_logs_hidden():
        from mpstudio.engine.tensorboard_log import read_scalars

        scalars = read_scalars(logdir)
    if args.json:
        from mpstudio.engine.json_values import json_ready

        payload = {"run_id": args.run_id, "logdir": str(logdir),
                   "scalars": {tag: {"step": points[-1][0], "value": points[-1][1],
                                     "points": len(points)}
                               for tag, points in sorted(scalars.items())}}
        print(json.dumps(json_ready(payload), indent=2))
        return EXIT_OK
    from rich.table import Table

    table = Table(title=_("run #{id}: {logdir}").format(id=args.run_id, logdir=logdir),
                  title_justify="left")
    table.add_column(_("scalar"))
    table.add_column(_("step"), justify="right")
    table.add_column(_("last value"), justify="right")
    table.add_column(_("points"), justify="right")
    for tag, points in sorted(scalars.items()):
        step, value = points[-1]
        table.add_row(tag, str(step), f"{value:.6g}", str(len(points)))
    make_console(stderr=False).print(table)
    return EXIT_OK
