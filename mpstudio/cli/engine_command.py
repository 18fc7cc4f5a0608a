"""``mpstudio engine serve|connect|status|attach|stop``: this user's long-lived engine on
this machine, which a window elsewhere drives through ssh
(engine/service/engine_server.py).

``connect`` is what the window's ssh runs; ``serve`` is what ``connect`` starts when
no engine runs; ``status``, ``attach`` and ``stop`` are for the user at the server's
terminal, or at the laptop's with ``mpstudio --engine gpu-box engine status``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from mpstudio.cli.support import EXIT_FAILED, EXIT_OK
from mpstudio.engine.i18n import _
from mpstudio.engine.service.engine_target import EngineTarget

COMMAND = "engine"
REMOTE_ENGINE = ("status", "attach", "stop")  # what --engine takes to a server's engine


def add_engine_command(commands: Any) -> None:
    engine = commands.add_parser(
        COMMAND, help=_("this machine's engine for a window elsewhere (over ssh): serve, "
                        "connect, status, attach, stop"),
        description=_("A window on another computer drives this machine's engine through "
                      "`ssh HOST mpstudio engine connect`. The engine outlives the "
                      "connection: runs go on when it drops, and the window catches up "
                      "when it reconnects."))
    sub = engine.add_subparsers(dest="engine_command",
                                metavar="{serve,connect,status,attach,stop}",
                                parser_class=type(engine))
    sub.required = True
    serve = sub.add_parser("serve", help=_("run the engine here until it has been idle "
                                           "(started by connect when none runs)"))
    connect = sub.add_parser("connect", help=_("bridge stdin/stdout to the engine, starting "
                                               "it if none runs (what the window's ssh runs)"))
    for parser in (serve, connect):
        parser.add_argument("--idle-minutes", type=float, default=None, metavar=_("MINUTES"),
                            help=_("end the engine after this long with no window and no "
                                   "job (30)"))
    connect.add_argument("--no-start", action="store_true",
                         help=_("only an engine that runs already (engine status, attach "
                                "and stop from another machine)"))
    status = sub.add_parser("status", help=_("whether an engine runs here, and its jobs"))
    status.add_argument("--json", action="store_true", help=_("JSON on stdout"))
    sub.add_parser("attach", help=_("show the progress of what the engine here runs, live, "
                                    "until it ends (Ctrl-C leaves it running)"))
    sub.add_parser("stop", help=_("stop the engine here and the jobs it runs"))


def run_engine_command(args: argparse.Namespace) -> int:
    which = args.engine_command
    if which == "serve":
        return _serve(args.idle_minutes)
    if which == "connect":
        from mpstudio.engine.service.engine_bridge import connect

        return connect(args.idle_minutes, start=not args.no_start)
    target = getattr(args, "target", None) or EngineTarget("here")
    if which == "attach":
        from mpstudio.cli.engine_attach import attach

        return attach(target)
    return _query(which, getattr(args, "json", False), target)


def _serve(idle_minutes: float | None) -> int:
    from mpstudio.engine.quiet_stderr import engine_log
    from mpstudio.engine.service.engine_bridge import BridgeError, reach_engine
    from mpstudio.engine.service.engine_server import IDLE_MINUTES, serve_socket
    from mpstudio.engine.service.private_socket import (
        PrivateSocketError,
        private_dir,
        socket_path,
    )

    try:  # said on the terminal, before stderr goes to the engine's log
        path = socket_path()
        private_dir(path.parent)
    except PrivateSocketError as exc:
        print(_("mpstudio engine serve: error: {message}").format(message=exc),
              file=sys.stderr)
        return EXIT_FAILED
    try:
        reach_engine(path, start=False).close()
    except BridgeError:
        pass  # none answers: this one serves
    else:
        print(_("mpstudio engine serve: an engine already runs here ({path}); `mpstudio "
                "engine status` shows what it runs").format(path=path), file=sys.stderr)
        return 3
    return serve_socket(IDLE_MINUTES if idle_minutes is None else idle_minutes,
                        log_file=engine_log())


def _query(mode: str, as_json: bool, target: EngineTarget) -> int:
    """Ask the engine at ``target`` what it runs (status) or to end (stop), as neither
    a window nor a command line of jobs: nothing it runs is disturbed."""
    from mpstudio.engine.service.engine_connection import EngineConnection, EngineUnreachable

    connection = EngineConnection(target, mode=mode, start=False)
    try:
        welcome = connection.open()
    except EngineUnreachable as exc:
        if as_json:
            print(json.dumps({"running": False, "reason": str(exc)}))
        else:
            print(_("mpstudio engine {command}: {message}").format(command=mode, message=exc),
                  file=sys.stderr)
        return EXIT_OK if mode == "stop" else EXIT_FAILED
    finally:
        connection.close()
    jobs = [{"job_id": j.job_id, "kind": j.kind, "what": j.what} for j in welcome.jobs]
    if as_json:
        print(json.dumps({"running": True, "host": welcome.host, "version": welcome.version,
                          "engine_id": welcome.engine_id, "jobs": jobs}))
    elif mode == "stop":
        print(_("the engine on {host} is stopping; jobs cancelled: {count}").format(
            host=welcome.host, count=len(jobs)))
    else:
        print(_("an engine runs on {host} (mpstudio {version}); jobs running or queued: "
                "{count}").format(host=welcome.host, version=welcome.version,
                                  count=len(jobs)))
        for job in welcome.jobs:
            print(f"  #{job.job_id} {_(job.what) if job.what else job.kind}")
    return EXIT_OK
