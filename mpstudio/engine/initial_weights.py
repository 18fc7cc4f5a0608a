"""One fingerprint for a model's weights, so two runs can be shown to start alike.

A SHA-256 over every variable in ``model.weights`` order: its path, dtype, shape and
bytes. Mixed-precision policies keep their variables in float32, so pinning a layer
to float32 (only its compute dtype changes) leaves the hash as it was; a different
seed, template or initializer changes it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np


def weights_hash(model, values: Sequence[np.ndarray] | None = None) -> str:
    """The hex SHA-256 of ``model``'s weights (paths, dtypes, shapes and values).
    ``values``: ``model.get_weights()`` already read (the same order), not read again."""
    digest = hashlib.sha256()
    if values is None:
        values = [variable.numpy() for variable in model.weights]
    for variable, raw in zip(model.weights, values, strict=True):
        value = np.ascontiguousarray(np.asarray(raw))
        header = f"{variable.path}|{value.dtype.str}|{'x'.join(map(str, value.shape))}\n"
        digest.update(header.encode("utf-8"))
        digest.update(value.tobytes())
    return digest.hexdigest()
