"""Where downloaded datasets live, and the mirror users behind a firewall can point to."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

DATA_DIR_ENV = "MPSTUDIO_DATA_DIR"  # overrides the download folder
MIRROR_ENV = "MPSTUDIO_DATASETS_MIRROR"  # base URL of a mirror holding the same files


def datasets_dir() -> Path:
    """The folder downloads go to: $MPSTUDIO_DATA_DIR, else the user cache folder."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_cache_dir("mpstudio", appauthor=False)) / "datasets"


def keras_datasets_dir() -> Path:
    """Where Keras' own loaders keep their downloads ($KERAS_HOME or ~/.keras)."""
    home = os.environ.get("KERAS_HOME") or os.path.join(os.path.expanduser("~"), ".keras")
    return Path(home) / "datasets"


def mirror_url(url: str) -> str:
    """``url`` on the mirror named by $MPSTUDIO_DATASETS_MIRROR (same file name), if set."""
    base = os.environ.get(MIRROR_ENV)
    if not base:
        return url
    return base.rstrip("/") + "/" + url.rsplit("/", 1)[-1]
