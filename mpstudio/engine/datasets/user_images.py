"""A folder of images with one sub-folder per class, resized to one size, kept as uint8.

Files are decoded in parallel by tf.data. Before that, every image file's first
bytes are checked, so a file that only pretends to be an image is named in the
error instead of failing somewhere inside TensorFlow.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import tensorflow as tf

from mpstudio.engine.datasets.context import LoadContext
from mpstudio.engine.datasets.errors import DataError, unreadable
from mpstudio.engine.datasets.features import IMAGE
from mpstudio.engine.datasets.source_data import DIVIDE, Scaling, SourceData
from mpstudio.engine.datasets.user_sources import (
    COLOR_MODE_NAMES,
    COLOR_MODES,
    ImageFolderOptions,
    not_a_file,
)
from mpstudio.engine.i18n import _

IMAGE_SUFFIXES = (".bmp", ".gif", ".jpeg", ".jpg", ".png")  # what tf.io.decode_image reads
SIGNATURES = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"BM")
DECODE_BATCH = 64


def _visible(path: Path) -> bool:
    return not path.name.startswith(".")


def list_images(root: Path) -> tuple[list[str], list[list[Path]], list[Path]]:
    """(class names, image files per class, ignored files), classes in sorted order."""
    try:
        entries = sorted(p for p in root.iterdir() if _visible(p))
    except OSError as exc:
        raise unreadable(root, exc) from None
    class_dirs = [p for p in entries if p.is_dir()]
    loose = [p for p in entries if p.is_file()]
    if not class_dirs:
        raise DataError((_(
            "{root} has no class sub-folders (it holds files directly); put each class's "
            "images in its own sub-folder, e.g. {root}/cats/1.jpg and {root}/dogs/1.jpg")
            if loose else _(
            "{root} has no class sub-folders; put each class's images in its own "
            "sub-folder, e.g. {root}/cats/1.jpg and {root}/dogs/1.jpg")).format(root=root))
    if len(class_dirs) == 1:
        raise DataError(_(
            "{root} has only one class sub-folder ({folder}); a classifier needs at least "
            "two classes").format(root=root, folder=class_dirs[0].name))
    files: list[list[Path]] = []
    ignored = list(loose)
    for folder in class_dirs:
        found = _files_under(folder)
        images = [p for p in found if p.suffix.lower() in IMAGE_SUFFIXES]
        ignored += [p for p in found if p.suffix.lower() not in IMAGE_SUFFIXES]
        if not images:
            raise DataError(_(
                "{folder} has no images ({suffixes}); remove the folder or add its "
                "images").format(folder=folder, suffixes=", ".join(IMAGE_SUFFIXES)))
        files.append(images)
    return [p.name for p in class_dirs], files, ignored


def _files_under(folder: Path) -> list[Path]:
    """Every visible file under ``folder``, sorted; a folder that cannot be read is an error
    (rglob would skip it silently and the class would look empty)."""

    def fail(exc: OSError) -> None:
        raise unreadable(exc.filename or folder, exc)

    found = []
    for dirpath, dirnames, filenames in os.walk(folder, onerror=fail):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        found += [Path(dirpath, f) for f in filenames if not f.startswith(".")]
    return sorted(found)


def check_signature(path: Path) -> None:
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:  # TensorFlow takes paths as UTF-8 text only
        shown = str(path).encode("utf-8", "backslashreplace").decode("utf-8")
        raise DataError(_("{path} has a file name that is not UTF-8 text (shown escaped); "
                          "rename it").format(path=shown)) from None
    special = not_a_file(path)
    if special:  # reading a named pipe would wait forever for a writer
        raise DataError(_("{path} is {what}, not an image file; remove it from the "
                          "folder").format(path=path, what=special))
    try:
        with open(path, "rb") as fh:
            head = fh.read(8)
    except OSError as exc:
        raise unreadable(path, exc) from None
    if not head.startswith(SIGNATURES):
        raise DataError(_(
            "{path} is not a PNG, JPEG, GIF or BMP image (it starts with {head!r}); remove "
            "it or replace it with a real image").format(path=path, head=head[:8]))


def _to_channels(image: tf.Tensor, channels: int) -> tf.Tensor:
    """Any of 1, 2 (gray + alpha), 3 or 4 channels to ``channels``. decode_image cannot
    do this itself for every format (no grayscale BMP/GIF, no RGBA JPEG)."""
    have = tf.shape(image)[-1]
    rgb = tf.case(
        [(tf.equal(have, 1), lambda: tf.image.grayscale_to_rgb(image)),
         (tf.equal(have, 2), lambda: tf.image.grayscale_to_rgb(image[..., :1]))],
        default=lambda: image[..., :3],
    )
    if channels == 3:
        return rgb
    if channels == 1:
        return tf.cast(tf.round(tf.image.rgb_to_grayscale(tf.cast(rgb, tf.float32))), tf.uint8)
    opaque = tf.fill(tf.concat([tf.shape(image)[:-1], [1]], 0), tf.constant(255, tf.uint8))
    alpha = tf.case(
        [(tf.equal(have, 4), lambda: image[..., 3:]),
         (tf.equal(have, 2), lambda: image[..., 1:])],
        default=lambda: opaque,
    )
    return tf.concat([rgb, alpha], axis=-1)


def _decoder(size: tuple[int, int], channels: int):
    def decode(path: tf.Tensor) -> tf.Tensor:
        image = tf.io.decode_image(tf.io.read_file(path), expand_animations=False)
        image = _to_channels(image, channels)
        image = tf.image.resize(image, size)  # bilinear, as image_dataset_from_directory
        return tf.cast(tf.clip_by_value(tf.round(image), 0, 255), tf.uint8)

    return decode


def _decode_all(paths: list[Path], opts: ImageFolderOptions, ctx: LoadContext) -> np.ndarray:
    channels = COLOR_MODES[opts.color_mode]
    decode = _decoder(opts.image_size, channels)
    ds = tf.data.Dataset.from_tensor_slices([str(p) for p in paths])
    ds = ds.map(decode, num_parallel_calls=tf.data.AUTOTUNE, deterministic=True)
    out = np.empty((len(paths), *opts.image_size, channels), dtype=np.uint8)
    done = 0
    try:
        for batch in ds.batch(DECODE_BATCH).prefetch(2):
            out[done:done + len(batch)] = batch.numpy()
            done += len(batch)
            ctx.progress(_("reading images"), done, len(paths))
            ctx.check_stop()
    except (tf.errors.InvalidArgumentError, tf.errors.UnknownError) as exc:
        _name_bad_image(paths[done:], decode, exc)
    return out


def _name_bad_image(paths: list[Path], decode, exc: Exception) -> None:
    """The fast path failed somewhere in this stretch: decode one by one to name the file."""
    for path in paths:
        try:
            decode(tf.constant(str(path)))
        except (tf.errors.InvalidArgumentError, tf.errors.UnknownError) as err:
            raise DataError(_(
                "{path} is damaged or not a readable image ({error}); remove or replace "
                "it").format(path=path, error=_plain(err))) from None
    raise DataError(_("reading the images failed: {error}").format(error=exc)) from None


def _plain(err: tf.errors.OpError) -> str:
    """TensorFlow's message without its graph and op decorations."""
    text = (err.message or type(err).__name__).strip().splitlines()[0]
    text = re.sub(r"\{\{[^}]*\}\}\s*", "", text)
    return re.sub(r"\s*\[Op:\w+\].*$", "", text).strip() or type(err).__name__


def read_image_folder(dataset: str, options: dict[str, Any], ctx: LoadContext) -> SourceData:
    opts = ImageFolderOptions.from_dict(options)
    root = Path(dataset).expanduser()
    class_names, files, ignored = list_images(root)
    paths = [p for group in files for p in group]
    for i, path in enumerate(paths):
        check_signature(path)
        if i % 256 == 0:
            ctx.progress(_("checking images"), i, len(paths))
            ctx.check_stop()
    ctx.progress(_("checking images"), len(paths), len(paths))
    x = _decode_all(paths, opts, ctx)
    y = np.concatenate([np.full(len(group), i, dtype=np.int32) for i, group in enumerate(files)])
    height, width = opts.image_size
    notes = [_("every image resized to {height}x{width}, {mode}").format(
        height=height, width=width, mode=_(COLOR_MODE_NAMES[opts.color_mode]))]
    if ignored:
        shown = ", ".join(str(p.relative_to(root)) for p in ignored[:5])
        notes.append((_("ignored {count} files that are not images: {files} and {more} more")
                      if len(ignored) > 5 else
                      _("ignored {count} files that are not images: {files}")).format(
                          count=len(ignored), files=shown, more=len(ignored) - 5))
    return SourceData(
        name=root.name, origin=str(root.resolve()), kind=IMAGE, x_train=x, y_train=y,
        class_names=tuple(class_names), scaling=Scaling(DIVIDE, 255.0), notes=notes,
    )
