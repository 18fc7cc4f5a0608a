"""A history with one recorded command and its benchmark bundle, bench.zip, beside it:
what the bundle and replay tests start from."""

from __future__ import annotations

from pathlib import Path

import pytest

from mpstudio.cli import main
from mpstudio.engine.history.locations import HISTORY_ENV


def bundled_history(folder: Path, command: list[str], run_id: int) -> Path:
    """Run ``command`` (a train or compare) into ``folder``'s history, bundle run
    ``run_id`` as ``folder/bench.zip``; the history's path."""
    path = folder / "history.sqlite3"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(HISTORY_ENV, str(path))
        assert main([*command, "--json"]) == 0
        assert main(["runs", "bundle", str(run_id), "-o", str(folder / "bench.zip"),
                     "--json"]) == 0
    return path
