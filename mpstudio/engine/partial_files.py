"""What a write leaves half-done when its process is killed (kill -9, a power cut): an
export's staging folder beside the user's files, its scratch folder in the temp folder,
an atomic write's temp file. Each carries its writer's pid in its name
(``.NAME.partial-PID-XXXX``, ``mpstudio-export-PID-XXXX``), so any later writer into
the same folder removes those whose process is gone, and never one of a process that
is still at work. Best effort: what cannot be removed stays."""

from __future__ import annotations

import os
import re
import shutil
import time
from pathlib import Path

import psutil

PARTIAL_MARK = ".partial-"  # in the name of every half-written file or folder beside a target
OLD_UNOWNED_SECONDS = 24 * 3600  # a staging folder without an owner's pid (older releases)


def partial_prefix(name: str) -> str:
    """The name a half-written ``name`` starts with, this process its owner."""
    return f".{name}{PARTIAL_MARK}{os.getpid()}-"


def remove_stale_partials(parent: Path, mark: str = PARTIAL_MARK,
                          hidden: bool = True) -> list[Path]:
    """Delete ``parent``'s files and folders named ``...{mark}{pid}-...`` (starting with a
    dot when ``hidden``) whose process no longer runs, and folders with the mark but no
    pid (older releases) untouched for a day. Returns what was removed."""
    owned = re.compile(re.escape(mark) + r"(\d+)-")
    removed: list[Path] = []
    try:
        entries = [e for e in parent.iterdir() if mark in e.name
                   and (not hidden or e.name.startswith("."))]
    except OSError:
        return removed
    for entry in entries:
        match = owned.search(entry.name)
        try:
            folder = entry.is_dir() and not entry.is_symlink()
            if match:
                stale = not psutil.pid_exists(int(match.group(1)))
            else:  # a user's own file is never taken for an unowned partial
                stale = folder and time.time() - entry.stat().st_mtime > OLD_UNOWNED_SECONDS
            if not stale:
                continue
            if folder:
                shutil.rmtree(entry)
            else:
                entry.unlink()
        except OSError:
            continue
        removed.append(entry)
    return removed
