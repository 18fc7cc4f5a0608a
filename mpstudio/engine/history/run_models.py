"""Each run's trained model, kept on disk beside the history so that a run can be
exported later: ``runs/<id>/model.keras`` next to the history file.

The file is what ``model.save`` writes (float32 weights, the per-layer policies, the
optimizer state), so it loads back exactly as trained. A run that diverged or failed
keeps nothing: its weights are not worth deploying.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from mpstudio.engine.history.locations import history_path
from mpstudio.engine.i18n import _
from mpstudio.engine.partial_files import remove_stale_partials

MODEL_NAME = "model.keras"


def runs_folder(history: str | Path | None = None) -> Path | None:
    """The folder of run folders for the history file ``history`` (default: the
    user's); None for a history kept in memory only."""
    if history is None:
        history = history_path()
    if str(history) == ":memory:":
        return None
    return Path(history).parent / "runs"


def run_folder(run_id: int, history: str | Path | None = None) -> Path | None:
    root = runs_folder(history)
    return None if root is None else root / str(run_id)


def model_file(run_id: int, history: str | Path | None = None) -> Path | None:
    """The run's kept model, or None when it kept none."""
    folder = run_folder(run_id, history)
    path = None if folder is None else folder / MODEL_NAME
    return path if path is not None and path.is_file() else None


def keep_model(run_id: int, model: Any, history: str | Path | None = None) -> Path | None:
    """Save ``model`` as the run's kept model: into a temp file, then renamed, so a
    crash never leaves half a model behind. None when the history is in memory."""
    folder = run_folder(run_id, history)
    if folder is None:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    remove_stale_partials(folder)  # what a kill mid-save left (partial_files.py)
    target = folder / MODEL_NAME
    partial = folder / f".partial-{os.getpid()}-{MODEL_NAME}"
    try:
        model.save(partial)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def keep_models(kept: Iterable[tuple[int, Any]], history: str | Path | None = None) -> list[str]:
    """Keep each (run id, model); a model that cannot be saved costs a warning (the run
    itself is recorded either way). Returns the warnings."""
    warnings = []
    for run_id, model in kept:
        try:
            keep_model(run_id, model, history)
        except (OSError, ValueError) as exc:
            warnings.append(_("could not keep run {id}'s trained model for export: "
                              "{error}").format(id=run_id, error=exc))
    return warnings


def remove_run_folders(run_ids: Iterable[int], history: str | Path | None = None) -> None:
    """Delete what deleted runs kept on disk."""
    for run_id in run_ids:
        folder = run_folder(run_id, history)
        if folder is not None and folder.is_dir():
            shutil.rmtree(folder, ignore_errors=True)
