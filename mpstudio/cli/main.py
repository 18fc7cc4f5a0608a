"""The ``mpstudio`` command: the parser and the dispatch to each subcommand's module.
No subcommand opens the desktop app; ``train`` and ``compare`` run the engine headless
and record every run in the history, which ``runs`` lists, shows, compares and reports.

Arguments are checked before TensorFlow is imported, so a typo costs no wait.
Exit codes: 0 done (or stopped), 1 a run failed or diverged, 2 bad arguments, 130
interrupted (a second Ctrl-C). With --json, stdout always holds one JSON document.
Only this module knows every subcommand; none of them imports it.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from mpstudio import __version__
from mpstudio.cli.data_command import add_data_commands, run_data_command
from mpstudio.cli.desktop_command import add_desktop_command, run_desktop_command
from mpstudio.cli.doctor_command import add_doctor_command, run_doctor_command
from mpstudio.cli.engine_command import REMOTE_ENGINE, add_engine_command, run_engine_command
from mpstudio.cli.export_command import add_export_command, run_export_command
from mpstudio.cli.find_batch_command import add_find_batch_command, run_find_batch_command
from mpstudio.cli.hw_command import add_hw_command, run_hw_command
from mpstudio.cli.json_failure import run_with_json_failure
from mpstudio.cli.language import (
    ENGLISH_NAMES,
    CellFormatter,
    argument_error,
    fit_to_terminal,
    for_machines,
    install,
)
from mpstudio.cli.predict_command import add_predict_command, run_predict_command
from mpstudio.cli.replay_command import add_replay_command, run_replay_command
from mpstudio.cli.runs_command import add_runs_command, run_runs_command
from mpstudio.cli.support import (
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    prepare_gpu_start,
    say_unexpected,
    unexpected_error,
)
from mpstudio.cli.tensorboard_command import add_tensorboard_command, run_tensorboard_command
from mpstudio.cli.train_command import COMMANDS as TRAIN_COMMANDS
from mpstudio.cli.train_command import add_train_commands, run_train_command
from mpstudio.engine.app_log import LEVEL_ENV, LEVELS, log_dir, log_uncaught, set_level
from mpstudio.engine.app_log import configure as configure_log
from mpstudio.engine.i18n import ENV, LANGUAGES, _, set_language

Runner = Callable[[argparse.Namespace], int]
log = logging.getLogger("mpstudio.cli")
_RUNNERS: dict[str, Runner] = {
    **{command: run_train_command for command in TRAIN_COMMANDS},
    "data": run_data_command,
    "desktop": run_desktop_command,
    "hw": run_hw_command,
    "doctor": run_doctor_command,
    "runs": run_runs_command,
    "replay": run_replay_command,
    "find-batch": run_find_batch_command,
    "predict": run_predict_command,
    "tensorboard": run_tensorboard_command,
    "export": run_export_command,
    "engine": run_engine_command,
}


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", CellFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:  # one line, no usage dump
        line = _("{prog}: error: {message} (see {prog} --help)").format(
            prog=self.prog, message=argument_error(message))
        self.exit(EXIT_USAGE, line + "\n")


def _language_option(argv: list[str]) -> str | None:
    """``--lang X`` or ``--lang=X`` before the command, if given."""
    for i, arg in enumerate(argv):
        if arg == "--lang" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--lang="):
            return arg.split("=", 1)[1]
        if not arg.startswith("-"):
            return None  # the command: what follows is its own
    return None


def build_parser() -> argparse.ArgumentParser:
    """The parser, worded in the language in force (argparse's own words too)."""
    install()
    parser = _Parser(
        prog="mpstudio",
        description=_("Mixed-precision training workbench for TensorFlow/Keras. "
                      "With no command, opens the desktop app."),
        epilog=_("TensorFlow's own logs are hidden; set TF_CPP_MIN_LOG_LEVEL=0 to see "
                 "them."),
    )
    parser.add_argument("--version", action="version", version=f"mpstudio {__version__}",
                        help=_("show program's version number and exit"))
    parser.add_argument("--lang", choices=["system", *LANGUAGES],
                        help=_("the language of what mpstudio says: en, zh_CN, or system "
                               "(default: {env} if set, else the system's); --json output, "
                               "run specs and the history stay the same in every language"
                               ).format(env=ENV))
    parser.add_argument("--log-level", choices=LEVELS,
                        help=_("how much goes into the log files in {folder} (default: "
                               "{env} if set, else info); debug also prints the traceback "
                               "of an unexpected error").format(folder=log_dir(),
                                                                env=LEVEL_ENV))
    parser.add_argument("--engine", metavar=_("WHERE"),
                        help=_("the window drives the engine there: ssh://[user@]host[:port], "
                               "an ssh host or alias, command:... (srun, kubectl exec), or "
                               "local (default: {env} if set, else local); before train or "
                               "compare, the run trains there and its progress shows here; "
                               "before engine status, attach or stop, they ask the engine "
                               "there").format(
                                   env="MPSTUDIO_ENGINE"))
    commands = parser.add_subparsers(dest="command", parser_class=_Parser)
    add_train_commands(commands)
    add_find_batch_command(commands)
    add_predict_command(commands)
    add_data_commands(commands)
    add_hw_command(commands)
    add_doctor_command(commands)
    add_runs_command(commands)
    add_replay_command(commands)
    add_export_command(commands)
    add_tensorboard_command(commands)
    add_desktop_command(commands)
    add_engine_command(commands)
    return parser


def _command_name(args: argparse.Namespace) -> str:
    """"runs list", "engine status", "train"..."""
    return " ".join(filter(None, (args.command, getattr(args, "runs_command", None),
                                  getattr(args, "data_command", None),
                                  getattr(args, "desktop_command", None),
                                  getattr(args, "engine_command", None))))


def _command_target(args: argparse.Namespace) -> Any:
    """The engine a command's --engine names (None: refused, said on stderr); a command
    that cannot run there is refused with what to do instead."""
    from mpstudio.engine.service.engine_target import TargetError, parse_target

    try:
        target = parse_target(args.engine)
    except TargetError as exc:
        print(_("mpstudio: error: --engine: {message}").format(message=exc), file=sys.stderr)
        return None
    which = getattr(args, "engine_command", None)
    if args.command in TRAIN_COMMANDS or (args.command == "engine" and which in REMOTE_ENGINE):
        return target
    print(_("mpstudio: error: --engine takes train, compare, engine status, engine attach "
            "and engine stop to a server's engine; run {command} there (ssh HOST mpstudio "
            "{command} ...)").format(command=_command_name(args)),
          file=sys.stderr)
    return None


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` (default: the command line) and run the command; the exit code."""
    argv = sys.argv[1:] if argv is None else argv
    choice = _language_option(argv)
    if choice:  # before the parser: its help is written in the language chosen
        os.environ[ENV] = set_language(choice)  # processes started from here speak it too
    given_up = fit_to_terminal()  # English where the terminal cannot write the language
    if given_up and os.environ.get(ENV, "system") != "system":  # asked for: say why not
        print(_("mpstudio: this terminal cannot write {language} (its encoding is "
                "{encoding}), so mpstudio speaks English; for {language}, use a UTF-8 "
                "locale (LANG={code}.UTF-8)").format(
                    language=ENGLISH_NAMES[given_up], encoding=sys.stderr.encoding,
                    code=given_up), file=sys.stderr)
    args = build_parser().parse_args(argv)
    if given_up and args.command is not None:  # the processes it starts too (not the window)
        os.environ[ENV] = "en"
    if args.log_level:
        set_level(args.log_level)  # the window, the engine and workers started from here too
    if args.engine is not None and args.command is None:
        os.environ["MPSTUDIO_ENGINE"] = args.engine  # the window's engine
    elif args.engine is not None:
        args.target = _command_target(args)
        if args.target is None:
            return EXIT_USAGE
        if args.target.is_local:  # --engine local: this machine, as without it
            args.target = None
    if args.command is None:
        from mpstudio.ui.app import launch

        return launch(language=choice)
    command = _command_name(args)
    logs = configure_log("cli", command=["mpstudio", *argv])
    if logs.problem:  # said once; the command goes on without a log file
        print(_("mpstudio {command}: {message}").format(command=command, message=logs.problem),
              file=sys.stderr)
    log.debug("mpstudio %s arguments: %s", command, vars(args))
    # A thread's uncaught error (a data loader, a progress thread): logged, and said
    # as the main thread's would be.
    restore_hooks = log_uncaught(lambda _kind, exc, _tb, _thread: say_unexpected(command, exc))

    def run() -> int:
        try:
            target = getattr(args, "target", None)
            if target is not None and args.command in TRAIN_COMMANDS:
                from mpstudio.cli.remote_run import run_on_engine

                code = run_on_engine(args, target)  # no TensorFlow here
            else:
                prepare_gpu_start(args, command)  # before the command imports TensorFlow
                code = _RUNNERS[args.command](args)
        except KeyboardInterrupt:  # a second Ctrl-C, or one while TensorFlow is imported
            print("\n" + _("mpstudio {command}: error: interrupted").format(command=command),
                  file=sys.stderr)
            code = EXIT_INTERRUPTED
        except Exception as exc:  # a bug: the handled errors were printed as one line
            code = unexpected_error(command, exc)
        log.info("mpstudio %s ended with exit code %d", command, code)
        return code

    try:
        if not getattr(args, "json", False):
            return run()
        with for_machines():  # --json prints the same in every language
            return run_with_json_failure(command, run)
    finally:
        restore_hooks()
