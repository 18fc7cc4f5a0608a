"""An export made by a server's engine, copied back to the paths the user chose on this
computer: one engine job per exported file or folder (FetchFilesRequest), its bytes
written through engine/service/file_fetch.py's FileReceiver (staged beside the target,
every path, size and SHA-256 checked, then moved into place). What the export dialog
then shows is the local copy; a copy that fails says why, and leaves nothing behind.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QObject

from mpstudio.engine.service.file_fetch import FetchError, FileReceiver
from mpstudio.engine.service.job_requests import FetchFilesRequest

if TYPE_CHECKING:
    from mpstudio.engine.export.results import ExportOutcome
    from mpstudio.engine.service.file_fetch import FetchedFiles
    from mpstudio.ui.engine_client.engine_client import EngineClient


class CopyBack(QObject):
    """Copy each outcome's file to its target in turn; ``done(outcomes)`` with each
    result's path now the local copy (or its error saying why there is none)."""

    def __init__(self, engine: EngineClient, outcomes: list[ExportOutcome],
                 targets: list[Path], overwrite: bool,
                 progress: Callable[[int, int, str], None],
                 done: Callable[[list[ExportOutcome]], None],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.engine, self.overwrite = engine, overwrite
        self._progress, self._done = progress, done
        self._queue = list(zip(outcomes, targets, strict=True))
        self._results: list[ExportOutcome] = []
        self.job: Any = None
        self.cancelled = False

    def start(self) -> None:
        self._next()

    def cancel(self) -> None:
        self.cancelled = True
        if self.job is not None:
            self.job.cancel()

    def _next(self) -> None:
        while self._queue:
            outcome, target = self._queue.pop(0)
            if outcome.result is None or self.cancelled:
                self._results.append(outcome)
                continue
            self._copy(outcome, target)
            return
        self._done(self._results)

    def _copy(self, outcome: ExportOutcome, target: Path) -> None:
        assert outcome.result is not None
        receiver = FileReceiver(target, self.overwrite)
        failed: list[str] = []
        copied: list[ExportOutcome] = []
        job = self.engine.submit(FetchFilesRequest(str(outcome.result.path), remove_after=True),
                                 parent=self)
        self.job = job

        def receive(batch: list[Any]) -> None:
            if failed:
                return
            try:
                for event in batch:
                    receiver.receive(event)
            except (FetchError, OSError) as exc:
                failed.append(str(exc))
                job.cancel()

        def finish(fetched: FetchedFiles) -> None:
            try:
                if failed:
                    raise FetchError(failed[0])
                path = receiver.finish(fetched)
            except (FetchError, OSError) as exc:
                failed.append(str(exc))
                return
            assert outcome.result is not None
            copied.append(dataclasses.replace(
                outcome, result=dataclasses.replace(outcome.result, path=path)))

        def ended() -> None:
            receiver.close()  # nothing half-written stays
            self.job = None
            if copied:
                self._results.append(copied[0])
            else:
                reason = failed[0] if failed else QCoreApplication.translate(
                    "CopyBack", "the copy was not made")
                self._results.append(dataclasses.replace(outcome, result=None, error=(
                    QCoreApplication.translate(
                        "CopyBack", "exported on {host} but not copied here: {reason}"
                    ).format(host=self.engine.target.label, reason=reason))))
            self._next()

        job.events.connect(receive)
        job.progress.connect(self._progress)
        job.on_result(finish)
        job.errored.connect(lambda message: failed.append(message))
        job.finished.connect(ended)
