"""A run spec held against the dataset and template registries.

RunSpec (spec.py) checks only its own settings, so the registries can take a spec
without importing it back; whether the dataset exists and takes its options, and
whether the template takes that kind of data, is asked here, above both. Check
(``spec_problems``, ``validate_spec``) and load (``load_spec``) specs through here.
Like both registries, this never imports TensorFlow.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mpstudio.engine.datasets.registry import dataset_problems, is_registered, known_kind
from mpstudio.engine.datasets.user_sources import looks_like_path
from mpstudio.engine.i18n import N_, _
from mpstudio.engine.spec import RunSpec, SpecError, choice_problems
from mpstudio.engine.templates.registry import kind_problem, template_names
from mpstudio.engine.templates.user_model import is_model_file, model_file_problem


def spec_problems(spec: RunSpec, files_here: bool = True) -> list[str]:
    """Every reason ``spec`` cannot run, each a sentence naming the field: the dataset,
    the template, then the settings (RunSpec.setting_problems). ``files_here`` False:
    its dataset and model file paths are another machine's (a window whose engine is on
    a server), so only what needs no file is checked; the engine checks the rest."""
    out = list(_dataset_problems(spec, files_here))
    if is_model_file(spec.template):  # the user's own model, checked as it loads
        problem = model_file_problem(spec.template) if files_here else None
        out += [problem] if problem else []
    else:
        out += choice_problems(N_("template"), spec.template, template_names())
    if not out and spec.template in template_names() and (
            files_here or is_registered(spec.dataset)):
        kind = known_kind(spec.dataset)  # e.g. a CSV is flat: refuse cnn before reading it
        problem = kind_problem(spec.template, kind) if kind else None
        out += [problem] if problem else []
    return out + spec.setting_problems()


def validate_spec(spec: RunSpec) -> list[str]:
    """Raise SpecError listing every problem; return the spec's warnings otherwise."""
    problems = spec_problems(spec)
    if problems:
        raise SpecError(problems)
    return spec.warnings()


def load_spec(path: str | Path) -> RunSpec:
    """A saved run spec (SpecError if unreadable), its dataset path and a model file's
    path made absolute: a relative path in a config file means relative to that file."""
    spec = RunSpec.read(path)
    folder = Path(path).parent
    template = spec.template
    if is_model_file(template) and not Path(template).expanduser().is_absolute():
        template = str(folder / Path(template).expanduser())
    return spec.replace(dataset=_beside(spec.dataset, folder), template=template)


def _dataset_problems(spec: RunSpec, files_here: bool = True) -> list[str]:
    if not isinstance(spec.dataset, str) or not spec.dataset:
        return [_("dataset must be a name or a path, got {value!r}").format(value=spec.dataset)]
    if not isinstance(spec.dataset_options, dict):
        return [_("dataset options must be a table of option names and values")]
    if not files_here and not is_registered(spec.dataset) and looks_like_path(spec.dataset):
        return []  # another machine's file: its engine reads it and says what is wrong
    return dataset_problems(spec.dataset, spec.dataset_options)


def _beside(dataset: Any, folder: Path) -> Any:
    """A registered name stays a name, even with a file of that name beside the config."""
    if not isinstance(dataset, str) or is_registered(dataset) or Path(dataset).is_absolute():
        return dataset
    candidate = folder / Path(dataset).expanduser()
    if looks_like_path(dataset) or candidate.exists():
        return str(candidate.resolve())
    return dataset
