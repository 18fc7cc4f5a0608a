"""The user's own data: which kind of source a path is, and its options, checked without TF.

A dataset that is not a registered name is a path: an ``.npz`` file, a ``.csv``
file or a folder of images with one sub-folder per class.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mpstudio.engine.i18n import N_, _

NPZ, CSV, IMAGE_FOLDER = "npz", "csv", "image_folder"
SUFFIXES = {".npz": NPZ, ".csv": CSV, ".tsv": CSV}
USER_INPUT_KINDS = {CSV: "flat", IMAGE_FOLDER: "image"}  # .npz: depends on the arrays
COLOR_MODES = {"grayscale": 1, "rgb": 3, "rgba": 4}
COLOR_MODE_NAMES = {"grayscale": N_("grayscale"), "rgb": N_("rgb"), "rgba": N_("rgba")}
MAX_IMAGE_SIDE = 4096
KIND_NAMES = {NPZ: N_("npz"), CSV: N_("csv"), IMAGE_FOLDER: N_("image folder")}


@dataclass(frozen=True)
class UserKind:
    kind: str
    reader: str  # "module:function" (path, options, ctx) -> SourceData
    options: tuple[str, ...]


USER_KINDS = {
    NPZ: UserKind(NPZ, "mpstudio.engine.datasets.user_npz:read_npz", ()),
    CSV: UserKind(CSV, "mpstudio.engine.datasets.user_csv:read_csv", ("label_column",)),
    IMAGE_FOLDER: UserKind(
        IMAGE_FOLDER, "mpstudio.engine.datasets.user_images:read_image_folder",
        ("image_size", "color_mode"),
    ),
}


@dataclass(frozen=True)
class ImageFolderOptions:
    image_size: tuple[int, int] = (64, 64)  # height, width every image is resized to
    color_mode: str = "rgb"

    @classmethod
    def from_dict(cls, options: dict[str, Any]) -> ImageFolderOptions:
        size = tuple(options.get("image_size", cls.image_size))
        return cls((int(size[0]), int(size[1])), options.get("color_mode", cls.color_mode))


@dataclass(frozen=True)
class CsvOptions:
    label_column: str = "label"

    @classmethod
    def from_dict(cls, options: dict[str, Any]) -> CsvOptions:
        return cls(options.get("label_column", cls.label_column))


def looks_like_path(dataset: str) -> bool:
    return (
        "/" in dataset
        or os.sep in dataset
        or Path(dataset).suffix.lower() in SUFFIXES
        or os.path.exists(dataset)
    )


def user_kind(path: Path) -> str | None:
    """The source kind of an existing path, or None for a file mpstudio cannot read."""
    if path.is_dir():
        return IMAGE_FOLDER
    return SUFFIXES.get(path.suffix.lower())


def not_a_file(path: Path) -> str | None:
    """What ``path`` is when it is neither a regular file nor a folder (a named pipe, a
    device, a socket: opening one can block forever), else None. Never opens it."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None  # missing or unreadable: the caller's own message says so
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    kinds = ((stat.S_ISFIFO, N_("a named pipe (FIFO)")), (stat.S_ISSOCK, N_("a socket")),
             (stat.S_ISCHR, N_("a character device")), (stat.S_ISBLK, N_("a block device")))
    return _(next((name for test, name in kinds if test(mode)), N_("not a regular file")))


def path_problems(dataset: str, options: dict[str, Any]) -> list[str]:
    """Why ``dataset`` (a path) cannot be used, before anything is read."""
    path = Path(dataset).expanduser()
    if not path.exists():
        return [_("dataset path {path!r} does not exist").format(path=dataset)]
    special = not_a_file(path)
    if special:
        return [_("{path} is {what}, not a file: mpstudio reads regular .npz and .csv files "
                  "and folders of images; save the data to a file and use that").format(
                      path=dataset, what=special)]
    kind = user_kind(path)
    if kind is None:
        if path.suffix:
            return [_("{path}: mpstudio reads .npz files, .csv files and folders of images "
                      "(one sub-folder per class), not {suffix}").format(
                          path=dataset, suffix=path.suffix)]
        return [_("{path}: mpstudio reads .npz files, .csv files and folders of images "
                  "(one sub-folder per class), not files without a suffix").format(
                      path=dataset)]
    return option_problems(kind, options, dataset)


def option_problems(kind: str, options: dict[str, Any], dataset: str) -> list[str]:
    valid = USER_KINDS[kind].options
    what = _(KIND_NAMES[kind])
    problems = [
        (_("{path}: {kind} data takes the options {valid}, not {key!r}") if valid else
         _("{path}: {kind} data takes no options, not {key!r}")).format(
             path=dataset, kind=what, valid=", ".join(valid), key=key)
        for key in options
        if key not in valid
    ]
    if "image_size" in options:
        size = options["image_size"]
        if (
            not isinstance(size, (list, tuple))
            or len(size) != 2
            or not all(
                isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= MAX_IMAGE_SIDE
                for n in size
            )
        ):
            problems.append(_(
                "image size must be two integers from 1 to {most} (height, width) such as "
                "[64, 64], got {size!r}").format(most=MAX_IMAGE_SIDE, size=size))
    if "color_mode" in options and options["color_mode"] not in COLOR_MODES:
        problems.append(_("color mode must be one of {choices}, got {mode!r}").format(
            choices=", ".join(COLOR_MODES), mode=options["color_mode"]))
    if "label_column" in options and (
        not isinstance(options["label_column"], str) or not options["label_column"]
    ):
        problems.append(_("label column must be a column name, got {column!r}").format(
            column=options["label_column"]))
    return problems
