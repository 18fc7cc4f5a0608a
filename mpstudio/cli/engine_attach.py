"""``mpstudio engine attach`` (on the server, or ``mpstudio --engine gpu-box engine
attach`` from the laptop): what the engine runs, shown live in this terminal as a
local run's progress, until every job it ran when attached (and any started since)
has ended. It watches: the window stays attached, and Ctrl-C leaves everything running.
"""

from __future__ import annotations

import sys
from typing import Any

from mpstudio.cli.console import ConsoleReporter
from mpstudio.cli.support import EXIT_FAILED, EXIT_OK, error_line, make_console
from mpstudio.engine.i18n import _
from mpstudio.engine.service import protocol as p
from mpstudio.engine.service.engine_connection import EngineConnection, EngineUnreachable
from mpstudio.engine.service.engine_target import EngineTarget

COMMAND = "engine attach"


def attach(target: EngineTarget) -> int:
    connection = EngineConnection(target, mode=p.WATCH, start=False)
    console = ConsoleReporter(make_console(stderr=True), results=make_console(stderr=False))
    try:
        welcome = connection.open()
        running = {(job.client_id, job.job_id): job for job in welcome.jobs}
        if not running:
            print(_("nothing runs on {host} now (`mpstudio runs` there lists what ran)"
                    ).format(host=welcome.host), file=sys.stderr)
            return EXIT_OK
        for job in welcome.jobs:
            print(_("following #{id} {what} on {host} (Ctrl-C leaves it running)").format(
                id=job.job_id, what=_(job.what) if job.what else job.kind,
                host=welcome.host), file=sys.stderr)
        _follow(connection, console, running)
    except EngineUnreachable as exc:
        print(error_line(COMMAND, str(exc)), file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        console.close()
        print("\n" + _("left; what runs on {host} goes on").format(host=target.label),
              file=sys.stderr)
        return EXIT_OK
    finally:
        console.close()
        connection.close()
    return EXIT_OK


def _follow(connection: EngineConnection, console: ConsoleReporter,
            running: dict[tuple[str, int], Any]) -> None:
    """Show every job's events until none of those followed runs."""
    for message in connection.messages():
        if not isinstance(message, p.Numbered):
            continue
        key = (message.client_id, message.message.job_id)
        job_message = message.message
        if isinstance(job_message, p.JobStarted):
            running[key] = job_message
        elif isinstance(job_message, p.JobEvent):
            console.emit(job_message.event)
        elif isinstance(job_message, (p.JobResult, p.JobFailed)):
            _ended(console, job_message)
            running.pop(key, None)
            if not running:
                return


def _ended(console: ConsoleReporter, message: p.JobResult | p.JobFailed) -> None:
    if isinstance(message, p.JobFailed):
        print(_("#{id} ended: {reason}").format(id=message.job_id, reason=message.message),
              file=sys.stderr)
        return
    card = getattr(message.value, "card", None)
    if card is not None:
        from mpstudio.cli.history_tables import card_table

        console.results.print(card_table(card))
    print(_("#{id} ended").format(id=message.job_id), file=sys.stderr)
