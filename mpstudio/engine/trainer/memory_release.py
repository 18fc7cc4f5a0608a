"""Giving the device memory of finished runs back before the next one builds.

A run's model, optimizer slots and traced steps stay alive as long as anything
refers to them, and Keras' global state and TensorFlow's kernel caches hold more:
an out-of-memory retry or the next trial of a comparison would otherwise build
beside the last one, in the memory that just ran out. Callers drop their own
references first (a kept model is on disk by then); this clears the rest.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import keras


def release_device_memory(results: Iterable[Any] = ()) -> None:
    """Drop the models of ``results`` (RunResults whose models were kept or are not
    wanted), clear Keras' session and collect what nothing refers to any more."""
    for result in results:
        result.model = None
    keras.backend.clear_session(free_memory=True)
