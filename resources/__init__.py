"""Everything that is not code: the bundled digits dataset, the translations, the app icon
and the desktop entry. Installed as ``mpstudio.resources`` (pyproject: package-dir); code
finds it only through ``where()`` here, so a wheel, an editable install, a source tree and
a frozen app all read the same files."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable  # Python 3.11+; 3.10: importlib.abc

ICON = "mpstudio"  # icons/mpstudio.svg, .ico, .icns and icons/<N>x<N>/mpstudio.png
_SIZE_FOLDER = re.compile(r"(\d+)x\1")


def where(*parts: str) -> Traversable:
    """A file or folder of the resources (``where("icons", "mpstudio.svg")``)."""
    return resources.files(__name__).joinpath(*parts)


def folder(*parts: str) -> Path:
    """A folder as a file-system path, for APIs that take one (gettext, QTranslator):
    every way mpstudio is installed keeps the resources as real files."""
    return Path(str(where(*parts)))


def icon_sizes() -> list[int]:
    """The square PNG sizes shipped (16 ... 512), smallest first."""
    sizes = []
    for sub in where("icons").iterdir():
        match = _SIZE_FOLDER.fullmatch(sub.name)
        if match and sub.joinpath(f"{ICON}.png").is_file():
            sizes.append(int(match.group(1)))
    return sorted(sizes)


def icon_png(size: int) -> Traversable:
    return where("icons", f"{size}x{size}", f"{ICON}.png")
