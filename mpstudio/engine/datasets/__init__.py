"""Dataset sources. The registry is light; each source imports TensorFlow when loaded."""

from mpstudio.engine.datasets.registry import (
    DatasetEntry,
    availability,
    dataset_entry,
    dataset_names,
    dataset_problems,
    inspect_dataset,
    load_dataset,
    read_source,
    register_dataset,
)

__all__ = [
    "DatasetEntry",
    "availability",
    "dataset_entry",
    "dataset_names",
    "dataset_problems",
    "inspect_dataset",
    "load_dataset",
    "read_source",
    "register_dataset",
]
