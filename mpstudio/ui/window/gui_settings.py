"""What the window remembers between launches (QSettings, an INI file beside the
engine's settings.toml): the last run's setup, imported datasets, window geometry.

A saved value that no longer makes sense (a dataset file since deleted, a value
from an older release) is dropped with a note, never an error at start-up.
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QByteArray, QCoreApplication, QSettings

from mpstudio.engine.app_settings import settings_path
from mpstudio.engine.spec import RunSpec, SpecError
from mpstudio.engine.spec_checks import spec_problems
from mpstudio.engine.trainer.compare_options import CompareOptions, comparison_problems


def open_settings() -> QSettings:
    path = settings_path().with_name("window.ini")
    return QSettings(str(path), QSettings.Format.IniFormat)


MOST_RECENT_ENGINES = 8


class GuiSettings:
    def __init__(self, store: QSettings) -> None:
        self.store = store

    # ----------------------------------------------------------- the engine
    def recent_engines(self) -> list[str]:
        """The servers connected to, newest first (EngineTarget addresses)."""
        try:
            recent = json.loads(str(self.store.value("engine/recent", "[]")))
        except ValueError:
            return []
        return [str(a) for a in recent if isinstance(a, str)][:MOST_RECENT_ENGINES]

    def remember_engine(self, address: str, remote: str) -> None:
        """``address`` first in Recent, and how mpstudio is run there (per server)."""
        recent = [address, *(a for a in self.recent_engines() if a != address)]
        self.store.setValue("engine/recent", json.dumps(recent[:MOST_RECENT_ENGINES]))
        remotes = self._remotes()
        remotes[address] = remote
        self.store.setValue("engine/remote", json.dumps(remotes))

    def remote_for(self, address: str) -> str:
        """How mpstudio is run on ``address`` (as typed, or its ssh:// form), or ""."""
        remotes = self._remotes()
        return remotes.get(address) or remotes.get(f"ssh://{address}") or ""

    def _remotes(self) -> dict[str, str]:
        try:
            remotes = json.loads(str(self.store.value("engine/remote", "{}")))
        except ValueError:
            return {}
        return {str(k): str(v) for k, v in remotes.items()} if isinstance(remotes, dict) \
            else {}

    # ------------------------------------------------------------- the run
    def save_run(self, spec: RunSpec, with_baseline: bool,
                 paths: dict[str, dict[str, Any]], precision_picked: bool = False) -> None:
        self.store.setValue("run/spec", spec.to_toml())
        self.store.setValue("run/precision_picked", precision_picked)
        self.store.setValue("run/baseline", with_baseline)
        self.store.setValue("data/imported", json.dumps(paths))

    def load_run(self, files_here: bool = True
                 ) -> tuple[RunSpec, bool, dict[str, dict[str, Any]], list[str]]:
        """(spec, baseline box, imported paths, notes on what was dropped). ``files_here``
        False: the engine is on a server, whose files are not checked here."""
        notes: list[str] = []
        paths = self._imported(notes, files_here)
        spec = RunSpec()
        text = self.store.value("run/spec", "")
        if text:
            try:
                spec = RunSpec.from_toml(str(text))
            except SpecError as exc:
                notes.append(QCoreApplication.translate(
                    "GuiSettings", "the last session's setup could not be read ({reason}); "
                    "starting from the defaults").format(reason=exc))
        from mpstudio.engine.datasets.registry import is_registered

        problems = spec_problems(spec, files_here)
        if problems and isinstance(spec.dataset, str) and not is_registered(spec.dataset):
            notes.append(QCoreApplication.translate(
                "GuiSettings", "the last dataset is gone ({reason}); using digits").format(
                    reason=problems[0]))
            paths.pop(spec.dataset, None)
            spec = spec.replace(dataset="digits", dataset_options={})
            problems = spec_problems(spec)
        if problems:
            notes.append(QCoreApplication.translate(
                "GuiSettings", "the last session's setup no longer works ({problems}); "
                "starting from the defaults").format(
                    problems=QCoreApplication.translate("GuiSettings", "; ").join(problems)))
            spec = RunSpec()
        # a first launch's Run is a comparison: the app exists to show what mixed
        # precision does, and one float32 run shows nothing of it
        default = "false" if text else "true"
        baseline = str(self.store.value("run/baseline", default)).lower() == "true"
        return spec, baseline, paths, notes

    def first_launch(self) -> bool:
        """No setup was ever saved: mpstudio's first launch with these settings."""
        return not self.store.contains("run/spec")

    def save_open_groups(self, names: list[str]) -> None:
        self.store.setValue("setup/open_groups", json.dumps(names))

    def open_groups(self) -> list[str]:
        """The folded setup groups the user left open (none at a first launch)."""
        try:
            names = json.loads(str(self.store.value("setup/open_groups", "[]")))
        except ValueError:
            return []
        return [n for n in names if isinstance(n, str)] if isinstance(names, list) else []

    def precision_picked(self) -> bool:
        """Whether the saved precision was the user's choice (not the advisor's)."""
        return str(self.store.value("run/precision_picked", "false")).lower() == "true"

    def save_compare(self, options: CompareOptions) -> None:
        self.store.setValue("run/trials", options.repeats)
        self.store.setValue("run/baseline_math", options.baseline)
        self.store.setValue("run/profile", options.profile)
        self.store.setValue("run/size_for_timing", options.size)

    def load_compare(self) -> CompareOptions:
        """The comparison fields; anything unreadable falls back to the default."""
        try:
            repeats = int(str(self.store.value("run/trials", 1)))
        except ValueError:
            repeats = 1
        math_mode = str(self.store.value("run/baseline_math", "auto"))
        spec = RunSpec(precision="mixed_float16")
        if comparison_problems(spec, repeats, "auto"):
            repeats = 1
        if comparison_problems(spec, 1, math_mode):
            math_mode = "auto"
        profile = str(self.store.value("run/profile", "false")).lower() == "true"
        size = str(self.store.value("run/size_for_timing", "true")).lower() == "true"
        return CompareOptions(repeats, math_mode, profile, size=size)

    def _imported(self, notes: list[str], files_here: bool = True) -> dict[str, dict[str, Any]]:
        from mpstudio.engine.datasets.registry import dataset_problems

        try:
            raw = json.loads(str(self.store.value("data/imported", "{}")))
        except ValueError:
            return {}
        if not isinstance(raw, dict):
            return {}
        kept = {}
        for path, options in raw.items():
            if isinstance(options, dict) and (not files_here or not dataset_problems(path,
                                                                                 options)):
                kept[path] = options
            else:
                notes.append(QCoreApplication.translate(
                    "GuiSettings", "forgot the imported dataset {path}: it is no longer "
                    "readable").format(path=path))
        return kept

    # ----------------------------------------------------------- the window
    def save_theme(self, theme: str) -> None:
        self.store.setValue("view/theme", theme)

    def theme(self) -> str:
        """System, light or dark (``theme.THEMES``); the system's for anything else."""
        from mpstudio.ui.theme import THEMES

        value = str(self.store.value("view/theme", "system"))
        return value if value in THEMES else "system"

    def save_language(self, choice: str) -> None:
        self.store.setValue("view/language", choice)

    def language(self) -> str:
        """System or a language of ``translations.CHOICES``; the system's for anything
        else (a language a later release dropped)."""
        from mpstudio.ui.translations import CHOICES

        value = str(self.store.value("view/language", "system"))
        return value if value in CHOICES else "system"

    def save_window(self, geometry: QByteArray, state: QByteArray) -> None:
        self.store.setValue("window/geometry", geometry)
        self.store.setValue("window/state", state)

    def window(self) -> tuple[QByteArray | None, QByteArray | None]:
        geometry = self.store.value("window/geometry")
        state = self.store.value("window/state")
        return (geometry if isinstance(geometry, QByteArray) else None,
                state if isinstance(state, QByteArray) else None)

    def sync(self) -> None:
        self.store.sync()
