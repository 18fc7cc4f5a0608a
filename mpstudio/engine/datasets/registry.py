"""Dataset sources: registered names (bundled, downloaded, generated) and the user's paths.

Listing, checking options and checking availability never import TensorFlow, so
the CLI answers instantly and the GUI fills its forms before TensorFlow loads.
A source is read by a reader ("module:function", imported only when used):
``reader(dataset, options, ctx) -> SourceData``; a source that builds its own
pipeline (synthetic) has a loader ``loader(spec, ctx, replicas) -> DataBundle``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mpstudio.engine.datasets.context import LoadContext
from mpstudio.engine.datasets.errors import DataError
from mpstudio.engine.datasets.user_sources import (
    USER_INPUT_KINDS,
    USER_KINDS,
    looks_like_path,
    path_problems,
    user_kind,
)
from mpstudio.engine.i18n import N_, _
from mpstudio.engine.lazy_import import resolve
from mpstudio.engine.registry import Registry

if TYPE_CHECKING:
    from mpstudio.engine.datasets.bundle import DataBundle
    from mpstudio.engine.datasets.report import DataReport
    from mpstudio.engine.datasets.source_data import SourceData
    from mpstudio.engine.spec import RunSpec

OptionsValidator = Callable[[dict[str, Any]], list[str]]
BUNDLED, DOWNLOAD, GENERATED = "bundled", "download", "generated"


@dataclass(frozen=True)
class DatasetEntry:
    name: str
    description: str  # English, marked with N_(): shown as _(description)
    origin: str  # bundled | download | generated
    reader: str | None = None  # "module:function" -> SourceData
    loader: str | None = None  # "module:function" -> DataBundle (sources with own pipeline)
    report: str | None = None  # "module:function" (options) -> DataReport, for loader sources
    validate_options: OptionsValidator | None = None
    kind: str | None = None  # image | sequence | flat when fixed; None: depends on options
    input_shape: tuple[int, ...] | None = None  # when known without reading (model previews)
    num_classes: int | None = None
    input_scale: float | None = None  # uint8 images the model divides (model previews)


@dataclass(frozen=True)
class Availability:
    offline: bool  # usable now with no network
    detail: str


_DATASETS: Registry[DatasetEntry] = Registry(N_("dataset"))


def register_dataset(entry: DatasetEntry) -> None:
    _DATASETS.register(entry.name, entry)


def dataset_names() -> list[str]:
    return _DATASETS.names()


def dataset_entry(name: str) -> DatasetEntry:
    return _DATASETS.get(name)


def is_registered(dataset: str) -> bool:
    return dataset in _DATASETS.names()


def display_name(dataset: str) -> str:
    """"mnist", or the file or folder name of a user's path."""
    return dataset if is_registered(dataset) else (Path(dataset).name or dataset)


def dataset_problems(dataset: str, options: dict[str, Any]) -> list[str]:
    """Why ``dataset`` with ``options`` cannot be used, found without reading the data."""
    if is_registered(dataset):
        entry = dataset_entry(dataset)
        if entry.validate_options is None:
            return (
                [_("dataset {name!r} takes no options, got {options}").format(
                    name=dataset, options=", ".join(sorted(options)))]
                if options else []
            )
        return entry.validate_options(options)
    if looks_like_path(dataset):
        return path_problems(dataset, options)
    return [
        _("unknown dataset {name!r}; choose one of {names}, or give the path of an .npz "
          "file, a .csv file or an image folder").format(name=dataset,
                                                         names=", ".join(dataset_names()))
    ]


def known_kind(dataset: str) -> str | None:
    """The input kind (image, flat...) when it is known without reading the data."""
    if is_registered(dataset):
        return dataset_entry(dataset).kind
    if looks_like_path(dataset):
        return USER_INPUT_KINDS.get(user_kind(Path(dataset).expanduser()) or "")
    return None


def needs_tensorflow(dataset: str) -> bool:
    """Reading this source imports TensorFlow (image decoding, generated data)."""
    if is_registered(dataset):
        return dataset_entry(dataset).loader is not None
    return user_kind(Path(dataset).expanduser()) == "image_folder"


def availability(name: str) -> Availability:
    entry = dataset_entry(name)
    if entry.origin == BUNDLED:
        return Availability(True, _("bundled with mpstudio"))
    if entry.origin == GENERATED:
        return Availability(True, _("generated on the fly"))
    from mpstudio.engine.datasets.public import PUBLIC, cached_folders

    public = PUBLIC[name]
    folders = cached_folders(name)
    if folders:
        return Availability(True, _("on disk in {folders}").format(
            folders=", ".join(map(str, folders))))
    size = public.download_size / 1e6
    return Availability(False, _("downloads {size:,.1f} MB on first use").format(size=size))


def _context(dataset: str, ctx: LoadContext | None) -> LoadContext:
    return ctx if ctx is not None else LoadContext(display_name(dataset))


def _refuse_problems(dataset: str, options: dict[str, Any]) -> None:
    problems = dataset_problems(dataset, options)
    if problems:
        raise DataError("; ".join(problems))


def read_source(
    dataset: str, options: dict[str, Any], ctx: LoadContext | None = None
) -> SourceData:
    """Read an array source (anything but synthetic): downloads, files, the bundled set."""
    _refuse_problems(dataset, options)
    if is_registered(dataset):
        reader = dataset_entry(dataset).reader
        if reader is None:
            raise ValueError(f"dataset {dataset!r} has no arrays to read; load it instead")
    else:
        kind = user_kind(Path(dataset).expanduser())
        assert kind is not None  # path_problems said so
        reader = USER_KINDS[kind].reader
    return resolve(reader)(dataset, options, _context(dataset, ctx))


def inspect_dataset(
    dataset: str, options: dict[str, Any], ctx: LoadContext | None = None
) -> DataReport:
    """What the source holds (sample count, shape, classes, values), without training."""
    report = dataset_entry(dataset).report if is_registered(dataset) else None
    if report:
        _refuse_problems(dataset, options)
        return resolve(report)(options)
    return read_source(dataset, options, ctx).report()


def load_dataset(spec: RunSpec, ctx: LoadContext | None = None, replicas: int = 1) -> DataBundle:
    """``spec.dataset`` as batched tf.data pipelines, split and shuffled from the seed."""
    ctx = _context(spec.dataset, ctx)
    loader = dataset_entry(spec.dataset).loader if is_registered(spec.dataset) else None
    if loader:
        return resolve(loader)(spec, ctx, replicas)
    from mpstudio.engine.datasets.pipeline import bundle_from_source

    data = read_source(spec.dataset, spec.dataset_options, ctx)
    return bundle_from_source(
        data, spec.batch_size, spec.validation_split, spec.seed, spec.data, replicas
    )


def _register_builtins() -> None:
    from mpstudio.engine.datasets.public import PUBLIC
    from mpstudio.engine.datasets.synthetic_options import validate_synthetic_options

    pkg = "mpstudio.engine.datasets"
    register_dataset(
        DatasetEntry(
            name="digits",
            description=N_(
                "UCI optical handwritten digits: 1,797 8x8 grayscale images, 10 classes"),
            origin=BUNDLED,
            reader=f"{pkg}.digits:read_digits_source",
            kind="image",
            input_shape=(8, 8, 1),
            num_classes=10,
            input_scale=1 / 16,  # values 0..16, stored as uint8
        )
    )
    for public in PUBLIC.values():
        register_dataset(
            DatasetEntry(
                name=public.name,
                description=public.description,
                origin=DOWNLOAD,
                reader=f"{pkg}.public:read_public",
                kind="image",
                input_shape=public.input_shape,
                num_classes=public.num_classes,
                input_scale=1 / 255,  # every public set is uint8 pixels
            )
        )
    register_dataset(
        DatasetEntry(
            name="synthetic",
            description=N_(
                "random inputs of a chosen shape and class count, generated once and "
                "repeated: measures pure compute with no input pipeline in the way"),
            origin=GENERATED,
            loader=f"{pkg}.synthetic:load_synthetic",
            report=f"{pkg}.synthetic_options:synthetic_report",
            validate_options=validate_synthetic_options,
        )
    )


_register_builtins()
