"""Crafted .keras files, made from a real one saved by Keras: a member replaced by
gigabytes that compress to kilobytes (a zip bomb), or a layer whose class names any
Python callable. Shared by the export tests and the template tests, which open user
files the same way."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path


def with_member(source: Path, target: Path, name: str, chunk: bytes, count: int) -> Path:
    """``source`` (a real .keras file) with member ``name`` replaced by ``chunk`` x count."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w",
                                                         zipfile.ZIP_DEFLATED) as new:
        for info in old.infolist():
            if info.filename != name:
                new.writestr(info, old.read(info))
        with new.open(name, "w", force_zip64=True) as member:
            for _ in range(count):
                member.write(chunk)
    return target


def with_layer_class(source: Path, target: Path, layer: str, module: str, cls: str) -> Path:
    """``source`` with layer ``layer``'s config naming ``module.cls`` as its class (what a
    crafted file does to make a loader call, say, os.system)."""
    with zipfile.ZipFile(source) as old:
        members = {info.filename: old.read(info) for info in old.infolist()}
    config = json.loads(members["config.json"])
    (found,) = [entry for entry in config["config"]["layers"] if entry["name"] == layer]
    found.update(module=module, class_name=cls, registered_name=None,
                 config={"command": "touch pwned"})
    members["config.json"] = json.dumps(config).encode()
    with zipfile.ZipFile(target, "w") as new:
        for name, data in members.items():
            new.writestr(name, data)
    return target


def small_classifier(path: Path, input_shape: tuple[int, ...] = (16, 16, 3),
                     classes: int = 5) -> Path:
    """A tiny saved Keras classifier of its own input shape and classes (a user's model
    that no bundled dataset fits): a convolution, pooling and a softmax head."""
    import keras

    inputs = keras.Input(input_shape)
    x = keras.layers.Conv2D(8, 3, activation="relu")(inputs)
    x = keras.layers.GlobalAveragePooling2D()(x)
    outputs = keras.layers.Dense(classes, activation="softmax")(x)
    keras.Model(inputs, outputs).save(path)
    return path
