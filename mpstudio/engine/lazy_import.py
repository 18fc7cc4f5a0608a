"""Resolve "package.module:attribute" references, so registries can list entries
without importing TensorFlow until one is actually used."""

from __future__ import annotations

import importlib
from typing import Any


def resolve(reference: str) -> Any:
    module_name, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module_name), attribute)
