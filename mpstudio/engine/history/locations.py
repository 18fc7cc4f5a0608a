"""Where the run history lives: one SQLite file, with the runs' folders (kept models,
TensorBoard logs) beside it."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

HISTORY_ENV = "MPSTUDIO_HISTORY"  # the history file to use instead of the default


def history_path() -> Path:
    """$MPSTUDIO_HISTORY, else history.sqlite3 in the user data folder."""
    override = os.environ.get(HISTORY_ENV)
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_data_dir("mpstudio", appauthor=False)) / "history.sqlite3"
