"""Errors of dataset sources. Every message names the file or dataset and what to do."""

from __future__ import annotations

from mpstudio.engine.i18n import _


class DataError(ValueError):
    """The data cannot be used as given: a bad file, a missing column, labels out of range.

    A ValueError, so front ends treat it like any other invalid setting (exit 2).
    """


class FewerExamplesThanBatch(DataError):
    """The training split holds fewer examples than one batch; ``examples`` (per
    replica) is the largest batch the data allows (the batch-size finder's limit)."""

    def __init__(self, message: str, examples: int) -> None:
        super().__init__(message)
        self.examples = examples


class DownloadError(RuntimeError):
    """A public dataset could not be fetched (no network, server error, cut short)."""


class DataLoadStopped(Exception):
    """The user asked to stop while data was loading; nothing partial was kept."""


def unreadable(path: object, exc: OSError) -> DataError:
    """A DataError for a file that cannot be opened, naming it and the reason."""
    if isinstance(exc, PermissionError):
        return DataError(_("cannot read {path}: permission denied; check the file's "
                           "permissions").format(path=path))
    if isinstance(exc, FileNotFoundError):
        return DataError(_("{path} does not exist").format(path=path))
    if isinstance(exc, IsADirectoryError):
        return DataError(_("{path} is a folder, not a file").format(path=path))
    return DataError(_("cannot read {path}: {reason}").format(path=path,
                                                              reason=exc.strerror or exc))
