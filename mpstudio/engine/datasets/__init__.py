"""Dataset sources. The registry is light; each source imports TensorFlow when loaded."""

from mpstudio.engine.datasets.registry import (
    DatasetEntry,
    dataset_entry,
    dataset_names,
    load_dataset,
    register_dataset,
)

__all__ = ["DatasetEntry", "dataset_entry", "dataset_names", "load_dataset", "register_dataset"]
