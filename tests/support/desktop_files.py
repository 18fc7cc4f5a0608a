"""The desktop entry and the AppStream metainfo mpstudio ships (in mpstudio.resources),
and a desktop entry read back as the Desktop Entry spec's key-value file."""

from __future__ import annotations

import configparser
from importlib import resources
from pathlib import Path

from mpstudio import APP_ID

SHIPPED = resources.files("mpstudio.resources")
DESKTOP_FILE = Path(str(SHIPPED / "desktop" / f"{APP_ID}.desktop"))
METAINFO_FILE = Path(str(SHIPPED / "desktop" / f"{APP_ID}.metainfo.xml"))


def read_entry(path: Path) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    parser.optionxform = str  # keys are case-sensitive: Name, Name[zh_CN]
    parser.read(path, encoding="utf-8")
    assert parser.sections() == ["Desktop Entry"]
    return dict(parser["Desktop Entry"])
