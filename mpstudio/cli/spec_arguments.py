"""Argument helpers more than one command shares: the dataset-source flags and the
dataset argument. ``train``, ``compare`` and ``data show`` take the same source
options, so they are declared and applied here, once, below every command module."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from mpstudio.engine.datasets.registry import is_registered
from mpstudio.engine.datasets.user_sources import looks_like_path
from mpstudio.engine.i18n import _
from mpstudio.engine.spec import SpecError


def add_source_options(parser: argparse.ArgumentParser) -> None:
    """Options of particular dataset sources (shared by train, compare and data show)."""
    add = parser.add_argument
    add("--image-size", metavar="H,W",
        help=_("image folder: resize every image to this (64,64)"))
    add("--color-mode", metavar=_("COLOR_MODE"),
        help=_("image folder: grayscale, rgb or rgba (rgb)"))
    add("--label-column", metavar=_("NAME"),
        help=_("CSV: the column holding the labels (label)"))
    add("--synthetic-shape", metavar="H,W,C", help=_("synthetic data: input shape (32,32,3)"))
    add("--synthetic-classes", type=int, metavar=_("SYNTHETIC_CLASSES"),
        help=_("synthetic data: number of classes (10)"))
    add("--synthetic-samples", type=int, metavar=_("SYNTHETIC_SAMPLES"),
        help=_("synthetic data: examples per epoch (8192)"))


def source_options(args: argparse.Namespace, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` with the dataset-source flags given on the command line applied."""
    options = dict(options)
    if args.image_size is not None:
        options["image_size"] = _shape(args.image_size, "--image-size", "64,64")
    if args.synthetic_shape is not None:
        options["shape"] = _shape(args.synthetic_shape, "--synthetic-shape", "32,32,3")
    plain = {"color_mode": args.color_mode, "label_column": args.label_column,
             "classes": args.synthetic_classes, "samples": args.synthetic_samples}
    options.update({key: value for key, value in plain.items() if value is not None})
    return options


def dataset_argument(dataset: str) -> str:
    """A path given on the command line, made absolute so a saved config works anywhere."""
    if is_registered(dataset) or not looks_like_path(dataset):
        return dataset
    return str(Path(dataset).expanduser().resolve())


def parse_sizes(text: str) -> tuple[int, ...] | None:
    """"32,32,3" or "32x32x3" as sizes; None for anything else: an empty size ("32,,3",
    a typo that must not predict 32x3), a word, a size below 1."""
    parts = text.strip().replace("x", ",").split(",")
    try:
        sizes = tuple(int(part) for part in parts)
    except ValueError:  # "" included: int("") fails
        return None
    return sizes if all(size > 0 for size in sizes) else None


def _shape(text: str, option: str, example: str) -> list[int]:
    sizes = parse_sizes(text)
    if sizes is None:
        what = _("image size") if option == "--image-size" else _("synthetic shape")
        raise SpecError([_("{what} must look like {example}, got {text!r}").format(
            what=what, example=example, text=text)])
    return list(sizes)
