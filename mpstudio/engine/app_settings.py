"""Machine-wide settings that outlive a run (GPU memory behaviour), kept in a TOML
file in the user's config folder (``MPSTUDIO_CONFIG_DIR`` overrides it).

A file that does not parse is never overwritten: the error names it and says
what to do, so a hand edit is not lost. Tables other than mpstudio's are kept.

The sentences for people are messages (``said.message``): ``describe()``, ``problems()``
and the errors' ``str()`` are English (logs, JSON), ``description()`` and
``problem_messages()`` the messages (``said.render`` shows them in the reader's
language, and a sentence that quotes one holds it as a value), ``SettingsError.shown()``
the error in the reader's language.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs
import tomli_w

from mpstudio.engine.i18n import N_
from mpstudio.engine.said import clauses, english, message, render, stored

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CONFIG_DIR_ENV = "MPSTUDIO_CONFIG_DIR"


class SettingsError(ValueError):
    """The settings file or a value in it is wrong; the message says how to fix it.
    ``said``: the same as a stored sentence (``said.py``), shown in the reader's language
    by ``shown()``; ``str()`` is the English."""

    def __init__(self, said: Any) -> None:
        super().__init__(english(said))
        self.said = stored(said)

    def __reduce__(self) -> tuple:  # crosses to the window as it is
        return (type(self), (self.said,))

    def shown(self) -> str:
        return render(self.said)


class InvalidSettings(SettingsError):
    """The file parses but a value in it is wrong: saving new values repairs it."""


@dataclass(frozen=True)
class GpuMemorySettings:
    """``growth``: allocate GPU memory as needed instead of nearly all of it at start.
    ``limit_mb``: cap each GPU at this many MiB (a logical device). TensorFlow refuses
    both on one GPU, so they are exclusive."""

    growth: bool = False
    limit_mb: int | None = None

    def problem_messages(self) -> list[dict]:
        """What is wrong with these values, each a message (``said.render`` shows it)."""
        found = []
        if not isinstance(self.growth, bool):
            found.append(message(N_("GPU memory growth must be true or false, got {value}"),
                                 value=repr(self.growth)))
        if self.limit_mb is not None and (
            isinstance(self.limit_mb, bool) or not isinstance(self.limit_mb, int)
            or self.limit_mb < 64
        ):
            found.append(message(N_("GPU memory limit must be a whole number of MiB >= 64, "
                                    "got {value}"), value=repr(self.limit_mb)))
        if self.growth is True and self.limit_mb is not None:
            found.append(message(N_("choose memory growth or a memory limit, not both: "
                                    "TensorFlow refuses memory growth on a GPU with a limit")))
        return found

    def problems(self) -> list[str]:
        """The same in English."""
        return [english(m) for m in self.problem_messages()]

    def description(self) -> dict:
        """What these settings do, as a message (``said.render`` shows it; a sentence
        that quotes it can hold it as a value)."""
        if self.limit_mb is not None:
            return message(N_("limit {mb} MiB per GPU"), mb=self.limit_mb)
        return message(N_("growth on (allocate as needed)") if self.growth else
                       N_("TensorFlow default: reserve most GPU memory at start"))

    def describe(self) -> str:
        """The same in English."""
        return english(self.description())


@dataclass(frozen=True)
class AppSettings:
    gpu_memory: GpuMemorySettings = field(default_factory=GpuMemorySettings)

    def to_dict(self) -> dict[str, Any]:
        memory: dict[str, bool | int] = {"growth": self.gpu_memory.growth}
        if self.gpu_memory.limit_mb is not None:
            memory["limit_mb"] = self.gpu_memory.limit_mb
        return {"gpu_memory": memory}


def settings_path() -> Path:
    folder = os.environ.get(CONFIG_DIR_ENV) or platformdirs.user_config_dir("mpstudio")
    return Path(folder) / "settings.toml"


def _read_table(path: Path) -> dict[str, Any]:
    """The file's TOML as a dict ({} when there is no file); SettingsError when it
    cannot be read or parsed, which a save must not paper over."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(message(N_("cannot read settings file {path}: {error}"),
                                    path=str(path), error=str(exc))) from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(message(N_("settings file {path} is not valid TOML ({error}): fix "
                                       "it or delete it to start from the defaults"),
                                    path=str(path), error=str(exc))) from None


def load_settings(path: Path | None = None) -> AppSettings:
    """The saved settings, or the defaults when there is no file yet. A file that
    parses but holds a wrong value raises InvalidSettings (a save may repair it)."""
    path = path or settings_path()
    memory = _read_table(path).get("gpu_memory", {})
    known = {f.name for f in dataclasses.fields(GpuMemorySettings)}
    if not isinstance(memory, dict) or set(memory) - known:
        raise InvalidSettings(message(N_("settings file {path}: [gpu_memory] takes only "
                                         "{keys}"), path=str(path),
                                      keys=", ".join(sorted(known))))
    settings = AppSettings(GpuMemorySettings(**memory))
    problems = settings.gpu_memory.problem_messages()
    if problems:
        raise InvalidSettings(message(N_("settings file {path}: {problems}"), path=str(path),
                                      problems=clauses(*problems)))
    return settings


def save_settings(settings: AppSettings, path: Path | None = None) -> Path:
    """Replace the [gpu_memory] table and keep every other table in the file (TOML
    comments are not kept). Atomic: a crash leaves the old file or the new one. A
    file that does not parse is left alone (SettingsError); a symlink keeps
    pointing where it did, with the new content at its target."""
    problems = settings.gpu_memory.problem_messages()
    if problems:
        raise SettingsError(clauses(*problems))
    path = (path or settings_path()).resolve()
    table = _read_table(path)
    table.update(settings.to_dict())
    tmp_name = ""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("wb", dir=path.parent, prefix=".settings-",
                                         suffix=".tmp", delete=False) as tmp:
            tmp_name = tmp.name
            tmp.write(tomli_w.dumps(table).encode())
            tmp.flush()
            os.fsync(tmp.fileno())
        os.replace(tmp_name, path)
        _fsync_folder(path.parent)
    except OSError as exc:
        if tmp_name:
            with contextlib.suppress(OSError):
                os.unlink(tmp_name)
        raise SettingsError(message(N_("cannot write settings file {path}: {error}"),
                                    path=str(path), error=str(exc.strerror or exc))) from None
    return path


def save_gpu_memory(memory: GpuMemorySettings) -> Path:
    """Save ``memory`` as this machine's GPU memory settings, in place of what was saved
    (also of values a reader refused: InvalidSettings); SettingsError as save_settings."""
    try:
        current = load_settings()
    except InvalidSettings:  # the new values replace the wrong ones
        current = AppSettings()
    return save_settings(dataclasses.replace(current, gpu_memory=memory))


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX; Windows cannot open a folder)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
