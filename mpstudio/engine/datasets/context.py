"""LoadContext: how a source reports progress and learns that the user wants to stop."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from mpstudio.engine.datasets.errors import DataLoadStopped
from mpstudio.engine.datasets.report import DataProgress
from mpstudio.engine.i18n import _

PROGRESS_INTERVAL = 0.1  # seconds between progress events (the last one always goes out)


def _never() -> bool:
    return False


def _ignore(event: DataProgress) -> None:
    return None


@dataclass
class LoadContext:
    """Passed to every source reader. ``emit`` receives DataProgress events; a reader
    calls ``check_stop()`` between chunks of work so a stop request takes effect fast."""

    source: str
    emit: Callable[[DataProgress], None] = _ignore
    should_stop: Callable[[], bool] = _never
    _last: float = field(default=0.0, repr=False)

    def progress(self, task: str, done: int, total: int | None, unit: str = "") -> None:
        """Report ``done`` of ``total`` (None: unknown) ``unit`` ("B" for bytes)."""
        now = time.monotonic()
        finished = total is not None and done >= total
        if finished or done == 0 or now - self._last >= PROGRESS_INTERVAL:
            self._last = now
            self.emit(DataProgress(self.source, task, done, total, unit))

    def check_stop(self) -> None:
        if self.should_stop():
            raise DataLoadStopped(_("stopped while loading {source}; nothing was kept").format(
                source=self.source))
