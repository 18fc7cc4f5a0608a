"""The dataset registry: names, descriptions and loaders, listed without TensorFlow.

A source registers a loader reference ("module:function") taking a RunSpec and
returning a DataBundle. Later sources (Keras downloads, user files) plug in here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mpstudio.engine.lazy_import import resolve
from mpstudio.engine.registry import Registry

if TYPE_CHECKING:
    from mpstudio.engine.datasets.bundle import DataBundle
    from mpstudio.engine.spec import RunSpec

OptionsValidator = Callable[[dict[str, Any]], list[str]]


@dataclass(frozen=True)
class DatasetEntry:
    name: str
    description: str
    loader: str  # "module:function"; imported only when the dataset is loaded
    offline: bool  # usable with no network
    validate_options: OptionsValidator | None = None


_DATASETS: Registry[DatasetEntry] = Registry("dataset")


def register_dataset(entry: DatasetEntry) -> None:
    _DATASETS.register(entry.name, entry)


def dataset_names() -> list[str]:
    return _DATASETS.names()


def dataset_entry(name: str) -> DatasetEntry:
    return _DATASETS.get(name)


def validate_dataset_options(name: str, options: dict[str, Any]) -> list[str]:
    entry = dataset_entry(name)
    if entry.validate_options is None:
        return [f"dataset {name!r} takes no options, got {sorted(options)}"] if options else []
    return entry.validate_options(options)


def load_dataset(spec: RunSpec) -> DataBundle:
    """Load ``spec.dataset`` as batched tf.data pipelines, split and shuffled from the seed."""
    return resolve(dataset_entry(spec.dataset).loader)(spec)


def _register_builtins() -> None:
    from mpstudio.engine.datasets.synthetic_options import validate_synthetic_options

    register_dataset(
        DatasetEntry(
            name="digits",
            description=(
                "UCI optical handwritten digits: 1,797 8x8 grayscale images, 10 classes "
                "(bundled, works offline)"
            ),
            loader="mpstudio.engine.datasets.digits:load_digits",
            offline=True,
        )
    )
    register_dataset(
        DatasetEntry(
            name="synthetic",
            description=(
                "random inputs of a chosen shape and class count, generated once and "
                "repeated: measures pure compute with no input pipeline in the way"
            ),
            loader="mpstudio.engine.datasets.synthetic:load_synthetic",
            offline=True,
            validate_options=validate_synthetic_options,
        )
    )


_register_builtins()
